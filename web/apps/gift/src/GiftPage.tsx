import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, HostedCardFields, SelectField, TextField, countryOptions, type HostedCardFieldsHandle } from '@hangar/ui';
import { CURRENCY_CODES, formatMoney, parseCurrency, type CurrencyCode } from '@hangar/money';
import { ApiError, createApiClient, newIdempotencyKey, submitPurchase, type GiftValidation, type Me } from '@hangar/api-client';
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
} from './gift';
import s from './gift.module.css';

const api = createApiClient();

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
  const [currency, setCurrency] = useState<CurrencyCode>(parseCurrency(route.currency || saved.currency || 'USD'));
  const [email, setEmail] = useState(route.email || saved.email || '');
  const [accountId] = useState(route.accountId);
  const [recipientEmail, setRecipientEmail] = useState('');
  const [message, setMessage] = useState('');
  const [cardholderName, setCardholderName] = useState('');
  const [zipcode, setZipcode] = useState('');
  const [country, setCountry] = useState('');
  const [validation, setValidation] = useState<GiftValidation>();
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [emailLocked, setEmailLocked] = useState(false);
  const card = useRef<HostedCardFieldsHandle>(null);
  const counter = useRef(0);

  // A signed-in buyer whose account or e-mail differs from the page data is logged out
  // (spec 001 §4); otherwise the session's e-mail fills the form.
  useEffect(() => {
    let stop = false;
    api.http
      .request<Me>('GET', '/buy/api/me')
      .then(async (me) => {
        if (stop || !me.loggedIn) return;
        const sessionEmail = (me.username || me.email || '').toLowerCase();
        const differs = (route.accountId && route.accountId !== me.accountUuid) || (route.email && route.email.toLowerCase() !== sessionEmail);
        if (differs) {
          await api.http.request('POST', '/pricing/api/logout', { body: {} }).catch(() => undefined);
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

  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ certificates, email, currency }));
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
      kioskMode: new URLSearchParams(search).get('kiosk') === 'true',
      counter: ++counter.current,
    };
    try {
      const v = await api.http.request<GiftValidation>('POST', '/buy/api/gift/validate', { body });
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
    const problems = validateForm({ certificates, email, cardholderName, zipcode, country });
    setErrors(problems);
    if (problems.length > 0) return;
    setBusy(true);
    try {
      const t = await card.current!.tokenize(cardholderName, zipcode);
      if (!t.ok) {
        setErrors([t.message]);
        return;
      }
      const r = await submitPurchase(
        '/buy/api/gift/submit',
        {
          giftCertValues: certificates.map((c) => c.value),
          email: normalizeEmail(email),
          accountId,
          zipcode,
          country,
          currency,
          cardholderName,
          nonce: t.nonce,
          recipient: recipientEmail || message ? { email: normalizeEmail(recipientEmail), message } : undefined,
        },
        newIdempotencyKey(),
      );
      if (r.status !== 'ok' || !r.redirectUrl) {
        setErrors(r.errors ?? [r.message ?? 'Your purchase could not be completed.']);
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
          onChange={(e) => setCurrency(parseCurrency(e.target.value))}
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
                onChange={(e) => setCert(i, { kind: 'custom', value: e.target.value.replace(/[^\d]/g, '').slice(0, 4) })}
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
        <TextField label="Name on card" value={cardholderName} onChange={(e) => setCardholderName(e.target.value)} autoComplete="cc-name" />
        <TextField label="Postal Code" value={zipcode} onChange={(e) => setZipcode(e.target.value)} autoComplete="postal-code" />
        <SelectField label="Country" value={country} onChange={(e) => setCountry(e.target.value)} options={countryOptions()} />
        <HostedCardFields handle={card} />
        {errors.length > 0 && (
          <div className={s.giftErrors} role="alert">
            Please correct the following:
            <ul>
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
        <p>
          <Button size="large" onClick={() => void pay()} disabled={busy}>
            {busy ? 'Processing…' : 'Buy Gift Certificate'}
          </Button>
        </p>
      </div>
      <aside className={s.giftSummary} aria-label="Order summary">
        <h2>Order summary</h2>
        <table>
          <tbody>
            {lines.map((l) => (
              <tr key={l.key}>
                <td>{l.description}</td>
                <td>{formatMoney(l.amountInCents ?? 0, currency)}</td>
              </tr>
            ))}
            <tr>
              <td>{inv?.taxVatText || 'Tax'}</td>
              <td>{formatMoney(inv?.taxInCents ?? 0, currency)}</td>
            </tr>
            <tr>
              <td>
                <strong>Total</strong>
              </td>
              <td>
                <strong data-testid="gift-total">{formatMoney(inv?.totalInCents ?? 0, currency)}</strong>
              </td>
            </tr>
          </tbody>
        </table>
        {validation?.status === 'fail' && (validation.errors ?? []).length > 0 && (
          <ul className={s.giftErrors}>
            {validation.errors!.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        )}
      </aside>
    </section>
  );
}
