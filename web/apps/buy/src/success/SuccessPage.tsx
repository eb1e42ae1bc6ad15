import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ErrorState, LoadingState, formatDate, ui } from '@hangar/ui';
import { formatAmount, isCurrencyCode, type CurrencyCode } from '@hangar/money';
import { ApiError, DEFAULT_LINKS, num, unwrap } from '@hangar/api-client';
import { apiClient } from '../api';
import { useLinks } from '../hooks';
import s from '../buy.module.css';
import { BillingContactModal, type BillingContact } from './BillingContactModal';
import { GiftSteps, OneOffSteps } from './NextSteps';
import { RECEIPT_FRESH_MS, receiptKey, type Receipt } from './receiptQuery';

export type { Receipt, BillingContact };



/** Invoice dates are MM-dd-yyyy (formatDate); the receipt time is shown in UTC. */
export function receiptDate(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${formatDate(d)} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} UTC`;
}

/** What a receipt says was bought: its kind decides the page's heading and next steps. */
export type PurchaseKind = 'subscription' | 'gift' | 'oneoff';

export function purchaseKind(type: string | undefined): PurchaseKind {
  return type === 'gift' || type === 'oneoff' ? type : 'subscription';
}

const HEADING: Record<PurchaseKind, string> = {
  subscription: 'Thank you for your purchase',
  gift: 'Thank you for your gift certificate',
  oneoff: 'Thank you for your order',
};

/**
 * An amount of the receipt: the cents in the store's one format (grouped, two decimals);
 * the server's display string when it is words (N/A when a third party paid), or when only
 * the string came.
 */
export function receiptAmount(text: string | undefined, cents: unknown, cur: CurrencyCode): string {
  if (text && !/^-?\d/.test(text)) return text;
  if (cents !== undefined && cents !== null) return formatAmount(num(cents), cur);
  const parsed = Number(text);
  return text && Number.isFinite(parsed) ? formatAmount(Math.round(parsed * 100), cur) : '';
}

/** Where a buyer whose account was created with the order sets a password (identity). */
export const SET_PASSWORD_PATH = '/account/set-password';

function newAccountFromLocation(): boolean {
  return typeof window !== 'undefined' && new URLSearchParams(window.location.search).get('newAccount') === '1';
}

function invoiceIdFromLocation(): string {
  if (typeof window === 'undefined') return '';
  const q = new URLSearchParams(window.location.search);
  return q.get('invoiceId') ?? q.get('id') ?? '';
}

export function SuccessPage({
  invoiceId = invoiceIdFromLocation(),
  newAccount = newAccountFromLocation(),
  print = () => window.print(),
}: {
  invoiceId?: string;
  newAccount?: boolean;
  print?: () => void;
}) {
  const queries = useQueryClient();
  const receipt = useQuery<Receipt, ApiError>({
    queryKey: receiptKey(invoiceId),
    enabled: invoiceId !== '',
    queryFn: ({ signal }) => unwrap(apiClient().checkout.GET('/buy/api/receipt/{invoiceId}', { params: { path: { invoiceId } }, signal })),
    retry: 1,
    // The receipt the submit answered is shown as it is, not asked for again.
    staleTime: RECEIPT_FRESH_MS,
  });
  // The app's App Store listing (the app runs on iPad and iPhone, spec 000 §1): runtime config.
  const appStore = useLinks().data?.appStore ?? DEFAULT_LINKS.appStore;
  const [mode, setMode] = useState<'receipt' | 'invoice'>('receipt');
  const [contactOpen, setContactOpen] = useState(false);
  // The contact saved in the modal prints at once (the loaded receipt still has the old one).
  const [savedContact, setSavedContact] = useState<BillingContact | undefined>();
  const [printNow, setPrintNow] = useState(false);
  // The account page's "Print invoice" comes here with print=invoice: choosing the invoice
  // opens the billing-contact modal (spec 001 §4), where the server offers printing.
  const [askedInvoice, setAskedInvoice] = useState(() => typeof window !== 'undefined' && new URLSearchParams(window.location.search).get('print') === 'invoice');
  useEffect(() => {
    if (!askedInvoice || !receipt.data) return;
    setAskedInvoice(false);
    if (receipt.data.canPrintInvoice) setContactOpen(true);
  }, [askedInvoice, receipt.data]);
  useEffect(() => {
    if (!printNow) return;
    setPrintNow(false);
    print();
  }, [printNow, print]);

  if (invoiceId === '') {
    // No order named: nothing was bought here, so nothing is thanked for. The receipts are
    // where every order is listed.
    return (
      <section className={s.buy} data-remote="buy" aria-labelledby="buy-success-title" data-testid="no-receipt">
        <h1 id="buy-success-title">Your receipts</h1>
        <p>This page shows the receipt of a purchase when you come from the purchase or from the link in its receipt e-mail.</p>
        <p>Every order and its receipt are on your account page, under Invoices.</p>
        <a className={s.buyNextLink} href="/account">
          Go to your account
        </a>
      </section>
    );
  }
  if (receipt.isPending) return <LoadingState label="Loading your receipt…" />;
  if (receipt.isError) {
    return (
      <section className={s.buy} data-remote="buy">
        <h1>Your receipt</h1>
        <ErrorState message="Your receipt could not be loaded." detail={receipt.error.message} onRetry={() => void receipt.refetch()} />
      </section>
    );
  }
  const r = receipt.data;
  const cur: CurrencyCode = isCurrencyCode(r.currency) ? (r.currency as CurrencyCode) : 'USD';
  const shown = (text: string | undefined, cents: unknown) => receiptAmount(text, cents, cur);
  const lines = (r.invoiceItems ?? []).filter((l) => l.planType !== 'hiddenPlan');
  // The server marks what paid the total after tax (gift certificates, the account balance):
  // it is listed below the tax, so the items sum to the subtotal as printed.
  const beforeTax = lines.filter((l) => !l.postTax);
  const afterTax = lines.filter((l) => l.postTax);
  const kind = purchaseKind(r.type);
  const contact = savedContact ?? r.billingContact;
  return (
    <section className={s.buy} data-remote="buy" aria-labelledby="buy-success-title" data-kind={kind}>
      <h1 id="buy-success-title">{HEADING[kind]}</h1>
      <div className={s.buyReceipt} data-testid="receipt">
        <h2>{mode === 'invoice' ? 'Invoice' : 'Receipt'}</h2>
        {r.seller?.name ? (
          <address className={s.buyReceiptSeller} data-testid="receipt-seller">
            <strong>{r.seller.name}</strong>
            {(r.seller.address ?? '').split('\n').filter(Boolean).map((line) => (
              <span key={line}>{line}</span>
            ))}
            {r.seller.vatNumber ? <span>VAT number: {r.seller.vatNumber}</span> : null}
          </address>
        ) : null}
        <dl className={s.buyReceiptMeta}>
          <dt>{mode === 'invoice' ? 'Invoice' : 'Order'}</dt>
          <dd data-testid="receipt-id">{r.invoiceNumber || r.invoiceId || invoiceId}</dd>
          {r.created ? (
            <>
              <dt>Date</dt>
              <dd>
                {r.created} {r.createdTime}
              </dd>
            </>
          ) : null}
          {r.email ? (
            <>
              <dt>E-mail</dt>
              <dd>{r.email}</dd>
            </>
          ) : null}
          {r.cardLast4 ? (
            <>
              <dt>Paid with</dt>
              <dd>
                {r.cardBrand || 'Card'} ending in {r.cardLast4}
              </dd>
            </>
          ) : null}
          {mode === 'invoice' && contact?.name ? (
            <>
              <dt>Bill to</dt>
              <dd>
                {[contact.name, contact.physicalAddress, contact.physicalAddress2, [contact.postalCode, contact.city].filter(Boolean).join(' '), contact.stateProvince, contact.country].filter(Boolean).join(', ')}
              </dd>
            </>
          ) : null}
          {mode === 'invoice' && r.businessIdentificationNo ? (
            <>
              <dt>VAT ID</dt>
              <dd>{r.businessIdentificationNo}</dd>
            </>
          ) : null}
        </dl>
        <table className={s.buyInvoiceTable}>
          <caption className={ui.hVisuallyHidden}>Purchased items</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {beforeTax.map((l, i) => (
              <tr key={`${l.type}:${l.addOnCode}:${i}`}>
                <th scope="row">
                  {l.description}
                  {num(l.quantity) > 1 ? ` × ${num(l.quantity)}` : ''}
                </th>
                <td>{shown(l.amount, l.amountInCents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Subtotal</th>
              <td>{shown(r.subtotal, r.subtotalInCents)}</td>
            </tr>
            <tr>
              <th scope="row">
                {r.taxVatText || 'Tax'}
                {r.taxRate ? ` (${r.taxRate})` : ''}
              </th>
              <td>{shown(r.tax, r.taxInCents)}</td>
            </tr>
            {afterTax.map((l, i) => (
              <tr key={`${l.type}:${i}`} data-post-tax="true">
                <th scope="row">{l.description}</th>
                <td>{shown(l.amount, l.amountInCents)}</td>
              </tr>
            ))}
            <tr className={s.buyInvoiceTotal}>
              <th scope="row">Total</th>
              <td data-testid="receipt-total">{shown(r.total, r.totalInCents)}</td>
            </tr>
          </tfoot>
        </table>
        {r.taxNote ? <p>{r.taxNote}</p> : r.reverseCharge && r.reverseChargeNote ? <p>{r.reverseChargeNote}</p> : null}
      </div>
      <section className={s.buyNext} aria-labelledby="buy-next-title" data-testid="next-steps">
        <h2 id="buy-next-title">What's next</h2>
        <ol className={s.buyNextList}>
          {newAccount ? (
            <li data-step="password">
              <h3>Set your password</h3>
              <p>
                Your account{r.email ? ` ${r.email}` : ''} was created with this order. Set a password to sign in to the app and to your account.
              </p>
              <a className={s.buyNextLink} href={SET_PASSWORD_PATH}>
                Set your password
              </a>
            </li>
          ) : null}
          {kind === 'gift' ? <GiftSteps receipt={r} /> : null}
          {kind === 'oneoff' ? <OneOffSteps items={beforeTax} /> : null}
          {kind === 'subscription' ? (
            <>
              <li data-step="app">
                <h3>Download the app</h3>
                <p>Install Hangar on your iPad or iPhone and sign in{r.email ? ` with ${r.email}` : ''}: your plan is ready there.</p>
                <a className={s.buyNextLink} href={appStore} rel="noopener">
                  Download Hangar from the App Store
                </a>
              </li>
              <li data-step="account">
                <h3>Manage your subscription</h3>
                <p>Renewal date and price, auto-renew, your card and every invoice are on your account page.</p>
                <a className={s.buyNextLink} href="/account">
                  Manage your subscription
                </a>
              </li>
            </>
          ) : null}
          <li data-step="papers">
            <h3>{r.canPrintInvoice ? 'Print your receipt or invoice' : 'Print your receipt'}</h3>
            <p>A copy was sent to {r.email || 'your e-mail address'}.</p>
            <div className={s.buySuccessActions}>
              <Button
                onClick={() => {
                  setMode('receipt');
                  setPrintNow(true);
                }}
              >
                Print receipt
              </Button>
              {r.canPrintInvoice ? (
                <Button variant="secondary" onClick={() => setContactOpen(true)}>
                  Print invoice
                </Button>
              ) : null}
              <a className={s.buyNextLink} href={`/buy/api/receipt/${encodeURIComponent(invoiceId)}/pdf`} download data-testid="receipt-pdf">
                {r.canPrintInvoice ? 'Download invoice (PDF)' : 'Download receipt (PDF)'}
              </a>
            </div>
          </li>
        </ol>
      </section>
      <BillingContactModal
        open={contactOpen}
        invoiceId={invoiceId}
        accountId={r.accountId ?? ''}
        initial={contact}
        onClose={() => setContactOpen(false)}
        onSaved={(saved) => {
          setSavedContact(saved);
          // The contact (or the corrected copy it issued) is the route's from now on: the
          // next visit reads it, not the receipt held from before.
          void queries.invalidateQueries({ queryKey: receiptKey(invoiceId), refetchType: 'none' });
          setContactOpen(false);
          setMode('invoice');
          setPrintNow(true);
        }}
      />
    </section>
  );
}
