import { useEffect, useState } from 'react';
import { Button, CheckboxField, ErrorState, LoadingState, LoginForm, SelectField, TextField } from '@hangar/ui';
import { CURRENCY_CODES, formatMoney, parseCurrency, type CurrencyCode } from '@hangar/money';
import { ApiError, createApiClient, priceIn, unwrap, visibleEntries, type Catalog, type Me, type PresetCart } from '@hangar/api-client';
import { login } from './LoginModal';
import { clampQuantity, typedQuantity } from './oneoff';
import s from './oneoff.module.css';

const api = createApiClient();
export const ONE_OFF_GROUP = 'ONE_OFF_PRODUCTS';

/** Cart creation failure: the server message or 'failed to create cart', with the status (spec 001 §8). */
export function createError(err: unknown): string {
  if (err instanceof ApiError) return `${err.message && !err.message.startsWith('request failed') ? err.message : 'failed to create cart'} (${err.status})`;
  return 'failed to create cart';
}

/** Staff page: choose one-off products and quantities, create a preset cart, copy its link. */
export function CartCreator({
  origin = typeof window === 'undefined' ? '' : window.location.origin,
  reload = () => window.location.reload(),
}: {
  origin?: string;
  reload?: () => void;
}) {
  const [me, setMe] = useState<Me>();
  const [catalog, setCatalog] = useState<Catalog>();
  const [loadError, setLoadError] = useState('');
  // '' is no currency chosen: the cart then follows the buyer's location on the page; a
  // currency chosen here, USD too, wins there.
  const [currency, setCurrency] = useState<CurrencyCode | ''>('');
  const [quantities, setQuantities] = useState<Record<string, string>>({});
  const [applyTax, setApplyTax] = useState(true);
  const [discountCode, setDiscountCode] = useState('');
  const [created, setCreated] = useState<PresetCart>();
  const [error, setError] = useState('');
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    unwrap(api.identity.GET('/buy/api/me')).then(setMe, () => setMe({ loggedIn: false }));
    api.catalog.availablePlans().then(setCatalog, (e: unknown) => setLoadError(e instanceof Error ? e.message : String(e)));
  }, []);

  const heading = <h1 id="cart-create-title">CREATE A ONE-OFF CART</h1>;
  if (!me || (!catalog && !loadError)) {
    return (
      <section className={s.cartCreate} data-remote="oneoff" aria-labelledby="cart-create-title">
        {heading}
        <LoadingState label="Loading the cart builder…" />
      </section>
    );
  }
  if (!me.loggedIn || !(me.isEmployee || me.isCreditCardAdmin)) {
    // A visitor gets the page's heading and the store's login form (issue 45), not a bare refusal.
    return (
      <section className={s.cartCreate} data-remote="oneoff" aria-labelledby="cart-create-title">
        {heading}
        <ErrorState message="Only staff (employees and credit-card admins) can create carts. Please log in with a staff account." />
        {me.loggedIn ? null : (
          <>
            <h2>Log in</h2>
            <LoginForm
              onLogin={async (username, password, human) => {
                const msg = await login(api, username, password, human);
                if (msg === undefined) reload();
                return msg;
              }}
            />
          </>
        )}
      </section>
    );
  }
  if (loadError || !catalog) return <ErrorState message={`There was a problem connecting. ${loadError}`} />;
  const shown: CurrencyCode = currency || 'USD';
  const products = visibleEntries(catalog, ONE_OFF_GROUP, shown);

  async function create() {
    setBusy(true);
    setError('');
    setCreated(undefined);
    setCopied(false);
    const selectedProducts = Object.entries(quantities)
      .filter(([, q]) => q !== '' && Number(q) > 0)
      .map(([code, q]) => ({ code, quantity: clampQuantity(q) }));
    try {
      const c = await unwrap(
        api.checkout.POST('/buy/api/cart-create', { body: { requestJson: { selectedProducts, applyTax, currency, discountCode }, commerceCartType: 'ONE_OFF' } }),
      );
      setCreated(c as PresetCart);
    } catch (err) {
      setError(createError(err));
    } finally {
      setBusy(false);
    }
  }

  const link = created ? `${origin}${created.cartUrl ?? `/product/cart/${created.uuid}`}` : '';
  return (
    <section className={s.cartCreate} data-remote="oneoff" aria-labelledby="cart-create-title">
      {heading}
      <p>Choose products and quantities; the link opens a cart the customer can pay.</p>
      <SelectField
        label="Currency"
        value={currency}
        onChange={(e) => setCurrency(e.target.value ? parseCurrency(e.target.value) : '')}
        options={[{ value: '', label: "The buyer's (by location)" }, ...CURRENCY_CODES.map((c) => ({ value: c, label: c }))]}
      />
      {products.map((p) => {
        const price = priceIn(p, shown);
        return (
          <div className={s.cartCreateRow} key={p.addOnCode}>
            <span>
              {p.title} {price ? `(${formatMoney(price.amountInCents, shown)})` : ''}
            </span>
            <TextField
              label={`Quantity of ${p.title}`}
              type="text"
              inputMode="numeric"
              value={quantities[p.addOnCode] ?? ''}
              placeholder="0"
              onChange={(e) => setQuantities((m) => ({ ...m, [p.addOnCode]: typedQuantity(e.target.value) }))}
            />
          </div>
        );
      })}
      <CheckboxField label="Apply tax" checked={applyTax} onChange={(e) => setApplyTax(e.target.checked)} />
      <TextField label="Discount code (optional)" value={discountCode} onChange={(e) => setDiscountCode(e.target.value)} />
      <p>
        <Button onClick={() => void create()} disabled={busy}>
          Create Cart
        </Button>
      </p>
      {error && (
        <p role="alert" className={s.oneoffErrors}>
          {error}
        </p>
      )}
      {created && (
        <div className={s.cartCreateLink} data-testid="cart-link">
          <a href={link}>{link}</a>
          <Button
            variant="secondary"
            size="small"
            onClick={() => {
              void navigator.clipboard?.writeText(link).then(() => setCopied(true), () => setCopied(false));
            }}
          >
            {copied ? 'Copied' : 'Copy link'}
          </Button>
        </div>
      )}
    </section>
  );
}
