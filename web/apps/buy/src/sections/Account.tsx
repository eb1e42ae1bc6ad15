import { useState } from 'react';
import { Button, LoginForm, TextField, ui } from '@hangar/ui';
import s from '../buy.module.css';

export interface AccountBlockProps {
  loggedIn: boolean;
  /** Sales mode: the credit-card admin selling; the e-mail is the customer's to type. */
  seller?: string;
  username: string;
  email: string;
  organizationName: string;
  business: boolean;
  emailLocked: boolean;
  emailErrors: string[];
  orgErrors: string[];
  onEmail: (v: string) => void;
  onOrganization: (v: string) => void;
  onLogin: (username: string, password: string, recaptchaValue: string) => Promise<string | undefined>;
  onLogout: () => Promise<void>;
  childMessage?: string;
}

/**
 * Spec 001 §2: CREATE NEW ACCOUNT (e-mail, organization name for business) and LOGIN
 * TO EXISTING ACCOUNT panels; a signed-in user sees a badge with LOGOUT instead.
 */
export function AccountBlock(p: AccountBlockProps) {
  const [loggingOut, setLoggingOut] = useState(false);

  if (p.loggedIn) {
    return (
      <section className={s.buyAccount} aria-labelledby="buy-account-title" data-testid="account">
        <h2 id="buy-account-title" className={ui.hVisuallyHidden}>
          Your account
        </h2>
        <div className={s.buyBadge}>
          <span>
            Signed in as <strong data-testid="signed-in-user">{p.username}</strong>
          </span>
          <Button
            variant="secondary"
            size="small"
            disabled={loggingOut}
            onClick={async () => {
              setLoggingOut(true);
              await p.onLogout();
            }}
          >
            LOGOUT
          </Button>
        </div>
        <TextField label="Email Address" name="email" value={p.email} disabled readOnly />
        {p.business ? (
          <TextField label="Organization Name" name="organizationName" value={p.organizationName} errors={p.orgErrors} onChange={(e) => p.onOrganization(e.target.value)} />
        ) : null}
        {p.childMessage ? <p className={s.buyErrorInline}>{p.childMessage}</p> : null}
      </section>
    );
  }

  if (p.seller !== undefined) {
    return (
      <section className={s.buyAccount} aria-labelledby="buy-account-title" data-testid="account">
        <h2 id="buy-account-title">The customer</h2>
        <p className={s.buyHint} data-testid="selling-as">
          Sales mode: you ({p.seller}) sell to the customer below; the order and its account are theirs.
        </p>
        <TextField label="Email Address" name="email" type="email" autoComplete="off" value={p.email} errors={p.emailErrors} onChange={(e) => p.onEmail(e.target.value)} />
        {p.business ? (
          <TextField label="Organization Name" name="organizationName" autoComplete="off" value={p.organizationName} errors={p.orgErrors} onChange={(e) => p.onOrganization(e.target.value)} />
        ) : null}
      </section>
    );
  }

  return (
    <section className={s.buyAccount} aria-labelledby="buy-account-title" data-testid="account">
      <h2 id="buy-account-title" className={ui.hVisuallyHidden}>
        Your account
      </h2>
      <div className={s.buyAccountPanels}>
        <div className={s.buyAccountPanel}>
          <h3>CREATE NEW ACCOUNT</h3>
          <p className={s.buyHint}>{p.business ? 'These fields are required.' : 'This field is required.'}</p>
          <TextField
            label="Email Address"
            name="email"
            type="email"
            autoComplete="email"
            value={p.email}
            disabled={p.emailLocked}
            errors={p.emailErrors}
            onChange={(e) => p.onEmail(e.target.value)}
          />
          {p.business ? (
            <TextField label="Organization Name" name="organizationName" autoComplete="organization" value={p.organizationName} errors={p.orgErrors} onChange={(e) => p.onOrganization(e.target.value)} />
          ) : null}
          <p className={s.buyHint}>Your account will be created at checkout.</p>
        </div>
        <LoginForm className={s.buyAccountPanel} title="LOGIN TO EXISTING ACCOUNT" onLogin={p.onLogin} />
      </div>
    </section>
  );
}
