import { type ReactNode } from 'react';
import { formatMoney, type CurrencyCode } from '@hangar/money';
import { num, type WireInvoiceItem } from '@hangar/api-client';
import type { Preview } from './hooks';
import { formatDate, ui } from '@hangar/ui';
import s from './buy.module.css';

/** Lines of planType hiddenPlan are dropped (the server drops them too). */
export function visibleLines(items: readonly WireInvoiceItem[] | undefined): WireInvoiceItem[] {
  return (items ?? []).filter((i) => i.planType !== 'hiddenPlan');
}

/**
 * The lines as the server ordered them, split where they are applied: those before tax sum
 * to the subtotal; those the server marks postTax (gift certificates, the account balance)
 * pay the total after tax, so they are listed below the tax.
 */
export function splitLines(items: readonly WireInvoiceItem[] | undefined): { beforeTax: WireInvoiceItem[]; afterTax: WireInvoiceItem[] } {
  const lines = visibleLines(items);
  return { beforeTax: lines.filter((l) => !l.postTax), afterTax: lines.filter((l) => l.postTax) };
}

/** The renewal date as the store prints dates (MM-dd-yyyy). */
export function renewalDateText(iso: string | undefined): string {
  return formatDate(iso);
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
  const { beforeTax, afterTax } = splitLines(inv?.invoiceItems);
  const lineKey = (l: WireInvoiceItem) => l.key ?? `${l.type}:${l.addOnCode}:${l.description}`;
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
              {beforeTax.map((l) => (
                <tr key={lineKey(l)} data-line={l.addOnCode || l.type} data-type={l.type}>
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
              {afterTax.map((l) => (
                <tr key={lineKey(l)} data-line={l.type} data-type={l.type} data-post-tax="true">
                  <th scope="row">
                    {l.description}
                    {l.reason ? <span className={s.buyInvoiceReason}>{l.reason}</span> : null}
                  </th>
                  <td>{money(l.amountInCents)}</td>
                </tr>
              ))}
              <tr className={s.buyInvoiceTotal}>
                <th scope="row">Total</th>
                <td data-testid="invoice-total">{money(inv.totalInCents)}</td>
              </tr>
            </tfoot>
          </table>
          {num(inv.creditToAccountInCents) > 0 ? (
            <p className={s.buyHint} data-testid="invoice-credit-to-account">
              The unused days are worth more than this order: the other {money(inv.creditToAccountInCents)} goes to your account balance after the purchase.
            </p>
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
