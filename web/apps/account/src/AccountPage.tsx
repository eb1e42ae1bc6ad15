// The subscriber's account page at /account (issue 17 item 5, spec 000 §3-§4, spec 001 §4):
// the current subscription with its renewal date and price, the auto-renew toggle, the
// payment-method update and the invoice history. It shows the server's answers only.
import { useReducer, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '@hangar/api-client';
import { formatMoney, parseCurrency } from '@hangar/money';
import { Button, Dialog, ErrorState, HostedCardFields, HumanVerification, LoadingState, LoginForm, SelectField, TextField, countryOptions, cx, formatDate, type HostedCardFieldsHandle, type HumanVerificationHandle } from '@hangar/ui';
import {
  autoRenewReducer,
  describeMethod,
  errorText,
  num,
  paymentReducer,
  receiptHref,
  type AccountApi,
  type InvoiceSummary,
  type RenewalStatus,
  type SubscriptionSimple,
} from './account';
import s from './account.module.css';

export interface AccountPageProps {
  api: AccountApi;
  /** After a login the page reloads (spec 001 §4). */
  reload?: () => void;
}

export function AccountPage({ api, reload = () => window.location.reload() }: AccountPageProps) {
  const me = useQuery({ queryKey: ['me'], queryFn: ({ signal }) => api.me(signal), retry: 1 });
  const [loginOpen, setLoginOpen] = useState(true);
  if (me.isPending) return <LoadingState label="Loading your account…" />;
  if (me.isError) {
    return (
      <Frame>
        <ErrorState message="Your account could not be loaded." detail={errorText(me.error)} onRetry={() => void me.refetch()} />
      </Frame>
    );
  }
  if (!me.data.loggedIn || !me.data.accountUuid) {
    return (
      <Frame>
        <p>Log in to see your subscription, its renewal, your payment method and your invoices.</p>
        <Button onClick={() => setLoginOpen(true)}>Log in</Button>
        <LoginDialog open={loginOpen} onClose={() => setLoginOpen(false)} login={api.login} onLoggedIn={reload} />
      </Frame>
    );
  }
  return (
    <Frame>
      <p className={s.accountWho}>
        Signed in as <strong data-testid="account-user">{me.data.username || me.data.email}</strong>
      </p>
      <Account api={api} accountId={me.data.accountUuid} />
    </Frame>
  );
}

function Frame({ children }: { children: ReactNode }) {
  return (
    <section className={s.account} data-remote="account" aria-labelledby="account-title">
      <h1 id="account-title">Your account</h1>
      {children}
    </section>
  );
}

/** The login modal (spec 001 §4): the shared login form; a good login reloads the page. */
function LoginDialog({ open, onClose, login, onLoggedIn }: { open: boolean; onClose: () => void; login: AccountApi['login']; onLoggedIn: () => void }) {
  return (
    <Dialog open={open} title="Login Required" onClose={onClose} testId="login-modal">
      <LoginForm
        onLogin={async (username, password, human) => {
          const msg = await login(username, password, human);
          if (msg === undefined) onLoggedIn();
          return msg;
        }}
      />
    </Dialog>
  );
}

// The payment method's and the invoices' queries, the same options wherever they are read
// (one cache entry each: Account asks for them, the cards read them).
const usePaymentMethodQuery = (api: AccountApi, accountId: string) =>
  useQuery({ queryKey: ['payment-method', accountId], queryFn: ({ signal }) => api.paymentMethod(accountId, signal), retry: 1 });
const useInvoicesQuery = (api: AccountApi) => useQuery<InvoiceSummary[], ApiError>({ queryKey: ['invoices'], queryFn: ({ signal }) => api.invoices(signal), retry: 1 });

function Account({ api, accountId }: { api: AccountApi; accountId: string }) {
  const renewal = useQuery<RenewalStatus, ApiError>({ queryKey: ['renewal'], queryFn: ({ signal }) => api.renewal(signal), retry: false });
  const sub = useQuery<SubscriptionSimple, ApiError>({ queryKey: ['subscription'], queryFn: ({ signal }) => api.subscription(signal), retry: 1 });
  // All four answers are asked for at once and the cards shown together once they are in:
  // shown one by one, each card that filled in pushed the ones below it down the screen
  // (the invoices by 300 px on a phone: a layout shift of 0.1, Lighthouse's CLS, issue 45),
  // and the payment method was asked for only after the renewal had answered.
  const pm = usePaymentMethodQuery(api, accountId);
  const invoices = useInvoicesQuery(api);
  if (renewal.isPending || sub.isPending || pm.isPending || invoices.isPending) return <LoadingState label="Loading your account…" />;
  return (
    <>
      <section className={s.accountCard} aria-labelledby="account-sub-title" data-testid="subscription">
        <h2 id="account-sub-title">Subscription</h2>
        {renewal.isPending ? (
          <LoadingState label="Loading your subscription…" />
        ) : renewal.isError ? (
          renewal.error.status === 404 ? (
            <p>{renewal.error.message}</p>
          ) : (
            <ErrorState message="Your subscription could not be loaded." detail={errorText(renewal.error)} onRetry={() => void renewal.refetch()} />
          )
        ) : (
          <>
            <SubscriptionSummary renewal={renewal.data} sub={sub.data} />
            <AutoRenew api={api} renewal={renewal.data} productCode={sub.data?.subscription?.planCode ?? ''} />
          </>
        )}
      </section>
      {renewal.isSuccess ? <PaymentMethod api={api} accountId={accountId} sub={sub.data} /> : null}
      <Invoices api={api} />
    </>
  );
}

function money(cents: unknown, currency: string | undefined): string {
  return formatMoney(num(cents), parseCurrency(currency));
}

function SubscriptionSummary({ renewal, sub }: { renewal: RenewalStatus; sub: SubscriptionSimple | undefined }) {
  const s0 = sub?.subscription;
  return (
    <>
      <dl className={s.accountFacts}>
        {s0?.name ? (
          <>
            <dt>Plan</dt>
            <dd data-testid="plan-name">{s0.name}</dd>
          </>
        ) : null}
        <dt>{renewal.state === 'lapsed' ? 'Ended on' : renewal.state === 'ending' ? 'Ends on' : 'Renews on'}</dt>
        <dd data-testid="renewal-date">{formatDate(renewal.renewalDate)}</dd>
        {renewal.state !== 'lapsed' && renewal.state !== 'not-charged' ? (
          <>
            <dt>Renewal price</dt>
            <dd data-testid="renewal-price">{money(renewal.renewalAmountInCents, renewal.currency)}</dd>
          </>
        ) : null}
        {renewal.state === 'retrying' && renewal.nextAttemptDate ? (
          <>
            <dt>Next payment attempt</dt>
            <dd>{formatDate(renewal.nextAttemptDate)}</dd>
          </>
        ) : null}
      </dl>
      {renewal.message ? (
        <p className={cx(s.accountMessage, renewal.state === 'retrying' || renewal.state === 'lapsed' ? s.accountMessageWarn : undefined)} data-testid="renewal-message">
          {renewal.message}
        </p>
      ) : null}
      {renewal.cardExpiresBeforeRenewal ? <p className={s.accountMessageWarn}>The card on file expires before the renewal. Please update your payment method.</p> : null}
    </>
  );
}

const STATE_TEXT = {
  updating: (to: boolean) => (to ? 'Turning automatic renewal on…' : 'Turning automatic renewal off…'),
  submitting: () => 'Saving…',
};

/** The auto-renew toggle: one click, through updating and submitting to the server's answer. */
function AutoRenew({ api, renewal, productCode }: { api: AccountApi; renewal: RenewalStatus; productCode: string }) {
  const client = useQueryClient();
  const [state, dispatch] = useReducer(autoRenewReducer, { kind: 'idle' });
  const on = state.kind === 'succeeded' ? state.on : renewal.autoRenew === true;
  // One click: updating (the change is asked for), submitting (the form post leaves), then
  // the server's answer. The reducer ignores clicks while a change is under way.
  async function toggle(to: boolean) {
    dispatch({ type: 'toggle', to });
    dispatch({ type: 'submit' });
    try {
      const r = await api.setAutoRenew(productCode, to);
      dispatch({ type: 'answer', status: r.status, autoRenew: r.autoRenew, errors: r.errors });
      void client.invalidateQueries({ queryKey: ['renewal'] });
      void client.invalidateQueries({ queryKey: ['subscription'] });
    } catch (err) {
      dispatch({ type: 'error', message: errorText(err) });
    }
  }
  if (renewal.state === 'lapsed' || renewal.state === 'not-charged') return null;
  const busy = state.kind === 'updating' || state.kind === 'submitting';
  return (
    <div className={s.accountToggleRow} data-testid="auto-renew" data-state={state.kind}>
      <button
        type="button"
        role="switch"
        aria-checked={on}
        className={cx(s.accountSwitch, on ? s.accountSwitchOn : undefined)}
        disabled={busy}
        onClick={() => void toggle(!on)}
      >
        <span className={s.accountSwitchKnob} aria-hidden="true" />
        <span>Automatic renewal</span>
      </button>
      <p role="status" className={s.accountToggleState} data-testid="auto-renew-state">
        {state.kind === 'updating' ? STATE_TEXT.updating(state.to) : null}
        {state.kind === 'submitting' ? STATE_TEXT.submitting() : null}
        {state.kind === 'succeeded'
          ? state.on
            ? 'Automatic renewal is on.'
            : 'Automatic renewal is off. We sent you a confirmation e-mail.'
          : null}
      </p>
      {state.kind === 'failed' ? (
        <div role="alert" className={s.accountErrors} data-testid="auto-renew-errors">
          {state.errors.map((e) => (
            <p key={e}>{e}</p>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** The payment method on file and its update (hosted card fields, payments' route). */
function PaymentMethod({ api, accountId, sub }: { api: AccountApi; accountId: string; sub: SubscriptionSimple | undefined }) {
  const client = useQueryClient();
  const pm = usePaymentMethodQuery(api, accountId);
  const [state, dispatch] = useReducer(paymentReducer, { kind: 'hidden' });
  const [name, setName] = useState('');
  const [zip, setZip] = useState('');
  const [country, setCountry] = useState('');
  const card = useRef<HostedCardFieldsHandle>(null);
  const human = useRef<HumanVerificationHandle>(null);
  const current = describeMethod(pm.data?.paymentMethod ?? sub?.paymentInfo);
  const locked = pm.data?.canUpdate === false;

  async function save(e: FormEvent) {
    e.preventDefault();
    const missing = [
      !name.trim() && 'Cardholder name cannot be blank',
      !zip.trim() && 'ZIP / Postal code cannot be blank',
      !country && 'Country cannot be blank',
      ...(human.current?.problems() ?? []),
    ].filter((x): x is string => Boolean(x));
    if (missing.length > 0) {
      dispatch({ type: 'invalid', errors: missing });
      return;
    }
    dispatch({ type: 'submit' });
    const t = await card.current?.tokenize(name, zip);
    if (!t || !t.ok) {
      dispatch({ type: 'error', message: t?.message ?? 'The payment service did not answer.' });
      return;
    }
    try {
      const r = await api.updatePaymentMethod({ accountId, nonce: t.nonce, zipcode: zip, cardholderName: name, country, recaptchaValue: human.current?.value() ?? '' });
      // A value is good for one verification: a refused update needs a new tick.
      if (r.status !== 'succeeded') human.current?.reset();
      dispatch({ type: 'answer', status: r.status, errors: r.errors, summary: describeMethod(r.paymentMethod) });
      void client.invalidateQueries({ queryKey: ['payment-method', accountId] });
      void client.invalidateQueries({ queryKey: ['renewal'] });
    } catch (err) {
      dispatch({ type: 'error', message: errorText(err) });
    }
  }

  const formShown = state.kind === 'form' || state.kind === 'updating' || state.kind === 'failed';
  return (
    <section className={s.accountCard} aria-labelledby="account-pm-title" data-testid="payment-method" data-state={state.kind}>
      <h2 id="account-pm-title">Payment method</h2>
      {pm.isPending ? <LoadingState label="Loading your payment method…" /> : null}
      {pm.isError ? <p className={s.accountMessageWarn}>{errorText(pm.error)}</p> : null}
      {pm.isSuccess ? <p data-testid="payment-method-current">{current || 'No payment method is on file.'}</p> : null}
      {locked ? (
        <p className={s.accountMessage} data-testid="contact-sales">
          {(pm.data?.errors ?? []).join(' ') || 'Please contact sales to change how you pay.'}
        </p>
      ) : null}
      {pm.isSuccess && !locked && !formShown ? (
        <Button variant="secondary" onClick={() => dispatch({ type: 'show' })}>
          Update payment method
        </Button>
      ) : null}
      {state.kind === 'succeeded' ? (
        <p role="status" className={s.accountOk} data-testid="payment-method-state">
          Your payment method was updated{state.summary ? `: ${state.summary}` : ''}.
        </p>
      ) : null}
      {formShown && !locked ? (
        <form className={s.accountForm} onSubmit={(e) => void save(e)} aria-label="Update payment method">
          <TextField label="Cardholder name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="cc-name" />
          <TextField label="ZIP / Postal code" value={zip} onChange={(e) => setZip(e.target.value)} autoComplete="postal-code" />
          <SelectField label="Country" value={country} onChange={(e) => setCountry(e.target.value)} options={countryOptions()} />
          <HostedCardFields handle={card} />
          <HumanVerification handle={human} />
          {state.kind === 'updating' ? (
            <p role="status" data-testid="payment-method-state">
              Updating your payment method…
            </p>
          ) : null}
          {(state.kind === 'form' && state.errors.length > 0) || state.kind === 'failed' ? (
            <div role="alert" className={s.accountErrors} data-testid="payment-method-errors">
              {(state.kind === 'failed' ? state.errors : state.kind === 'form' ? state.errors : []).map((e) => (
                <p key={e}>{e}</p>
              ))}
            </div>
          ) : null}
          <div className={s.accountActions}>
            <Button type="submit" disabled={state.kind === 'updating'}>
              Save payment method
            </Button>
            <Button variant="link" disabled={state.kind === 'updating'} onClick={() => dispatch({ type: 'hide' })}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

const KIND_LABEL: Record<string, string> = { subscription: 'Subscription', gift: 'Gift certificate', oneoff: 'One-off purchase' };

function Invoices({ api }: { api: AccountApi }) {
  const list = useInvoicesQuery(api);
  return (
    <section className={s.accountCard} aria-labelledby="account-inv-title" data-testid="invoices">
      <h2 id="account-inv-title">Invoices</h2>
      {list.isPending ? <LoadingState label="Loading your invoices…" /> : null}
      {list.isError ? <ErrorState message="Your invoices could not be loaded." detail={errorText(list.error)} onRetry={() => void list.refetch()} /> : null}
      {list.isSuccess && list.data.length === 0 ? <p>No invoices yet.</p> : null}
      {list.isSuccess && list.data.length > 0 ? (
        <table className={s.accountTable}>
          <caption className={s.accountCaption}>Your invoices, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Invoice</th>
              <th scope="col">Total</th>
              <th scope="col">Documents</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((i) => {
              const id = i.invoiceId ?? '';
              const number = i.invoiceNumber || id;
              return (
                <tr key={id} data-testid="invoice-row">
                  <td>{formatDate(i.created)}</td>
                  <td>
                    <span className={s.accountNumber}>{number}</span>
                    <span className={s.accountKind}>
                      {i.renewal ? 'Renewal' : (KIND_LABEL[i.kind ?? ''] ?? i.kind)}
                      {i.status === 'refunded' ? ' · refunded' : ''}
                    </span>
                  </td>
                  <td>{money(i.totalInCents, i.currency)}</td>
                  <td>
                    <a href={receiptHref(id)} aria-label={`Receipt of invoice ${number}`}>
                      Receipt
                    </a>
                    {i.canPrintInvoice ? (
                      <>
                        {' '}
                        <a href={receiptHref(id, 'invoice')} aria-label={`Print invoice ${number}`}>
                          Print invoice
                        </a>
                      </>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
