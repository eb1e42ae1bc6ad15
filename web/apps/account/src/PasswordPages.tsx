// The password pages of issue 28: /account/set-password opens from the welcome e-mail of
// an account created at checkout and from a "forgot password" e-mail (the link's token is
// in the URL fragment, which never reaches a server or a Referer); /account/forgot-password
// asks for such an e-mail. The policy is stated on the page, as the server applies it.
import { useEffect, useState } from 'react';
import { Button, TextField } from '@hangar/ui';
import { type AccountApi } from './account';
import { MIN_PASSWORD_LENGTH, NewPasswordFields, newPasswordErrors, submitErrors } from './NewPassword';
import s from './account.module.css';

/** The token and purpose of a set-password link, from the URL fragment (#token=…&welcome=1). */
export function linkFromHash(hash: string): { token: string; welcome: boolean } {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  return { token: p.get('token') ?? '', welcome: p.get('welcome') === '1' };
}

export function SetPasswordPage({ api, hash = typeof window === 'undefined' ? '' : window.location.hash }: { api: AccountApi; hash?: string }) {
  // Read once, then dropped from the address bar (and the history): the token is a credential.
  const [link] = useState(() => linkFromHash(hash));
  useEffect(() => {
    if (link.token && typeof window !== 'undefined' && window.location.hash) {
      window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    }
  }, [link.token]);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string>();
  const title = link.welcome ? 'Choose your password' : 'Choose a new password';

  if (done) {
    return (
      <section className={s.account} aria-labelledby="password-title">
        <h1 id="password-title">Your password is set</h1>
        <p className={s.accountOk} role="status">
          You are logged in as <strong data-testid="password-user">{done}</strong>.
        </p>
        <p>
          <a href="/account">Go to your account</a> or <a href="/buy">renew or buy a plan</a>.
        </p>
      </section>
    );
  }
  if (!link.token) {
    return (
      <section className={s.account} aria-labelledby="password-title">
        <h1 id="password-title">{title}</h1>
        <p>This page opens from the link in your e-mail, and this link is incomplete.</p>
        <p>
          <a href="/account/forgot-password">Ask for a new link</a>
        </p>
      </section>
    );
  }
  const tokenErrors = errors.token ?? [];
  return (
    <section className={s.account} aria-labelledby="password-title">
      <h1 id="password-title">{title}</h1>
      <form
        className={s.accountCard}
        noValidate
        aria-labelledby="password-title"
        onSubmit={async (e) => {
          e.preventDefault();
          const local = newPasswordErrors(password, confirm);
          setErrors(local);
          if (Object.keys(local).length > 0) return;
          setBusy(true);
          try {
            const r = await api.setPassword(link.token, password, confirm);
            setDone(r.user?.username ?? '');
          } catch (err) {
            setErrors(submitErrors(err));
            setBusy(false);
          }
        }}
      >
        <p id="password-policy" data-testid="password-policy">
          Use at least {MIN_PASSWORD_LENGTH} characters; a few words make a good password. Any characters may be used, and no mix of
          letters, digits or symbols is required. Passwords that are too common or have appeared in a data breach are refused.
        </p>
        {tokenErrors.length > 0 || errors.form ? (
          <div className={s.accountErrors} role="alert">
            {[...tokenErrors, ...(errors.form ?? [])].map((m) => (
              <p key={m}>{m}</p>
            ))}
            {tokenErrors.length > 0 ? (
              <p>
                <a href="/account/forgot-password">Ask for a new link</a>
              </p>
            ) : null}
          </div>
        ) : null}
        <div className={s.accountForm}>
          <NewPasswordFields password={password} confirm={confirm} errors={errors} onPassword={setPassword} onConfirm={setConfirm} />
        </div>
        <div className={s.accountActions}>
          <Button type="submit" disabled={busy}>
            Set password
          </Button>
        </div>
      </form>
    </section>
  );
}

export function ForgotPasswordPage({ api }: { api: AccountApi }) {
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string>();
  return (
    <section className={s.account} aria-labelledby="forgot-title">
      <h1 id="forgot-title">Forgot your password?</h1>
      {sent ? (
        <p className={s.accountOk} role="status" data-testid="forgot-sent">
          {sent}
        </p>
      ) : (
        <form
          className={s.accountCard}
          noValidate
          aria-labelledby="forgot-title"
          onSubmit={async (e) => {
            e.preventDefault();
            if (email.trim() === '') {
              setErrors({ email: ['Please enter your email address.'] });
              return;
            }
            setBusy(true);
            setErrors({});
            try {
              setSent(await api.forgotPassword(email));
            } catch (err) {
              setErrors(submitErrors(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <p>Enter the e-mail address of your account. We will send it a link to choose a new password; the link works once, for one hour.</p>
          {errors.form ? (
            <div className={s.accountErrors} role="alert">
              <p>{errors.form[0]}</p>
            </div>
          ) : null}
          <div className={s.accountForm}>
            <TextField label="Email Address" name="email" type="email" autoComplete="username" value={email} errors={errors.email ?? []} onChange={(e) => setEmail(e.target.value)} />
          </div>
          <div className={s.accountActions}>
            <Button type="submit" disabled={busy}>
              Send me a link
            </Button>
            <a href="/account">Back to log in</a>
          </div>
        </form>
      )}
    </section>
  );
}
