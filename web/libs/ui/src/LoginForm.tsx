import { useId, useRef, useState } from 'react';
import { Button } from './Button';
import { HumanVerification, MSG_CAPTCHA_ERROR, MSG_HUMAN, type HumanVerificationHandle } from './HumanVerification';
import { TextField } from './fields';
import ui from './ui.module.css';

/** Where a buyer who forgot the password starts again (identity's page). */
export const FORGOT_PASSWORD_PATH = '/account/forgot-password';

export interface LoginFormProps {
  /**
   * Logs in. Answers the refusal's message to show under the password, or undefined when
   * the session is open: the form then stays disabled while the caller reloads or goes on.
   * recaptchaValue is the human-verification widget's value ('' until the server asked).
   */
  onLogin: (username: string, password: string, recaptchaValue: string) => Promise<string | undefined>;
  /** A heading that names the form (the panels' 'LOGIN TO EXISTING ACCOUNT'). */
  title?: string;
  /** The e-mail the field starts with (read once, when the form mounts). */
  initialUsername?: string;
  className?: string;
}

/**
 * The one login form (spec 001 §4) of the buy page's panel, its login modal and the account
 * page: e-mail and password, LOGIN disabled while the login is under way, a refusal shown
 * under the password and LOGIN enabled again, and 'Forgot password?' on LOGIN's line.
 * Past the login's limits the server asks for human verification: the form then shows the
 * widget and sends its value with the next LOGIN.
 */
export function LoginForm({ onLogin, title, initialUsername = '', className }: LoginFormProps) {
  const id = useId();
  const [username, setUsername] = useState(initialUsername);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [askHuman, setAskHuman] = useState(false);
  const human = useRef<HumanVerificationHandle>(null);
  return (
    <form
      className={className}
      aria-labelledby={title ? `${id}-title` : undefined}
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        setError(undefined);
        let msg: string | undefined;
        try {
          msg = await onLogin(username, password, human.current?.value() ?? '');
        } catch (err) {
          msg = (err instanceof Error && err.message) || 'Failed to login';
        }
        if (msg === MSG_HUMAN || msg === MSG_CAPTCHA_ERROR) {
          setAskHuman(true);
          human.current?.reset();
        }
        if (msg !== undefined) {
          setError(msg);
          setBusy(false);
        }
      }}
    >
      {title ? <h3 id={`${id}-title`}>{title}</h3> : null}
      <TextField label="Email Address" id={`${id}-username`} name="username" type="email" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} />
      <TextField
        label="Password"
        id={`${id}-password`}
        name="password"
        type="password"
        autoComplete="current-password"
        value={password}
        errors={error ? [error] : []}
        onChange={(e) => setPassword(e.target.value)}
      />
      {askHuman ? <HumanVerification handle={human} /> : null}
      <div className={ui.hLoginActions}>
        <Button type="submit" disabled={busy} aria-busy={busy || undefined}>
          LOGIN
        </Button>
        <a href={FORGOT_PASSWORD_PATH}>Forgot password?</a>
      </div>
    </form>
  );
}
