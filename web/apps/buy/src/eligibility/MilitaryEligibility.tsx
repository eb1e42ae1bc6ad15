import { useId, useState, type FormEvent } from 'react';
import { ApiError, unwrap } from '@hangar/api-client';
import { apiClient } from '../api';
import s from './eligibility.module.css';
import buy from '../buy.module.css';


/** Spec 001 §5, §8. */
export const EMAIL_INVALID = 'Email address is invalid, please try again.';
export const REQUEST_ERROR = 'There was an error with your verification request, please try again.';
export const CODE_ERROR = 'There was an error with your verification request, please try again.';
export const NOT_ELIGIBLE =
  'This e-mail address is not eligible for military plans. Please use a qualified military e-mail address, or contact support if you believe it should qualify.';

/** The standard e-mail pattern of the military form. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type MilitarySubscription = 'military' | 'military_intl';

interface MilitaryUser {
  user?: { eligible?: boolean; invoiceUrl?: string };
}
interface MilitaryResult {
  result?: { invoiceUrl?: string };
}

export interface MilitaryEligibilityProps {
  subscription: MilitarySubscription;
  /** Where the verified customer goes; injectable for tests. */
  redirect?: (url: string) => void;
}

/**
 * The military eligibility flow (spec 001 §4): the e-mail form asks identity whether the
 * address qualifies and, when it does, a 6-digit code is e-mailed; the code form then
 * answers the invoice URL of the military buy page, where the customer is sent.
 */
export function MilitaryEligibility({ subscription, redirect = (url) => window.location.assign(url) }: MilitaryEligibilityProps) {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<'email' | 'code' | 'not-eligible'>('email');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const emailId = useId();
  const codeId = useId();
  const errId = useId();
  const intl = subscription === 'military_intl';

  const requestCode = async (e: FormEvent) => {
    e.preventDefault();
    const addr = email.trim();
    if (!EMAIL_PATTERN.test(addr)) {
      setError(EMAIL_INVALID);
      return;
    }
    setError('');
    setBusy(true);
    try {
      const r = (await unwrap(apiClient().identity.POST('/buy/eligibility/military', { body: { email: addr, subscription } }))) as MilitaryUser;
      if (!r.user?.eligible) setStep('not-eligible');
      else if (r.user.invoiceUrl) redirect(r.user.invoiceUrl);
      else setStep('code');
    } catch (err) {
      setError(err instanceof ApiError && err.status === 400 && err.message ? err.message : REQUEST_ERROR);
    } finally {
      setBusy(false);
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      const r = (await unwrap(apiClient().identity.POST('/buy/eligibility/military/code', { body: { email: email.trim(), code: code.trim() } }))) as MilitaryResult;
      if (!r.result?.invoiceUrl) throw new Error('no invoice URL');
      redirect(r.result.invoiceUrl);
    } catch {
      setError(CODE_ERROR);
      setBusy(false);
    }
  };

  return (
    <section className={`${buy.buy} ${s.el}`} data-remote="buy" aria-labelledby="el-title">
      <h1 id="el-title">{intl ? 'International Military Plans' : 'Military Plans'}</h1>
      <p>
        Military flight-bag plans are for {intl ? 'allied international military' : 'military'} personnel. Verify a military e-mail address to see
        them: we send a 6-digit code to it.
      </p>
      {step === 'code' ? (
        <form className={s.elForm} onSubmit={verify} noValidate aria-describedby={error ? errId : undefined}>
          <p role="status">
            We sent a verification code to <strong>{email.trim()}</strong>. It is valid for 15 minutes.
          </p>
          <label htmlFor={codeId}>Verification code</label>
          <input
            id={codeId}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            aria-invalid={error ? true : undefined}
          />
          <button type="submit" className={s.elButton} disabled={busy || code.length !== 6}>
            Verify code
          </button>
          <button
            type="button"
            className={s.elLink}
            onClick={() => {
              setStep('email');
              setCode('');
              setError('');
            }}
          >
            Use another e-mail address
          </button>
        </form>
      ) : (
        <form className={s.elForm} onSubmit={requestCode} noValidate aria-describedby={error ? errId : undefined}>
          <label htmlFor={emailId}>Military e-mail address</label>
          <input
            id={emailId}
            name="email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              if (step === 'not-eligible') setStep('email');
            }}
            aria-invalid={error ? true : undefined}
          />
          <button type="submit" className={s.elButton} disabled={busy}>
            Send verification code
          </button>
          {step === 'not-eligible' ? (
            <p className={s.elWarning} role="alert" data-testid="not-eligible">
              {NOT_ELIGIBLE}
            </p>
          ) : null}
        </form>
      )}
      {error ? (
        <p id={errId} className={s.elError} role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
