import { useEffect, useId, useState } from 'react';
import {
  currentUser,
  disableSalesMode,
  enableSalesMode,
  formatRemaining,
  onSalesModeChange,
  readSalesMode,
  remainingMs,
  type CurrentUser,
  type SalesModeSetting,
} from '@hangar/storefront';
import { unwrap } from '@hangar/api-client';
import { apiClient } from '../api';
import s from './salesmode.module.css';
import buy from '../buy.module.css';


export const NOT_ADMIN = 'Only staff with the credit-card-admin right can enable sales mode. Log in with such an account to continue.';
export const READERS_ERROR = 'The card readers could not be loaded.';

type Load<T> = { status: 'loading' } | { status: 'ok'; data: T } | { status: 'error'; message: string };

function useLoad<T>(fn: (signal: AbortSignal) => Promise<T>, attempt: number): Load<T> {
  const [state, setState] = useState<Load<T>>({ status: 'loading' });
  useEffect(() => {
    const ctl = new AbortController();
    setState({ status: 'loading' });
    fn(ctl.signal).then(
      (data) => setState({ status: 'ok', data }),
      (err: Error) => {
        if (!ctl.signal.aborted) setState({ status: 'error', message: err.message });
      },
    );
    return () => ctl.abort();
    // fn is a module-level caller (stable); attempt re-runs it.
  }, [attempt]);
  return state;
}

const loadUser = (signal: AbortSignal) => currentUser(signal).catch((): CurrentUser => ({ loggedIn: false }));
// The reader list is for credit-card admins only (others get 401/403): ask for it only then.
const loadReaders = (signal: AbortSignal): Promise<string[]> =>
  currentUser(signal).then((u) =>
    u.isCreditCardAdmin === true
      ? unwrap(apiClient().payments.GET('/buy/api/card-reader/list', { signal })).then((r) => r.serialNumbers ?? [])
      : [],
  );

/**
 * /buy/sales-mode (spec 001 §2, §4): the reader choice, Enable (needs the credit-card-admin
 * right and a chosen reader; 24 hours), the remaining-time clock polled every second, and
 * Disable. The setting is this device's (local storage), so the banner on every page of
 * this browser follows it.
 */
export function SalesModePage() {
  const [attempt, setAttempt] = useState(0);
  const user = useLoad(loadUser, attempt);
  const readers = useLoad(loadReaders, attempt);
  const [setting, setSetting] = useState<SalesModeSetting | null>(() => readSalesMode());
  const [reader, setReader] = useState('');
  const [now, setNow] = useState(() => Date.now());
  const selectId = useId();

  useEffect(() => onSalesModeChange(() => setSetting(readSalesMode())), []);
  useEffect(() => {
    if (!setting) return;
    const id = setInterval(() => {
      const t = Date.now();
      setNow(t);
      if (t >= setting.endTime) setSetting(readSalesMode(t));
    }, 1000);
    return () => clearInterval(id);
  }, [setting]);

  const isAdmin = user.status === 'ok' && user.data.isCreditCardAdmin === true;
  const serials = readers.status === 'ok' ? readers.data : [];

  return (
    <section className={`${buy.buy} ${s.sm}`} data-remote="buy" aria-labelledby="sm-title">
      <h1 id="sm-title">Sales mode</h1>
      <p>
        Sales mode lets staff take a customer's card on a card reader at the point of sale. It stays on in this browser for 24 hours, or until you
        disable it.
      </p>
      {setting ? (
        <div data-testid="sales-mode-active">
          <p>
            Sales mode is on with card reader <strong>{setting.readerSerialNumber}</strong>.
          </p>
          <p className={s.smClock}>
            Time left:{' '}
            <span role="timer" aria-live="off" data-testid="sales-mode-clock">
              {formatRemaining(remainingMs(setting, now))}
            </span>
          </p>
          <button
            type="button"
            className={`${s.smButton} ${s.smButtonSecondary}`}
            onClick={() => {
              disableSalesMode();
              setSetting(null);
            }}
          >
            Disable
          </button>
        </div>
      ) : (
        <form
          className={s.smForm}
          onSubmit={(e) => {
            e.preventDefault();
            if (!isAdmin || !reader) return;
            const t = Date.now();
            setNow(t);
            setSetting(enableSalesMode(reader, t));
          }}
        >
          <label htmlFor={selectId}>Card reader</label>
          <select id={selectId} value={reader} onChange={(e) => setReader(e.target.value)} disabled={readers.status !== 'ok' || serials.length === 0}>
            <option value="">{readers.status === 'loading' ? 'Loading readers…' : serials.length ? 'Choose a card reader' : 'No card readers available'}</option>
            {serials.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          {readers.status === 'error' ? (
            <p className={s.smError} role="alert">
              {READERS_ERROR} {readers.message}{' '}
              <button type="button" className={s.smLink} onClick={() => setAttempt((n) => n + 1)}>
                Try again
              </button>
            </p>
          ) : null}
          <button type="submit" className={s.smButton} disabled={!isAdmin || !reader}>
            Enable
          </button>
          {user.status === 'ok' && !isAdmin ? <p className={s.smNote}>{NOT_ADMIN}</p> : null}
        </form>
      )}
    </section>
  );
}
