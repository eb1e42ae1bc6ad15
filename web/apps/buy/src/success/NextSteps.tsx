import { formatAmount, isCurrencyCode, type CurrencyCode } from '@hangar/money';
import { num } from '@hangar/api-client';
import s from '../buy.module.css';
import type { Receipt } from './SuccessPage';

/** Where a gift's codes went: to the recipient named (the buyer has a copy), else to the buyer. */
export function GiftSteps({ receipt: r }: { receipt: Receipt }) {
  const certs = r.certificates ?? [];
  const cur: CurrencyCode = isCurrencyCode(r.currency) ? (r.currency as CurrencyCode) : 'USD';
  const recipients = [...new Set(certs.map((c) => (c.recipientEmail ? (c.recipientName ? `${c.recipientName} (${c.recipientEmail})` : c.recipientEmail) : '')))].filter(Boolean);
  const codes = certs.length === 1 ? 'The code' : 'The codes';
  return (
    <li data-step="gift">
      <h3>{recipients.length > 0 ? 'Your gift is on its way' : 'Your gift certificate is ready'}</h3>
      {recipients.length > 0 ? (
        <p data-testid="gift-sent-to">
          {codes} went by e-mail to {recipients.join(' and ')}, who redeems {certs.length === 1 ? 'it' : 'them'} at checkout. A copy went to {r.email || 'you'}.
        </p>
      ) : (
        <p data-testid="gift-sent-to">
          {codes} went by e-mail to {r.email || 'you'}: give {certs.length === 1 ? 'it' : 'them'} to whoever you like, to redeem at checkout.
        </p>
      )}
      {certs.length > 0 ? (
        <ul className={s.buyNextItems} data-testid="gift-certificates">
          {certs.map((c) => (
            <li key={c.certificateId ?? c.maskedCode}>
              {formatAmount(num(c.balanceInCents), cur)} · code ending {c.maskedCode?.slice(-4)}
            </li>
          ))}
        </ul>
      ) : null}
      <p>A certificate pays for any plan or add-on bought in {cur} and never expires.</p>
    </li>
  );
}

/** What a one-off order bought and where to find it again. */
export function OneOffSteps({ items }: { items: { description?: string; quantity?: unknown; type?: string }[] }) {
  const bought = items.filter((l) => l.type !== 'PLAN_DISCOUNT');
  return (
    <li data-step="order">
      <h3>Your order</h3>
      <p>You bought:</p>
      <ul className={s.buyNextItems} data-testid="oneoff-items">
        {bought.map((l, i) => (
          <li key={`${l.description}:${i}`}>
            {l.description}
            {num(l.quantity) > 1 ? ` × ${num(l.quantity)}` : ''}
          </li>
        ))}
      </ul>
      <p>Your order and this receipt are on your account page, under Invoices.</p>
      <a className={s.buyNextLink} href="/account">
        Go to your account
      </a>
    </li>
  );
}
