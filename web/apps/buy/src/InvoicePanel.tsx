import { type ReactNode } from 'react';
import { formatMoney, type CurrencyCode } from '@hangar/money';
import { num, type WireInvoiceItem } from '@hangar/api-client';
import type { Preview } from './hooks';
import { ui } from '@hangar/ui';
import s from './buy.module.css';

/** Lines of planType hiddenPlan are dropped (the server drops them too). */
export function visibleLines(items: readonly WireInvoiceItem[] | undefined): WireInvoiceItem[] {
  return (items ?? []).filter((i) => i.planType !== 'hiddenPlan');
}

export function renewalDateText(iso: string | undefined): string {
  if (!iso) return '';
  const [y, m, d] = iso.slice(0, 10).split('-');
  return y && m && d ? `${m}-${d}-${y}` : iso;
}

export interface InvoicePanelProps {
  preview: Preview | undefined;
  currency: CurrencyCode;
  updating: boolean;
  /** The re-pricing failed: its message replaces the total (a stale total is never shown). */
  error?: string;
  children?: ReactNode;
}

/**
 * The order summary. Beside the configurator it is sticky by CSS (buy.module.css): spec 001
 * §9's "sticks above 1053 px once scrolled 145 px" is what position: sticky does by itself
 * in the two-column layout, which starts at 880 px.
 */
export function InvoicePanel({ preview, currency, updating, error, children }: InvoicePanelProps) {
  const inv = error ? undefined : preview?.invoice;
  const cur = (inv?.currency as CurrencyCode | undefined) ?? currency;
  const money = (v: unknown) => formatMoney(num(v), cur);
  const lines = visibleLines(inv?.invoiceItems);
  return (
    <aside className={s.buyInvoice} id="buy-invoice" aria-labelledby="buy-invoice-title" data-testid="invoice" aria-busy={updating || undefined}>
      <h2 id="buy-invoice-title">Your invoice</h2>
      {/* A long invoice (or one beside a long list of errors) scrolls inside: a keyboard reaches it. */}
      <div className={s.buyInvoiceBody} tabIndex={0} role="region" aria-label="Invoice lines">
      {error ? (
        <p className={s.buyErrorInline} role="alert" data-testid="invoice-error">
          {error}
        </p>
      ) : !inv ? (
        <p className={s.buyHint}>Calculating…</p>
      ) : (
        <>
          <table className={s.buyInvoiceTable}>
            <caption className={ui.hVisuallyHidden}>Invoice lines</caption>
            <thead className={ui.hVisuallyHidden}>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Amount</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={l.key ?? `${l.type}:${l.addOnCode}:${l.description}`} data-line={l.addOnCode || l.type} data-type={l.type}>
                  <th scope="row">
                    <span className={s.buyInvoiceDesc}>
                      {l.description}
                      {num(l.quantity) > 1 ? ` × ${num(l.quantity)}` : ''}
                    </span>
                    {l.reason ? <span className={s.buyInvoiceReason}>{l.reason}</span> : null}
                  </th>
                  <td>{money(l.amountInCents)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Subtotal</th>
                <td data-testid="invoice-subtotal">{money(inv.subtotalInCents)}</td>
              </tr>
              <tr>
                <th scope="row">
                  {inv.taxVatText || 'Tax'}
                  {inv.taxRate ? ` (${inv.taxRate})` : ''}
                  {inv.reverseCharge ? <span className={s.buyInvoiceReason}>Reverse charge: VAT to be accounted for by the recipient</span> : null}
                  {!inv.taxJurisdiction && !inv.reverseCharge ? <span className={s.buyInvoiceReason}>Calculated at checkout from your billing address</span> : null}
                </th>
                <td data-testid="invoice-tax">{money(inv.taxInCents)}</td>
              </tr>
              {num(inv.giftCertificateCreditInCents) > 0 ? (
                <tr>
                  <th scope="row">Gift certificate</th>
                  <td>-{money(inv.giftCertificateCreditInCents)}</td>
                </tr>
              ) : null}
              <tr className={s.buyInvoiceTotal}>
                <th scope="row">Total</th>
                <td data-testid="invoice-total">{money(inv.totalInCents)}</td>
              </tr>
            </tfoot>
          </table>
          {num(inv.creditToAccountInCents) > 0 ? (
            <p className={s.buyHint}>{money(inv.creditToAccountInCents)} of credit goes to your account balance after purchase.</p>
          ) : null}
          {preview?.renewalDate ? (
            <p className={s.buyHint} data-testid="invoice-renewal">
              Renews at {money(preview.renewalAmountInCents)}/yr on {renewalDateText(preview.renewalDate)}.
            </p>
          ) : null}
        </>
      )}
      </div>
      <p className={ui.hVisuallyHidden} role="status" aria-live="polite">
        {updating ? 'Updating your invoice' : inv ? `Total ${money(inv.totalInCents)}` : ''}
      </p>
      {children}
    </aside>
  );
}
