import { useEffect, useState, type ReactNode } from 'react';
import { formatMoney, type CurrencyCode } from '@hangar/money';
import { num, type WireInvoiceItem } from '@hangar/api-client';
import type { Preview } from './hooks';
import { ui } from '@hangar/ui';
import s from './buy.module.css';

/** The cart sticks when the window is wider than 1053 px and scrolled past 145 px (spec 001 §9). */
export const STICKY_MIN_WIDTH = 1053;
export const STICKY_MIN_SCROLL = 145;

export function useSticky(): boolean {
  const [sticky, setSticky] = useState(false);
  useEffect(() => {
    const update = () => setSticky(window.innerWidth > STICKY_MIN_WIDTH && window.scrollY > STICKY_MIN_SCROLL);
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      window.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, []);
  return sticky;
}

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
  children?: ReactNode;
}

export function InvoicePanel({ preview, currency, updating, children }: InvoicePanelProps) {
  const sticky = useSticky();
  const inv = preview?.invoice;
  const cur = (inv?.currency as CurrencyCode | undefined) ?? currency;
  const money = (v: unknown) => formatMoney(num(v), cur);
  const lines = visibleLines(inv?.invoiceItems);
  return (
    <aside className={`buy-invoice${sticky ? ' buy-invoice--sticky' : ''}`} aria-labelledby="buy-invoice-title" data-testid="invoice" aria-busy={updating || undefined}>
      <h2 id="buy-invoice-title">Your invoice</h2>
      {!inv ? (
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
      <p className={ui.hVisuallyHidden} role="status" aria-live="polite">
        {updating ? 'Updating your invoice' : inv ? `Total ${money(inv.totalInCents)}` : ''}
      </p>
      {children}
    </aside>
  );
}
