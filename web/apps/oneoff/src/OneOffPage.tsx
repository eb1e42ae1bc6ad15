import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, ErrorState, HostedCardFields, LoadingState, SelectField, TextField, countryOptions, type HostedCardFieldsHandle } from '@hangar/ui';
import { CURRENCY_CODES, formatMoney, parseCurrency, type CurrencyCode } from '@hangar/money';
import {
  ApiError,
  createApiClient,
  featureOn,
  loadFeatureFlags,
  newIdempotencyKey,
  submitPurchase,
  type Me,
  type OneOffPreview,
  type PresetCart,
} from '@hangar/api-client';
import { QuantityStepper } from './QuantityStepper';
import { FLAG, ZIP_PREVIEW_CHARS, fetchError, taxLabel, validatePayment } from './oneoff';
import s from './oneoff.module.css';

const api = createApiClient();

interface SavedCard {
  token?: string;
  last4?: string;
  type?: string;
}

/** The login modal of a cart opened without a user: it cannot be closed there (spec 001 §4). */
function LoginModal({ onDone }: { onDone: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function login() {
    setBusy(true);
    setError('');
    try {
      const r = await api.http.request<{ status?: string; msg?: string }>('POST', '/pricing/api/login', { body: { username, password } });
      if (r.status === 'ok') onDone();
      else setError(r.msg || 'Failed to login');
    } catch (err) {
      setError(err instanceof ApiError && err.message ? err.message : 'Failed to login');
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className={s.oneoffLoginBackdrop}>
      <div className={s.oneoffLogin} role="dialog" aria-modal="true" aria-labelledby="oneoff-login-title">
        <h2 id="oneoff-login-title">Login Required</h2>
        <p>Log in to complete your order.</p>
        <TextField label="Email Address" type="email" value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" />
        <TextField label="Password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" errors={error ? [error] : []} />
        <Button onClick={() => void login()} disabled={busy}>
          LOGIN
        </Button>
      </div>
    </div>
  );
}

export interface OneOffPageProps {
  cartId: string;
  go?: (url: string) => void;
  reload?: () => void;
}

export function OneOffPage({ cartId, go = (u) => window.location.assign(u), reload = () => window.location.reload() }: OneOffPageProps) {
  const [flagChecked, setFlagChecked] = useState(false);
  const [cart, setCart] = useState<PresetCart>();
  const [loadError, setLoadError] = useState('');
  const [me, setMe] = useState<Me>();
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [currency, setCurrency] = useState<CurrencyCode>('USD');
  const [email, setEmail] = useState('');
  const [cardholderName, setCardholderName] = useState('');
  const [zipcode, setZipcode] = useState('');
  const [country, setCountry] = useState('');
  const [businessId, setBusinessId] = useState('');
  const [promoCodes, setPromoCodes] = useState<string[]>([]);
  const [promoInput, setPromoInput] = useState('');
  const [preview, setPreview] = useState<OneOffPreview>();
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<SavedCard>();
  const [useSaved, setUseSaved] = useState(false);
  const card = useRef<HostedCardFieldsHandle>(null);
  const counter = useRef(0);

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
    api.http
      .request<PresetCart>('GET', `/buy/api/cart/${encodeURIComponent(cartId)}`)
      .then((c) => {
        setCart(c);
        setQuantities(Object.fromEntries((c.requestJson.selectedProducts ?? []).map((p) => [p.code, p.quantity || 1])));
        setCurrency(parseCurrency(c.requestJson.currency));
        if (c.requestJson.discountCode) setPromoCodes([c.requestJson.discountCode]);
      })
      .catch((err: unknown) => setLoadError(fetchError(err instanceof Error ? err.message : String(err))));
    api.http
      .request<Me>('GET', '/buy/api/me')
      .then((m) => {
        setMe(m);
        if (m.loggedIn) {
          setEmail(m.username || m.email || '');
          api.http
            .request<{ paymentMethod?: SavedCard }>('GET', `/buy/api/subscription/payment-method/${encodeURIComponent(m.accountUuid ?? '')}`)
            .then((r) => r.paymentMethod?.token && setSaved(r.paymentMethod))
            .catch(() => undefined);
        }
      })
      .catch(() => setMe({ loggedIn: false }));
  }, [flagChecked, cartId]);

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
    }),
    [cartId, currency, email, zipKey, country, businessId, quantities, promoCodes],
  );

  // The invoice is previewed whenever the zipcode (4+ characters), country, currency, a
  // quantity or the promo codes change (spec 001 §4).
  useEffect(() => {
    if (!cart) return;
    const c = ++counter.current;
    api.http
      .request<OneOffPreview>('POST', '/buy/api/oneoff/preview', { body: { ...configuration(), email: '', counter: c } })
      .then((p) => c === counter.current && setPreview(p))
      .catch((err: unknown) => c === counter.current && setErrors([err instanceof Error ? err.message : String(err)]));
    // The e-mail does not change the price; it is left out so typing it does not re-price.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [cart, currency, zipKey, country, businessId, quantities, promoCodes]);

  async function pay() {
    const problems = validatePayment({ email, cardholderName, zipcode, country }, useSaved);
    setErrors(problems);
    if (problems.length > 0) return;
    setBusy(true);
    try {
      let body: Record<string, unknown>;
      const config = { ...configuration(), billingInfo: { zipcode: zipcode.trim(), country }, cardholderName };
      if (useSaved && saved?.token) {
        body = { configuration: config, useSavedCard: true, paymentMethodToken: saved.token };
      } else {
        const t = await card.current!.tokenize(cardholderName, zipcode);
        if (!t.ok) {
          setErrors([t.message]);
          return;
        }
        body = { configuration: config, nonce: t.nonce };
      }
      const r = await submitPurchase('/buy/api/oneoff/submit', body, newIdempotencyKey());
      if (r.status !== 'ok' || !r.redirectUrl) {
        setErrors(r.errors ?? [r.message ?? 'Your order could not be completed.']);
        return;
      }
      go(r.redirectUrl);
    } catch (err) {
      setErrors([err instanceof ApiError ? err.message : 'Your order could not be completed. Please try again.']);
    } finally {
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
  const previewErrors = preview?.errors ?? [];

  return (
    <section className={s.oneoff} data-remote="oneoff" aria-labelledby="oneoff-title">
      {me && !me.loggedIn && <LoginModal onDone={reload} />}
      <h1 id="oneoff-title">COMPLETE YOUR ORDER</h1>
      <div>
        <TextField label="Email Address" type="email" value={email} disabled={!!me?.loggedIn} onChange={(e) => setEmail(e.target.value)} />
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
        <SelectField label="Currency" value={currency} onChange={(e) => setCurrency(parseCurrency(e.target.value))} options={CURRENCY_CODES.map((c) => ({ value: c, label: c }))} />
        {saved?.token && (
          <fieldset>
            <legend>Card</legend>
            <label>
              <input type="radio" checked={useSaved} onChange={() => setUseSaved(true)} /> Use my saved card {saved.type ?? ''} ending {saved.last4 ?? ''}
            </label>{' '}
            <label>
              <input type="radio" checked={!useSaved} onChange={() => setUseSaved(false)} /> Use a new card
            </label>
          </fieldset>
        )}
        {!useSaved && <TextField label="Name on card" value={cardholderName} onChange={(e) => setCardholderName(e.target.value)} autoComplete="cc-name" />}
        <TextField label="Postal Code" value={zipcode} onChange={(e) => setZipcode(e.target.value)} autoComplete="postal-code" />
        <SelectField label="Country" value={country} onChange={(e) => setCountry(e.target.value)} options={countryOptions()} />
        {preview?.businessIdAllowed && <TextField label="Business ID (VAT number)" value={businessId} onChange={(e) => setBusinessId(e.target.value)} />}
        {!useSaved && <HostedCardFields handle={card} />}
        {errors.length > 0 && (
          <div className={s.oneoffErrors} role="alert">
            Please correct the following:
            <ul>
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
        <p>
          <Button size="large" onClick={() => void pay()} disabled={busy || !me?.loggedIn}>
            {busy ? 'Processing…' : 'Complete Order'}
          </Button>
        </p>
      </div>
      <aside className={s.oneoffSummary} aria-label="Order summary">
        <h2>Order summary</h2>
        <table>
          <tbody>
            {(inv?.invoiceItems ?? []).map((l) => (
              <tr key={l.key}>
                <td>
                  {l.description}
                  {l.quantity ? ` × ${l.quantity}` : ''}
                </td>
                <td>{formatMoney(Number(l.amountInCents ?? 0), currency)}</td>
              </tr>
            ))}
            <tr>
              <td>{inv?.taxVatText || taxLabel(preview?.country ?? country)}</td>
              <td data-testid="oneoff-tax">{formatMoney(Number(inv?.taxInCents ?? 0), currency)}</td>
            </tr>
            <tr>
              <td>
                <strong>Total</strong>
              </td>
              <td>
                <strong data-testid="oneoff-total">{formatMoney(Number(inv?.totalInCents ?? 0), currency)}</strong>
              </td>
            </tr>
          </tbody>
        </table>
        <div>
          <TextField label="Promo code" value={promoInput} onChange={(e) => setPromoInput(e.target.value)} />
          <Button
            variant="secondary"
            onClick={() => {
              const c = promoInput.trim();
              if (c) setPromoCodes((l) => [...l, c]);
              setPromoInput('');
            }}
          >
            Apply
          </Button>
          {promoCodes.map((c) => (
            <div key={c}>
              {c}{' '}
              <Button variant="link" onClick={() => setPromoCodes((l) => l.filter((x) => x !== c))}>
                Remove
              </Button>
            </div>
          ))}
        </div>
        {previewErrors.length > 0 && (
          <ul className={s.oneoffErrors}>
            {previewErrors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        )}
      </aside>
    </section>
  );
}
