import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Dialog, ErrorState, LoadingState, SelectField, TextField, ui } from '@hangar/ui';
import { CURRENCY_SYMBOLS, formatMoney, isCurrencyCode, type CurrencyCode } from '@hangar/money';
import { ApiError, DEFAULT_LINKS, num, unwrap, type CheckoutComponents } from '@hangar/api-client';
import { apiClient } from '../api';
import { countries } from '../payment/countries';
import { useLinks } from '../hooks';
import s from '../buy.module.css';

/** GET /buy/api/receipt/{invoiceId} (checkout). */
export type Receipt = CheckoutComponents['schemas']['v1GetReceiptResponse'];

export interface BillingContact {
  name: string;
  physicalAddress: string;
  physicalAddress2: string;
  city: string;
  stateProvince: string;
  postalCode: string;
  country: string;
}

const EMPTY_CONTACT: BillingContact = { name: '', physicalAddress: '', physicalAddress2: '', city: '', stateProvince: '', postalCode: '', country: '' };

/** Invoice dates are MM-dd-yyyy; the receipt time is shown in UTC. */
export function receiptDate(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} UTC`;
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
  const receipt = useQuery<Receipt, ApiError>({
    queryKey: ['receipt', invoiceId],
    enabled: invoiceId !== '',
    queryFn: ({ signal }) => unwrap(apiClient().checkout.GET('/buy/api/receipt/{invoiceId}', { params: { path: { invoiceId } }, signal })),
    retry: 1,
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
    return (
      <section className={s.buy} data-remote="buy">
        <h1>Thank you for your purchase</h1>
        <p>Your receipt has been sent to your e-mail address.</p>
      </section>
    );
  }
  if (receipt.isPending) return <LoadingState label="Loading your receipt…" />;
  if (receipt.isError) {
    return (
      <section className={s.buy} data-remote="buy">
        <h1>Thank you for your purchase</h1>
        <ErrorState message="Your receipt could not be loaded." detail={receipt.error.message} onRetry={() => void receipt.refetch()} />
      </section>
    );
  }
  const r = receipt.data;
  const cur: CurrencyCode = isCurrencyCode(r.currency) ? (r.currency as CurrencyCode) : 'USD';
  // Display strings from the server (N/A when a third party pays), else the cents.
  const shown = (text: string | undefined, cents: unknown) => {
    if (!text) return formatMoney(num(cents), cur);
    if (!/^-?\d/.test(text)) return text;
    return text.startsWith('-') ? `-${CURRENCY_SYMBOLS[cur]}${text.slice(1)}` : `${CURRENCY_SYMBOLS[cur]}${text}`;
  };
  const lines = (r.invoiceItems ?? []).filter((l) => l.planType !== 'hiddenPlan');
  const contact = savedContact ?? r.billingContact;
  return (
    <section className={s.buy} data-remote="buy" aria-labelledby="buy-success-title">
      <h1 id="buy-success-title">Thank you for your purchase</h1>
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
            {lines.map((l, i) => (
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
          setContactOpen(false);
          setMode('invoice');
          setPrintNow(true);
        }}
      />
    </section>
  );
}

function BillingContactModal({ open, invoiceId, accountId, initial, onClose, onSaved }: { open: boolean; invoiceId: string; accountId: string; initial?: Partial<BillingContact>; onClose: () => void; onSaved: (contact: BillingContact) => void }) {
  const [contact, setContact] = useState<BillingContact>({ ...EMPTY_CONTACT, ...(initial ?? {}) });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!open || !accountId || initial?.name) return;
    unwrap(apiClient().checkout.GET('/buy/api/account/{accountUuid}/subscription', { params: { path: { accountUuid: accountId }, query: { subscriptionOnly: 'true' } } }))
      .then((r) => setContact({ ...EMPTY_CONTACT, ...((r.subscription?.billingContact ?? {}) as Partial<BillingContact>) }))
      .catch(() => setError('Latest contact info failed to load.'));
  }, [open, accountId, initial?.name]);
  const set = (k: keyof BillingContact) => (e: { target: { value: string } }) => setContact((c) => ({ ...c, [k]: e.target.value }));
  return (
    <Dialog open={open} title="Billing contact" onClose={onClose} testId="billing-contact-modal">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            // The invoice's own contact route: the receipt's token (cookie of the browser that
            // paid or opened the e-mailed link) is enough, so a guest needs no log-in (issue 31).
            await unwrap(apiClient().checkout.POST('/buy/api/receipt/{invoice_id}/contact', { params: { path: { invoice_id: invoiceId } }, body: contact }));
            onSaved(contact);
          } catch (err) {
            const status = err instanceof ApiError ? err.status : 0;
            if (status === 403) {
              const url = new URL(window.location.href);
              url.searchParams.set('prompt', 'login');
              window.location.assign(url.pathname + url.search);
              return;
            }
            if (status === 404) {
              // No contact store answers on this deployment: the invoice still prints with
              // the contact as entered.
              onSaved(contact);
              return;
            }
            setError(status === 401 ? 'You are not authorized.' : 'Your Billing Contact Information failed to upload.');
          } finally {
            setBusy(false);
          }
        }}
      >
        <TextField label="Name" name="name" value={contact.name} onChange={set('name')} />
        <TextField label="Address" name="physicalAddress" value={contact.physicalAddress} onChange={set('physicalAddress')} />
        <TextField label="Address line 2" name="physicalAddress2" value={contact.physicalAddress2} onChange={set('physicalAddress2')} />
        <TextField label="City" name="city" value={contact.city} onChange={set('city')} />
        <TextField label="State / Province" name="stateProvince" value={contact.stateProvince} onChange={set('stateProvince')} />
        <TextField label="Postal code" name="postalCode" value={contact.postalCode} onChange={set('postalCode')} />
        <SelectField label="Country" name="country" value={contact.country} onChange={set('country')} options={[{ value: '', label: 'Select a country' }, ...countries().map((c) => ({ value: c.code, label: c.name }))]} />
        {error ? (
          <p className={s.buyErrorInline} role="alert">
            {error}
          </p>
        ) : null}
        <Button type="submit" disabled={busy}>
          Save and print invoice
        </Button>
      </form>
    </Dialog>
  );
}
