// Invitations (issue 41): an organization's administrator invites a person by e-mail at
// /account/members; the person opens /account/invitation from the mail (the token is in
// the URL fragment) and accepts: logged in as the invited address, with that account;
// without an account, with a password chosen here. Nothing exists in their name before.
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '@hangar/api-client';
import { Button, TextField } from '@hangar/ui';
import { type AccountApi } from './account';
import { MIN_PASSWORD_LENGTH, NewPasswordFields, newPasswordErrors, submitErrors } from './NewPassword';
import { linkFromHash } from './PasswordPages';
import s from './account.module.css';

const ROLES: ReadonlyArray<{ value: string; label: string }> = [
  { value: 'member', label: 'Member' },
  { value: 'dispatcher', label: 'Dispatcher' },
  { value: 'aircraft_admin', label: 'Aircraft admin' },
  { value: 'user_admin', label: 'User admin' },
];

export function MembersPage({ api }: { api: AccountApi }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string>();
  return (
    <section className={s.account} aria-labelledby="members-title">
      <h1 id="members-title">Invite a member</h1>
      <form
        className={s.accountCard}
        noValidate
        aria-labelledby="members-title"
        onSubmit={async (e) => {
          e.preventDefault();
          if (email.trim() === '') {
            setErrors({ email: ['Please enter your email address.'] });
            return;
          }
          setBusy(true);
          setErrors({});
          setSent(undefined);
          try {
            setSent(await api.invite(email, [role]));
            setEmail('');
          } catch (err) {
            setErrors(submitErrors(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <p>We e-mail the person an invitation to your organization. They join when they accept it; nothing is created for them before.</p>
        {sent ? (
          <p className={s.accountOk} role="status" data-testid="invite-sent">
            {sent}
          </p>
        ) : null}
        {errors.form ? (
          <div className={s.accountErrors} role="alert">
            <p>{errors.form[0]}</p>
          </div>
        ) : null}
        <div className={s.accountForm}>
          <TextField label="Email Address" name="email" type="email" value={email} errors={errors.email ?? []} onChange={(e) => setEmail(e.target.value)} />
          <label>
            Role{' '}
            <select name="role" value={role} onChange={(e) => setRole(e.target.value)}>
              {ROLES.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className={s.accountActions}>
          <Button type="submit" disabled={busy}>
            Send invitation
          </Button>
        </div>
      </form>
    </section>
  );
}

export function InvitationPage({ api, hash = typeof window === 'undefined' ? '' : window.location.hash }: { api: AccountApi; hash?: string }) {
  // Read once, then dropped from the address bar (and the history): the token is a credential.
  const [token] = useState(() => linkFromHash(hash).token);
  useEffect(() => {
    if (token && typeof window !== 'undefined' && window.location.hash) {
      window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    }
  }, [token]);
  const inv = useQuery({ queryKey: ['invitation', token], queryFn: () => api.invitation(token), enabled: token !== '', retry: false });
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const [joined, setJoined] = useState<string>();

  if (joined !== undefined) {
    return (
      <section className={s.account} aria-labelledby="invitation-title">
        <h1 id="invitation-title">You have joined the organization</h1>
        <p className={s.accountOk} role="status" data-testid="invitation-joined">
          You are a member of <strong>{joined}</strong>.
        </p>
        <p>
          <a href="/account">Go to your account</a>
        </p>
      </section>
    );
  }
  if (!token || inv.isError) {
    const message = inv.error instanceof ApiError && inv.error.fieldErrors[0]?.message ? inv.error.fieldErrors[0].message : 'This page opens from the link in your invitation e-mail, and this link is incomplete.';
    return (
      <section className={s.account} aria-labelledby="invitation-title">
        <h1 id="invitation-title">Invitation</h1>
        <p role="alert">{message}</p>
      </section>
    );
  }
  if (!inv.data) {
    return (
      <section className={s.account} aria-labelledby="invitation-title">
        <h1 id="invitation-title">Invitation</h1>
        <p>Loading the invitation…</p>
      </section>
    );
  }
  const d = inv.data;
  const accept = async () => {
    setBusy(true);
    try {
      const r = await api.acceptInvitation(token, d.hasAccount ? '' : password, d.hasAccount ? '' : confirm);
      setJoined(r.organizationName ?? '');
    } catch (err) {
      setErrors(submitErrors(err));
      setBusy(false);
    }
  };
  return (
    <section className={s.account} aria-labelledby="invitation-title">
      <h1 id="invitation-title">Join an organization</h1>
      <form
        className={s.accountCard}
        noValidate
        aria-labelledby="invitation-title"
        onSubmit={(e) => {
          e.preventDefault();
          if (!d.hasAccount) {
            const local = newPasswordErrors(password, confirm);
            setErrors(local);
            if (Object.keys(local).length > 0) return;
          }
          void accept();
        }}
      >
        <p data-testid="invitation-org">
          An organization that calls itself <strong>{d.organizationName}</strong> invited <strong>{d.email}</strong> to join it.
        </p>
        <p>The store has not verified this name. Accept only if you know this organization.</p>
        {errors.form || errors.token ? (
          <div className={s.accountErrors} role="alert">
            {[...(errors.token ?? []), ...(errors.form ?? [])].map((m) => (
              <p key={m}>{m}</p>
            ))}
          </div>
        ) : null}
        {d.hasAccount ? (
          <p>
            <a href="/account">Log in</a> as {d.email}, then open the link in the e-mail again to accept.
          </p>
        ) : (
          <div className={s.accountForm}>
            <p>Choose a password for your new account (at least {MIN_PASSWORD_LENGTH} characters).</p>
            <NewPasswordFields password={password} confirm={confirm} errors={errors} onPassword={setPassword} onConfirm={setConfirm} />
          </div>
        )}
        <div className={s.accountActions}>
          <Button type="submit" disabled={busy}>
            Accept the invitation
          </Button>
        </div>
      </form>
    </section>
  );
}
