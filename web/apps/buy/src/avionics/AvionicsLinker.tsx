import { useEffect, useState } from 'react';
import { ApiError, unwrap } from '@hangar/api-client';
import { apiClient } from '../api';

/** A linked avionics partner account (spec 001 §3). */
export interface LinkedAccount {
  jeppAccountId: string;
  username: string;
  linkedAvionics?: boolean;
}

/** GET /buy/jepp/linked-accounts/{accountUuid}; any failure is treated as no accounts (spec 001 §7). */
export async function fetchLinkedAccounts(accountUuid: string, signal?: AbortSignal): Promise<LinkedAccount[]> {
  try {
    const r = await unwrap(apiClient().identity.GET('/buy/jepp/linked-accounts/{accountUuid}', { params: { path: { accountUuid } }, signal }));
    return Array.isArray(r?.accounts) ? (r.accounts as LinkedAccount[]) : [];
  } catch {
    return [];
  }
}

/** POST /buy/jepp/linked-avionics/{accountUuid}/{jeppAccountId}. */
export async function linkAvionics(accountUuid: string, jeppAccountId: string): Promise<{ status?: string; account?: LinkedAccount }> {
  return (await unwrap(apiClient().identity.POST('/buy/jepp/linked-avionics/{accountUuid}/{jeppAccountId}', { params: { path: { accountUuid, jeppAccountId } }, body: {} }))) as { status?: string; account?: LinkedAccount };
}

/**
 * The avionics section's partner-account linker: lists the signed-in account's partner
 * accounts and links the avionics databases to one. Renders nothing without an account or
 * without partner accounts, so the section stays as it is for everyone else.
 */
export function AvionicsLinker({ accountUuid }: { accountUuid?: string }) {
  const [accounts, setAccounts] = useState<LinkedAccount[] | null>(null);
  const [busy, setBusy] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    if (!accountUuid) return;
    const ctl = new AbortController();
    fetchLinkedAccounts(accountUuid, ctl.signal).then((a) => !ctl.signal.aborted && setAccounts(a));
    return () => ctl.abort();
  }, [accountUuid]);
  if (!accountUuid || !accounts || accounts.length === 0) return null;
  return (
    <div data-testid="avionics-linker">
      <h3>Partner accounts</h3>
      <p>Link your avionics databases to a partner account to load them on your panel.</p>
      <ul>
        {accounts.map((a) => (
          <li key={a.jeppAccountId}>
            <span>
              {a.username} ({a.jeppAccountId})
            </span>{' '}
            {a.linkedAvionics ? (
              <strong>Linked</strong>
            ) : (
              <button
                type="button"
                disabled={busy !== ''}
                onClick={async () => {
                  setBusy(a.jeppAccountId);
                  setError('');
                  try {
                    const r = await linkAvionics(accountUuid, a.jeppAccountId);
                    setAccounts((old) => (old ?? []).map((x) => (x.jeppAccountId === a.jeppAccountId ? { ...x, ...(r.account ?? {}), linkedAvionics: true } : x)));
                  } catch (err) {
                    setError(err instanceof ApiError ? err.message : 'The avionics databases could not be linked.');
                  } finally {
                    setBusy('');
                  }
                }}
              >
                {busy === a.jeppAccountId ? 'Linking…' : 'Link avionics'}
              </button>
            )}
          </li>
        ))}
      </ul>
      {error ? <p role="alert">{error}</p> : null}
    </div>
  );
}
