import { ApiError, unwrap, type ApiClient } from '@hangar/api-client';
import { Button, Dialog, LoginForm } from '@hangar/ui';
import s from './oneoff.module.css';

/** POST /pricing/api/login: undefined once the session is open, else the refusal to show. */
export async function login(api: ApiClient, username: string, password: string, recaptchaValue: string): Promise<string | undefined> {
  try {
    const r = await unwrap(api.identity.POST('/pricing/api/login', { body: { username, password, ...(recaptchaValue ? { recaptchaValue } : {}) } }));
    return r.status === 'ok' ? undefined : r.msg || 'Failed to login';
  } catch (err) {
    return err instanceof ApiError && err.message ? err.message : 'Failed to login';
  }
}

/** What the modal says of the guest path (spec 001 §1: a visitor enters an e-mail and pays by card). */
export const GUEST_NOTE = 'No account? Continue as a guest: enter your e-mail address and pay by card. We create your account and e-mail you a link to set its password.';

/**
 * The login modal of a cart opened without a session: the store's one LoginForm, and the
 * guest path (issue 45): closing the modal, by its button, Escape or the close button,
 * leaves the visitor on the cart to pay with an e-mail, as /buy's guest does; checkout makes
 * the account. It opens again with the server's message when the e-mail's account is in use.
 */
export function LoginModal({
  api,
  onDone,
  onClose,
  message,
  initialEmail,
}: {
  api: ApiClient;
  onDone: () => void;
  onClose: () => void;
  /** The submit's refusal that opened it again ('An account already exists…'). */
  message?: string;
  initialEmail?: string;
}) {
  return (
    <Dialog open title="Login Required" onClose={onClose} testId="oneoff-login" className={s.oneoffLogin}>
      <p role={message ? 'alert' : undefined}>{message || 'Log in to complete your order, or continue as a guest.'}</p>
      <LoginForm
        initialUsername={initialEmail}
        onLogin={async (username, password, human) => {
          const msg = await login(api, username, password, human);
          if (msg === undefined) onDone();
          return msg;
        }}
      />
      {message ? null : (
        <div className={s.oneoffGuest}>
          <p>{GUEST_NOTE}</p>
          <Button variant="secondary" onClick={onClose}>
            Continue as guest
          </Button>
        </div>
      )}
    </Dialog>
  );
}
