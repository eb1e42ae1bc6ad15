import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError, unwrap } from '@hangar/api-client';
import { apiClient } from '../api';
import s from './eligibility.module.css';
import buy from '../buy.module.css';


/** Spec 001 §5, §8, §9. */
export const PASSWORDS_DIFFER = 'Passwords do not match';
export const VALIDATION_FAILED = 'Validation failed';
export const CREATE_ERROR = 'There was an error while creating a new account';
export const SUCCESS_TIMEOUT_MS = 10_000;

interface Answer {
  isVerified?: boolean;
  errorMessage?: string;
}

export interface AssociationFormProps {
  /** Where a verified member goes; injectable for tests. */
  redirect?: (url: string) => void;
}

/**
 * The aircraft-owner-association member check (spec 001 §2, §4, §5): member number and
 * last name, consent required, optionally creating an account with a password. On success
 * an alert shows for 10 seconds, then the buy page opens with the e-mail.
 */
export function AssociationForm({ redirect = (url) => window.location.assign(url) }: AssociationFormProps) {
  const [f, setF] = useState({ email: '', password: '', verifyPassword: '', memberNumber: '', lastName: '', consent: false, createUser: false });
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);
  const [verified, setVerified] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const id = useId();
  useEffect(() => () => clearTimeout(timer.current), []);

  const buyUrl = () => `/buy?email=${encodeURIComponent(f.email.trim())}`;
  const set = (k: keyof typeof f) => (e: { target: HTMLInputElement }) =>
    setF((old) => ({ ...old, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!f.consent) return;
    if (f.createUser && f.password !== f.verifyPassword) {
      setError(PASSWORDS_DIFFER);
      return;
    }
    setError('');
    setLoading(true);
    try {
      const r = (await unwrap(apiClient().identity.POST('/buy/eligibility/iaopa', { body: { ...f, email: f.email.trim() } }))) as Answer;
      if (!r.isVerified) {
        setError(r.errorMessage ? `${VALIDATION_FAILED}: ${r.errorMessage}` : VALIDATION_FAILED);
        return;
      }
      setVerified(true);
      timer.current = setTimeout(() => redirect(buyUrl()), SUCCESS_TIMEOUT_MS);
    } catch (err) {
      const fields = err instanceof ApiError ? err.fieldErrors.map((x) => x.message).filter(Boolean) : [];
      if (fields.length) setError(`${VALIDATION_FAILED}: ${fields.join(' ')}`);
      else if (f.createUser && err instanceof ApiError && err.status === 409) setError(err.message || CREATE_ERROR);
      else setError(err instanceof ApiError && err.status > 0 && err.status < 500 ? `${VALIDATION_FAILED}: ${err.message}` : VALIDATION_FAILED);
    } finally {
      setLoading(false);
    }
  };

  return (
    <section className={`${buy.buy} ${s.el}`} data-remote="buy" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Aircraft owners association members</h1>
      <p>Members get association pricing. Verify your membership with your member number and last name.</p>
      {verified ? (
        <p className={s.elSuccess} role="status" data-testid="association-success">
          Your membership is verified. Taking you to the buy page… <a href={buyUrl()}>Continue now</a>
        </p>
      ) : (
        <form className={s.elForm} onSubmit={submit} noValidate>
          <label htmlFor={`${id}-email`}>Email Address</label>
          <input id={`${id}-email`} type="email" autoComplete="email" value={f.email} onChange={set('email')} />
          <label htmlFor={`${id}-member`}>Member number</label>
          <input id={`${id}-member`} type="text" inputMode="numeric" value={f.memberNumber} onChange={set('memberNumber')} />
          <label htmlFor={`${id}-last`}>Last name</label>
          <input id={`${id}-last`} type="text" autoComplete="family-name" value={f.lastName} onChange={set('lastName')} />
          <label className={s.elCheck}>
            <input type="checkbox" checked={f.createUser} onChange={set('createUser')} /> Create an account with this e-mail address
          </label>
          {f.createUser ? (
            <>
              <label htmlFor={`${id}-pw`}>Password</label>
              <input id={`${id}-pw`} type="password" autoComplete="new-password" value={f.password} onChange={set('password')} />
              <label htmlFor={`${id}-pw2`}>Verify password</label>
              <input id={`${id}-pw2`} type="password" autoComplete="new-password" value={f.verifyPassword} onChange={set('verifyPassword')} />
            </>
          ) : null}
          <label className={s.elCheck}>
            <input type="checkbox" checked={f.consent} onChange={set('consent')} /> I agree that my membership is checked with the association.
          </label>
          <button type="submit" className={s.elButton} disabled={!f.consent || loading}>
            {loading ? 'Verifying…' : 'Verify membership'}
          </button>
          {error ? (
            <p className={s.elError} role="alert">
              {error}
            </p>
          ) : null}
        </form>
      )}
    </section>
  );
}
