import { useEffect } from 'react';
import type { WireMe } from '@hangar/api-client';
import { login, logout } from './account';
import type { BuyQuery } from './query';
import { useEvent } from './render';

/** Log in and out from /buy; and out when the address names another account (spec 001 §4). */
export function useAccount(me: WireMe, query: BuyQuery, reload: () => void, onErrors: (errs: string[]) => void) {
  const loggedIn = me.loggedIn === true;
  useEffect(() => {
    if (!loggedIn) return;
    const wrongAccount = query.accountId && me.accountUuid && query.accountId !== me.accountUuid.toLowerCase();
    const wrongEmail = query.email && me.email && query.email.toLowerCase() !== me.email.toLowerCase();
    if (wrongAccount || wrongEmail) void logout().then(() => reload());
  }, [loggedIn, me, query, reload]);

  const onLogin = useEvent(async (u: string, pw: string, human?: string): Promise<string | undefined> => {
    const r = await login(u, pw, human);
    if (!r.ok) return r.message;
    // From the buy page, first go to the account route, then reload. Without ?prompt=login:
    // it asked for this login, which is done (it opened the modal again after the reload).
    if (typeof window !== 'undefined') {
      const url = new URL(window.location.href);
      url.searchParams.delete('prompt');
      if (r.accountUuid) url.hash = `#/account/${r.accountUuid}`;
      window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    }
    reload();
    return undefined;
  });
  const onLogout = useEvent(async () => {
    const errs = await logout();
    if (errs.length > 0) onErrors(errs);
    if (typeof window !== 'undefined' && window.location.hash.startsWith('#/account/')) window.history.replaceState(null, '', window.location.pathname + window.location.search);
    reload();
  });
  return { onLogin, onLogout };
}
