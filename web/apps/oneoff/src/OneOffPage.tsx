import { useCallback, useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  BillingFields,
  Button,
  CheckboxField,
  ErrorState,
  ErrorSummary,
  EuConsentField,
  HostedCardFields,
  HumanVerification,
  MSG_CAPTCHA_ERROR,
  LoadingState,
  MSG_EU_CONSENT,
  MarketingConsentField,
  OrderSummary,
  PayTerms,
  SelectField,
  TextField,
  billingErrors,
  type Billing,
  type HostedCardFieldsHandle,
  type HumanVerificationHandle,
} from '@hangar/ui';
import { CURRENCY_CODES, formatMoney, parseCurrency, type CurrencyCode } from '@hangar/money';
import {
  createApiClient,
  DEFAULT_LINKS,
  featureOn,
  loadFeatureFlags,
  loadLinks,
  num,
  placeOrder,
  PurchaseAttempt,
  STILL_PROCESSING,
  unwrap,
  type Me,
  type OneOffPreview,
  type PresetCart,
  type StoreLinks,
} from '@hangar/api-client';
import { defaultCurrency, onSalesModeChange, payWithCardReader, readSalesMode, suggestedCountry, type SalesModeSetting } from '@hangar/storefront';
import { LoginModal } from './LoginModal';
import { PayWithChoice } from './PayWithChoice';
import { PromoCodes } from './PromoCodes';
import { QuantityStepper } from './QuantityStepper';
import { FLAG, ZIP_PREVIEW_CHARS, afterPurchase, fetchError, taxLabel, validatePayment, type PayWith, type SavedCard } from './oneoff';
import s from './oneoff.module.css';

const api = createApiClient();

export interface OneOffPageProps {
  cartId: string;
  go?: (url: string) => void;
  reload?: () => void;
}

export function OneOffPage({ cartId, go = (u) => window.location.assign(u), reload = () => window.location.reload() }: OneOffPageProps) {
  const [links, setLinks] = useState<StoreLinks>(DEFAULT_LINKS);
  useEffect(() => {
    void loadLinks().then(setLinks);
  }, []);
  const [flagChecked, setFlagChecked] = useState(false);
  const [cart, setCart] = useState<PresetCart>();
  const [loadError, setLoadError] = useState('');
  const [me, setMe] = useState<Me>();
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [currency, setCurrency] = useState<CurrencyCode>('USD');
  // The buyer's own choice of currency wins, then the staff's currency of the cart, then the
  // storefront's default (the cart stores none when staff chose none).
  const currencyChosen = useRef(false);
  const staffCurrency = useRef(false);
  const [salesMode, setSalesMode] = useState<SalesModeSetting | null>(() => readSalesMode());
  const [email, setEmail] = useState('');
  const [billing, setBilling] = useState<Billing>({ cardholderName: '', zipcode: '', country: suggestedCountry(currency) });
  // The country follows the currency's suggestion (the staff's, the cookie's or the visitor's
  // location's, as on /buy and /gift) until the buyer picks one (issue 45: the one-off cart
  // had no default country).
  const countryChosen = useRef(false);
  useEffect(() => {
    if (!countryChosen.current) setBilling((b) => ({ ...b, country: suggestedCountry(currency) }));
  }, [currency]);
  const { cardholderName, zipcode, country } = billing;
  const [businessId, setBusinessId] = useState('');
  const [gdpr, setGdpr] = useState(false);
  const [promoCodes, setPromoCodes] = useState<string[]>([]);
  const [preview, setPreview] = useState<OneOffPreview>();
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<SavedCard>();
  const [payWith, setPayWith] = useState<PayWith>('card');
  const [readerWaiting, setReaderWaiting] = useState(false);
  const card = useRef<HostedCardFieldsHandle>(null);
  const human = useRef<HumanVerificationHandle>(null);
  const counter = useRef(0);
  // Waiting for an order another request is still processing (409 ORDER_IN_PROGRESS).
  const [processing, setProcessing] = useState(false);
  // The login modal: open for a visitor without a session until closed (the guest path), and
  // again with the server's message when a guest's e-mail belongs to an account in use.
  const [loginModal, setLoginModal] = useState<{ message?: string }>();
  const attempt = useRef(new PurchaseAttempt());
  // gdpr=show in the query forces the EU consent checkbox, as on /buy (spec 001 §2).
  const [gdprShow] = useState(() => typeof window !== 'undefined' && new URLSearchParams(window.location.search).get('gdpr') === 'show');

  // Sales mode is this device's (local storage): follow it while the page is open.
  useEffect(() => onSalesModeChange(() => setSalesMode(readSalesMode())), []);
  // The card reader is offered while sales mode is on, to the credit-card admin who turned
  // it on (payments and checkout enforce the right; the page mirrors it).
  const readerOffered = Boolean(salesMode && me?.loggedIn && me.isCreditCardAdmin);
  const selling = readerOffered && payWith === 'reader';

  // After login the buyer's marketing preference is fetched (spec 001 §4): the marketing
  // checkbox is offered only when identity says the buyer has not consented (spec 001 §5).
  // Never in sales mode: staff at the counter cannot consent for the customer (checkout
  // ignores it there too). A visitor without a session sees the login modal first.
  const consentAccount = me?.loggedIn && !readerOffered ? me.accountUuid : undefined;
  const marketingPref = useQuery({
    queryKey: ['eu-consent', consentAccount],
    enabled: Boolean(consentAccount),
    queryFn: ({ signal }) => unwrap(api.identity.GET('/buy/api/subscription/eu_consent/{id}', { params: { path: { id: consentAccount! } }, signal })),
    retry: 1,
  });
  // A guest is a new customer (an account in use must log in): asked, as on /buy.
  const askMarketing = marketingPref.data?.preference?.marketingNotificationsEnabled === false || (me?.loggedIn === false && !readerOffered);
  const [marketing, setMarketing] = useState(false);
  useEffect(() => {
    if (readerOffered) setPayWith('reader');
    else setPayWith((w) => (w === 'reader' ? 'card' : w));
  }, [readerOffered]);

  // The page exists only while the one-off-purchases flag is on; otherwise it goes to /.
  useEffect(() => {
    void loadFeatureFlags().then((flags) => {
      if (!featureOn(flags, FLAG)) go('/');
      else setFlagChecked(true);
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    if (!flagChecked) return;
    unwrap(api.checkout.GET('/buy/api/cart/{cartId}', { params: { path: { cartId } } }))
      .then((answer) => {
        const c = answer as PresetCart;
        setCart(c);
        setQuantities(Object.fromEntries((c.requestJson.selectedProducts ?? []).map((p) => [p.code, p.quantity || 1])));
        if (c.requestJson.currency) {
          staffCurrency.current = true;
          if (!currencyChosen.current) setCurrency(parseCurrency(c.requestJson.currency));
        }
        if (c.requestJson.discountCode) setPromoCodes([c.requestJson.discountCode]);
      })
      .catch((err: unknown) => setLoadError(fetchError(err instanceof Error ? err.message : String(err))));
    // Without a staff currency the default is the storefront's, as on /buy and /gift: the
    // currency cookie, then the visitor's location (checkout's geo lookup), USD when that fails.
    const ac = new AbortController();
    void defaultCurrency(null, { signal: ac.signal }).then((c) => {
      if (ac.signal.aborted) return;
      if (!currencyChosen.current && !staffCurrency.current) setCurrency(c);
    });
    unwrap(api.identity.GET('/buy/api/me'))
      .then((m: Me) => {
        setMe(m);
        // Staff selling in sales mode type the customer's e-mail; a buyer's is the session's.
        if (m.loggedIn && !(readSalesMode() && m.isCreditCardAdmin)) {
          setEmail(m.username || m.email || '');
          unwrap(api.payments.GET('/buy/api/subscription/payment-method/{id}', { params: { path: { id: m.accountUuid ?? '' } } }))
            .then((r) => {
              if (!r.paymentMethod?.token) return;
              setSaved(r.paymentMethod as SavedCard);
              setPayWith((w) => (w === 'card' ? 'saved' : w));
            })
            .catch(() => undefined);
        }
      })
      .catch(() => setMe({ loggedIn: false }));
    return () => ac.abort();
  }, [flagChecked, cartId]);

  // A visitor without a session is offered the login once, on arrival (closing it is the guest path).
  const loginOffered = useRef(false);
  useEffect(() => {
    if (me && !me.loggedIn && !loginOffered.current) {
      loginOffered.current = true;
      setLoginModal({});
    }
  }, [me]);

  const zipKey = zipcode.trim().length >= ZIP_PREVIEW_CHARS ? zipcode.trim() : '';
  const configuration = useCallback(
    () => ({
      cartId,
      currency,
      email,
      billingInfo: { zipcode: zipKey, country },
      businessIdentificationNo: businessId,
      items: Object.entries(quantities).map(([code, quantity]) => ({ code, quantity })),
      discountPromoCode: promoCodes,
      isCreditCardCheckout: true,
      isGdprCompliant: gdpr,
      // Sales mode: the reader in use; with the admin's session the order is the e-mail's customer's.
      ...(selling && salesMode ? { readerSerialNumber: salesMode.readerSerialNumber } : {}),
    }),
    [cartId, currency, email, zipKey, country, businessId, quantities, promoCodes, gdpr, selling, salesMode],
  );

  // The invoice is previewed whenever the zipcode (4+ characters), country, currency, a
  // quantity or the promo codes change (spec 001 §4).
  useEffect(() => {
    if (!cart) return;
    const c = ++counter.current;
    unwrap(api.checkout.POST('/buy/api/oneoff/preview', { body: { ...configuration(), email: '', counter: c } }))
      .then((p) => c === counter.current && setPreview(p as OneOffPreview))
      .catch((err: unknown) => c === counter.current && setErrors([err instanceof Error ? err.message : String(err)]));
    // The e-mail does not change the price; it is left out so typing it does not re-price.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [cart, currency, zipKey, country, businessId, quantities, promoCodes]);

  // The business id is kept only for the countries that take one (the server says which).
  useEffect(() => {
    if (preview && !preview.businessIdAllowed && businessId) setBusinessId('');
  }, [preview, businessId]);

  async function pay() {
    const problems = [...validatePayment({ email, cardholderName, zipcode, country }, payWith !== 'card'), ...(human.current?.problems() ?? [])];
    setErrors(problems);
    if (problems.length > 0) return;
    setBusy(true);
    try {
      let body: Record<string, unknown>;
      // A code the preview refused is shown refused (by name, with Remove) and not sent: it
      // never holds up the others or the order (issue 45).
      const config = {
        ...configuration(),
        discountPromoCode: promoCodes.filter((c) => !refusedCode(c)),
        billingInfo: { zipcode: zipcode.trim(), country },
        cardholderName,
        recaptchaValue: human.current?.value() ?? '',
      };
      if (payWith === 'reader' && salesMode) {
        // The storefront's card-present payment (as on /buy): a vault on the sales-mode
        // reader for the customer's e-mail, polled every 1000 ms; its method pays, and the
        // reader's cardholder name is set.
        setReaderWaiting(true);
        const r = await payWithCardReader(email.trim(), salesMode.readerSerialNumber, { recaptchaValue: human.current?.value() ?? '' });
        setReaderWaiting(false);
        setErrors([]);
        if (r.cardholderName) setBilling((b) => ({ ...b, cardholderName: r.cardholderName }));
        body = { configuration: { ...config, cardholderName: r.cardholderName || cardholderName }, useSavedCard: true, paymentMethodToken: r.paymentMethod };
      } else if (payWith === 'saved' && saved?.token) {
        body = { configuration: config, useSavedCard: true, paymentMethodToken: saved.token };
      } else {
        const t = await card.current!.tokenize(cardholderName, zipcode);
        if (!t.ok) {
          setErrors([t.message]);
          return;
        }
        body = { configuration: config, nonce: t.nonce };
      }
      if (askMarketing && marketing) body.marketingConsent = true;
      // One key per attempt at this order: a retry after a lost answer completes it.
      const order = JSON.stringify({ ...config, cardholderName: undefined, recaptchaValue: undefined });
      const r = await placeOrder(api.checkout, '/buy/api/oneoff/submit', body, { attempt: attempt.current, order, onWaiting: setProcessing });
      if (r.stillProcessing) {
        setErrors(r.errors ?? []);
        return;
      }
      if (r.status !== 'ok' || !r.redirectUrl) {
        const refused = r.errors ?? [r.message ?? 'Your order could not be completed.'];
        // A refused tick (expired, reused) is cleared for a new one (spec 001).
        if (refused.includes(MSG_CAPTCHA_ERROR)) human.current?.reset();
        setErrors(refused);
        // A guest's e-mail whose account is in use: log in (the modal says why), as on /buy.
        if (r.requireLogin && !me?.loggedIn) setLoginModal({ message: refused[0] });
        return;
      }
      afterPurchase(r, go, undefined, { newAccount: me?.loggedIn === false });
    } catch (err) {
      // Card-reader errors (declined, timed out) are the server's words, shown as they are.
      setErrors([err instanceof Error && err.message ? err.message : 'Your order could not be completed. Please try again.']);
    } finally {
      setReaderWaiting(false);
      setBusy(false);
    }
  }

  if (!flagChecked || loadError || !cart) {
    return (
      <section className={s.oneoff} data-remote="oneoff" aria-labelledby="oneoff-title">
        <h1 id="oneoff-title">COMPLETE YOUR ORDER</h1>
        {loadError ? <ErrorState message={loadError} /> : <LoadingState label="Loading your order…" />}
      </section>
    );
  }

  const inv = preview?.invoice;
  const names = Object.fromEntries((preview?.items ?? []).map((i) => [i.code, i]));
  const codeErrors = preview?.codeErrors ?? [];
  function refusedCode(code: string) {
    return codeErrors.find((e) => (e.code ?? '').toLowerCase() === code.toLowerCase());
  }
  // A refused code's message is shown by the code itself (naming it), not again in the list.
  const codeMessages = new Set(codeErrors.filter((e) => promoCodes.some((c) => c.toLowerCase() === (e.code ?? '').toLowerCase())).map((e) => e.message));
  const previewErrors = (preview?.errors ?? []).filter((m) => !codeMessages.has(m));
  const total = inv ? formatMoney(num(inv.totalInCents), currency) : '';

  return (
    <section className={s.oneoff} data-remote="oneoff" aria-labelledby="oneoff-title">
      {me && !me.loggedIn && loginModal ? (
        <LoginModal api={api} onDone={reload} onClose={() => setLoginModal(undefined)} message={loginModal.message} initialEmail={email} />
      ) : null}
      <h1 id="oneoff-title">COMPLETE YOUR ORDER</h1>
      <div>
        <TextField label="Email Address" type="email" value={email} disabled={!!me?.loggedIn && !readerOffered} onChange={(e) => setEmail(e.target.value)} />
        <h2>Products</h2>
        {Object.entries(quantities).map(([code, q]) => (
          <div className={s.oneoffProduct} key={code} data-testid={`product-${code}`}>
            <div>
              <strong>{names[code]?.name ?? code}</strong>
              <div>{names[code]?.priceInCents !== undefined ? formatMoney(Number(names[code].priceInCents), currency) : ''}</div>
            </div>
            <QuantityStepper label={names[code]?.name ?? code} value={q} onCommit={(n) => setQuantities((m) => ({ ...m, [code]: n }))} />
          </div>
        ))}
        <h2>Payment</h2>
        <SelectField
          label="Currency"
          value={currency}
          onChange={(e) => {
            currencyChosen.current = true;
            setCurrency(parseCurrency(e.target.value));
          }}
          options={CURRENCY_CODES.map((c) => ({ value: c, label: c }))}
        />
        {saved?.token || readerOffered ? (
          <PayWithChoice value={payWith} onChange={setPayWith} saved={readerOffered ? undefined : saved} readerSerialNumber={readerOffered ? (salesMode?.readerSerialNumber ?? '') : undefined} />
        ) : null}
        <BillingFields
          value={billing}
          onChange={(patch) => {
            if (patch.country !== undefined) countryChosen.current = true;
            setBilling((b) => ({ ...b, ...patch }));
          }} errors={billingErrors(errors)} showCardholderName={payWith === 'card'} />
        {preview?.businessIdAllowed && <TextField label="Business ID (VAT number)" value={businessId} onChange={(e) => setBusinessId(e.target.value)} />}
        {payWith === 'card' && <HostedCardFields handle={card} />}
        {/* The server says when the EU consent is needed (and refuses the order without it). */}
        {preview?.euConsentRequired === true || gdprShow ? (
          <EuConsentField checked={gdpr} onChange={setGdpr} errors={errors.filter((e) => e === MSG_EU_CONSENT)} />
        ) : null}
        {askMarketing ? <MarketingConsentField checked={marketing} onChange={setMarketing} /> : null}
        {readerWaiting ? (
          <p role="status" data-testid="reader-waiting">
            Waiting for the card on reader {salesMode?.readerSerialNumber}…
          </p>
        ) : null}
        <HumanVerification handle={human} />
        <ErrorSummary errors={errors} />
        {processing ? (
          <p role="status" data-testid="still-processing">
            {STILL_PROCESSING}
          </p>
        ) : null}
        <PayTerms links={links} action="Complete Order" />
        {/* On a phone the summary comes after the form: the total is said here, in view with
            the button, and on the button itself (issue 45). */}
        {inv ? (
          <p className={s.oneoffPayTotal} data-testid="oneoff-pay-total">
            Total <strong>{total}</strong>
          </p>
        ) : null}
        <p>
          {/* A visitor pays as a guest (the e-mail's account is made at checkout). */}
          <Button size="large" onClick={() => void pay()} disabled={busy || !me}>
            {busy ? 'Processing…' : inv ? `Complete Order · ${total}` : 'Complete Order'}
          </Button>
        </p>
      </div>
      <OrderSummary
        className={s.oneoffSummary}
        lines={(inv?.invoiceItems ?? []).map((l, i) => ({ key: l.key ?? String(i), description: l.description, quantity: num(l.quantity), amountInCents: num(l.amountInCents) }))}
        currency={currency}
        taxLabel={inv?.taxVatText || taxLabel(preview?.country ?? country)}
        taxInCents={num(inv?.taxInCents)}
        totalInCents={num(inv?.totalInCents)}
        testIdPrefix="oneoff"
      >
        <PromoCodes codes={promoCodes} onChange={setPromoCodes} refused={refusedCode} />
        <ErrorSummary errors={previewErrors} title="Your order:" announce={false} data-testid="oneoff-preview-errors" />
      </OrderSummary>
    </section>
  );
}
