import { useCallback, useEffect, useRef, useState } from 'react';
import { BillingFields, Button, ErrorSummary, HostedCardFields, HumanVerification, MSG_CAPTCHA_ERROR, OrderSummary, PayTerms, SelectField, TextField, billingErrors, type HostedCardFieldsHandle, type HumanVerificationHandle } from '@hangar/ui';
import { CURRENCY_CODES, formatMoney, parseCurrency, type CurrencyCode } from '@hangar/money';
import { ApiError, createApiClient, DEFAULT_LINKS, loadLinks, num, placeOrder, PurchaseAttempt, STILL_PROCESSING, unwrap, type GiftValidation, type Me, type StoreLinks } from '@hangar/api-client';
import { defaultCurrency, suggestedCountry, syncKiosk } from '@hangar/storefront';
import {
  CUSTOM_MAX,
  CUSTOM_MIN,
  DEFAULT_CUSTOM,
  PRESETS,
  STORAGE_KEY,
  amountError,
  normalizeEmail,
  parseRoute,
  validEmail,
  validateForm,
  type Certificate,
  customAmountInput,
} from './gift';
import type { Billing } from '@hangar/ui';
import s from './gift.module.css';

const api = createApiClient();

/** What the page keeps between visits; currency only once the buyer chose one. */
function load(): Partial<{ certificates: Certificate[]; email: string; currency: string }> {
  try {
    return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
  } catch {
    return {};
  }
}

export interface GiftPageProps {
  rest?: string;
  search?: string;
  go?: (url: string) => void;
}

export function GiftPage({ rest, search = typeof window === 'undefined' ? '' : window.location.search, go = (u) => window.location.assign(u) }: GiftPageProps) {
  const route = parseRoute(rest, search);
  const saved = rest || search ? {} : load();
  const [certificates, setCertificates] = useState<Certificate[]>(saved.certificates ?? route.certificates);
  const chosen = route.currency || saved.currency || '';
  const [currency, setCurrency] = useState<CurrencyCode>(parseCurrency(chosen || 'USD'));
  // Whether the buyer chose the currency (the address, an earlier visit or the selector);
  // until then it is the storefront's default, as on /buy.
  const currencyChosen = useRef(chosen !== '');
  const [email, setEmail] = useState(route.email || saved.email || '');
  const [accountId] = useState(route.accountId);
  const [recipientEmail, setRecipientEmail] = useState('');
  const [message, setMessage] = useState('');
  const [billing, setBilling] = useState<Billing>({ cardholderName: '', zipcode: '', country: suggestedCountry(currency) });
  // The country follows the currency's suggestion (the visitor's location's, as on /buy)
  // until the buyer picks one (issue 45: /gift had no default country).
  const countryChosen = useRef(false);
  useEffect(() => {
    if (!countryChosen.current) setBilling((b) => ({ ...b, country: suggestedCountry(currency) }));
  }, [currency]);
  const { cardholderName, zipcode, country } = billing;
  const [validation, setValidation] = useState<GiftValidation>();
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [emailLocked, setEmailLocked] = useState(false);
  const [links, setLinks] = useState<StoreLinks>(DEFAULT_LINKS);
  useEffect(() => {
    void loadLinks().then(setLinks);
  }, []);
  const card = useRef<HostedCardFieldsHandle>(null);
  const human = useRef<HumanVerificationHandle>(null);
  const counter = useRef(0);
  // Waiting for an order another request is still processing (409 ORDER_IN_PROGRESS).
  const [processing, setProcessing] = useState(false);
  const attempt = useRef(new PurchaseAttempt());

  // A signed-in buyer whose account or e-mail differs from the page data is logged out
  // (spec 001 §4); otherwise the session's e-mail fills the form.
  useEffect(() => {
    let stop = false;
    unwrap(api.identity.GET('/buy/api/me'))
      .then(async (me: Me) => {
        if (stop || !me.loggedIn) return;
        const sessionEmail = (me.username || me.email || '').toLowerCase();
        const differs = (route.accountId && route.accountId !== me.accountUuid) || (route.email && route.email.toLowerCase() !== sessionEmail);
        if (differs) {
          await unwrap(api.identity.POST('/pricing/api/logout', { body: {} })).catch(() => undefined);
          return;
        }
        setEmail(me.username || me.email || '');
        setEmailLocked(true);
      })
      .catch(() => undefined);
    return () => {
      stop = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // No currency chosen: the storefront's default (the currency cookie, then the visitor's
  // location through checkout's geo lookup, USD when that fails), exactly as /buy does.
  useEffect(() => {
    if (currencyChosen.current) return;
    const ac = new AbortController();
    void defaultCurrency(null, { signal: ac.signal }).then((c) => {
      if (!ac.signal.aborted && !currencyChosen.current) setCurrency(c);
    });
    return () => ac.abort();
  }, []);

  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ certificates, email, currency: currencyChosen.current ? currency : undefined }));
    } catch {
      /* storage may be unavailable (private mode) */
    }
  }, [certificates, email, currency]);

  // The invoice is validated again when the amounts or currency change, and when a ZIP of
  // 4+ characters re-prices (spec 001 §4). The e-mail goes along only once it is an e-mail
  // (the e-mail-in-cart check).
  const zipKey = zipcode.trim().length >= 4 ? zipcode.trim() : '';
  const refresh = useCallback(async () => {
    const body = {
      giftCertValues: certificates.map((c) => c.value),
      email: validEmail(email) ? normalizeEmail(email) : '',
      zipcode: zipKey,
      country,
      currency,
      kioskMode: syncKiosk(search),
      counter: ++counter.current,
    };
    try {
      const v = (await unwrap(api.checkout.POST('/buy/api/gift/validate', { body }))) as GiftValidation;
      if ((v.counter ?? 0) >= counter.current) setValidation(v);
    } catch {
      /* the summary keeps the last answer */
    }
  }, [certificates, email, zipKey, country, currency, search]);
  useEffect(() => {
    const t = setTimeout(() => void refresh(), 150);
    return () => clearTimeout(t);
  }, [refresh]);

  const setCert = (i: number, c: Certificate) => setCertificates((list) => list.map((x, j) => (j === i ? c : x)));

  async function pay() {
    const problems = [...validateForm({ certificates, email, cardholderName, zipcode, country }), ...(human.current?.problems() ?? [])];
    setErrors(problems);
    if (problems.length > 0) return;
    setBusy(true);
    try {
      const t = await card.current!.tokenize(cardholderName, zipcode);
      if (!t.ok) {
        setErrors([t.message]);
        return;
      }
      const order = {
        giftCertValues: certificates.map((c) => c.value),
        email: normalizeEmail(email),
        accountId,
        zipcode,
        country,
        currency,
        recipient: recipientEmail || message ? { email: normalizeEmail(recipientEmail), message } : undefined,
      };
      const body = { ...order, cardholderName, nonce: t.nonce, recaptchaValue: human.current?.value() ?? '' };
      // One key per attempt at this order: a retry after a lost answer completes it.
      const r = await placeOrder(api.checkout, '/buy/api/gift/submit', body, { attempt: attempt.current, order: JSON.stringify(order), onWaiting: setProcessing });
      if (r.stillProcessing) {
        setErrors(r.errors ?? []);
        return;
      }
      if (r.status !== 'ok' || !r.redirectUrl) {
        const refused = r.errors ?? [r.message ?? 'Your purchase could not be completed.'];
        // A refused tick (expired, reused) is cleared for a new one (spec 001).
        if (refused.includes(MSG_CAPTCHA_ERROR)) human.current?.reset();
        setErrors(refused);
        return;
      }
      // On success local storage is cleared and the page goes to the receipt (spec 001 §4).
      try {
        localStorage.removeItem(STORAGE_KEY);
      } catch {
        /* nothing stored */
      }
      go(r.redirectUrl);
    } catch (err) {
      setErrors([err instanceof ApiError ? err.message : 'Your purchase could not be completed. Please try again.']);
    } finally {
      setBusy(false);
    }
  }

  const inv = validation?.invoice;
  const lines = inv?.invoiceItems ?? [];
  const amountOptions = [...PRESETS.map((p) => ({ value: String(p), label: formatMoney(p * 100, currency) })), { value: 'custom', label: 'Custom amount' }];

  return (
    <section className={s.gift} data-remote="gift" aria-labelledby="gift-title">
      <h1 id="gift-title">BUY A GIFT CERTIFICATE</h1>
      <div>
        <p>
          Give a pilot a year of flight planning. A gift certificate pays for any plan or add-on bought in the same currency; its code is
          e-mailed to you right after payment and never expires. See the{' '}
          <a href="/about/terms-of-use/" target="_blank" rel="noreferrer">
            gift certificate terms
          </a>
          .
        </p>
        <SelectField
          label="Currency"
          value={currency}
          onChange={(e) => {
            currencyChosen.current = true;
            setCurrency(parseCurrency(e.target.value));
          }}
          options={CURRENCY_CODES.map((c) => ({ value: c, label: c }))}
        />
        <h2>Certificates</h2>
        {certificates.map((c, i) => (
          <div className={s.giftCert} key={i} data-testid="gift-certificate">
            <SelectField
              label={`Certificate ${i + 1} amount`}
              value={c.kind === 'preset' ? c.value : 'custom'}
              onChange={(e) => setCert(i, e.target.value === 'custom' ? { kind: 'custom', value: String(DEFAULT_CUSTOM) } : { kind: 'preset', value: e.target.value })}
              options={amountOptions}
            />
            {c.kind === 'custom' && (
              <TextField
                label={`Custom amount (${CUSTOM_MIN} to ${CUSTOM_MAX})`}
                inputMode="numeric"
                value={c.value}
                onChange={(e) => setCert(i, { kind: 'custom', value: customAmountInput(e.target.value) })}
                errors={amountError(c) ? [amountError(c)!] : []}
              />
            )}
            {certificates.length > 1 && (
              <Button variant="link" onClick={() => setCertificates((l) => l.filter((_, j) => j !== i))}>
                Remove
              </Button>
            )}
          </div>
        ))}
        <Button variant="secondary" onClick={() => setCertificates((l) => [...l, { kind: 'preset', value: String(PRESETS[0]) }])}>
          Add Another Certificate
        </Button>
        <h2>Your details</h2>
        <TextField label="Email Address" type="email" value={email} disabled={emailLocked} onChange={(e) => setEmail(e.target.value)} autoComplete="email" />
        <TextField label="Recipient e-mail (optional)" type="email" value={recipientEmail} onChange={(e) => setRecipientEmail(e.target.value)} />
        <TextField label="Message to the recipient (optional)" value={message} maxLength={500} onChange={(e) => setMessage(e.target.value)} />
        <h2>Payment</h2>
        <BillingFields
          value={billing}
          onChange={(patch) => {
            if (patch.country !== undefined) countryChosen.current = true;
            setBilling((b) => ({ ...b, ...patch }));
          }}
          errors={billingErrors(errors)}
        />
        <HostedCardFields handle={card} />
        <HumanVerification handle={human} />
        <ErrorSummary errors={errors} />
        {processing ? (
          <p role="status" data-testid="still-processing">
            {STILL_PROCESSING}
          </p>
        ) : null}
        <PayTerms links={links} action="Buy Gift Certificate" />
        {/* On a phone the summary comes after the form: the total is said here, in view with
            the button, and on the button itself (issue 45). */}
        {inv ? (
          <p className={s.giftPayTotal} data-testid="gift-pay-total">
            Total <strong>{formatMoney(num(inv.totalInCents), currency)}</strong>
          </p>
        ) : null}
        <p>
          <Button size="large" onClick={() => void pay()} disabled={busy}>
            {busy ? 'Processing…' : inv ? `Buy Gift Certificate · ${formatMoney(num(inv.totalInCents), currency)}` : 'Buy Gift Certificate'}
          </Button>
        </p>
      </div>
      <OrderSummary
        className={s.giftSummary}
        lines={lines.map((l, i) => ({ key: l.key ?? String(i), description: l.description, amountInCents: num(l.amountInCents) }))}
        currency={currency}
        taxLabel={inv?.taxVatText || 'Tax'}
        taxInCents={num(inv?.taxInCents)}
        totalInCents={num(inv?.totalInCents)}
        testIdPrefix="gift"
      >
        {validation?.status === 'fail' ? <ErrorSummary errors={validation.errors ?? []} title="Your certificates:" announce={false} data-testid="gift-validation-errors" /> : null}
      </OrderSummary>
    </section>
  );
}
