import { ApiError, unwrap, type ApiClient } from '@hangar/api-client';
import { LoginForm } from '@hangar/ui';
import s from './oneoff.module.css';

/** POST /pricing/api/login: undefined once the session is open, else the refusal to show. */
async function login(api: ApiClient, username: string, password: string, recaptchaValue: string): Promise<string | undefined> {
  try {
    const r = await unwrap(api.identity.POST('/pricing/api/login', { body: { username, password, ...(recaptchaValue ? { recaptchaValue } : {}) } }));
    return r.status === 'ok' ? undefined : r.msg || 'Failed to login';
  } catch (err) {
    return err instanceof ApiError && err.message ? err.message : 'Failed to login';
  }
}

/**
 * The login modal of a cart opened without a user: it cannot be closed there (spec 001 §4).
 * Its form is the store's one LoginForm (the buy page's panel and modal, the account page).
 */
export function LoginModal({ api, onDone }: { api: ApiClient; onDone: () => void }) {
  return (
    <div className={s.oneoffLoginBackdrop}>
      <div className={s.oneoffLogin} role="dialog" aria-modal="true" aria-labelledby="oneoff-login-title">
        <h2 id="oneoff-login-title">Login Required</h2>
        <p>Log in to complete your order.</p>
        <LoginForm
          onLogin={async (username, password, human) => {
            const msg = await login(api, username, password, human);
            if (msg === undefined) onDone();
            return msg;
          }}
        />
      </div>
    </div>
  );
}
