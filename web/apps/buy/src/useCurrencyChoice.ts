import { useEffect, useRef, type Dispatch } from 'react';
import { isCurrencyCode, type CurrencyCode } from '@hangar/money';
import { unwrap } from '@hangar/api-client';
import { defaultCurrency } from '@hangar/storefront';
import { apiClient } from './api';
import type { Action, Configuration } from './configuration';
import { MSG_CURRENCY_NOT_ALLOWED } from './messages';
import { withCurrency, type BuyQuery } from './query';
import { useEvent } from './render';

export interface CurrencyChoiceInput {
  query: BuyQuery;
  config: Configuration;
  dispatch: Dispatch<Action>;
  loggedIn: boolean;
  military: boolean;
  /** The currency of the server's invoice. */
  serverCurrency: string | undefined;
  /** The account may not buy in the chosen currency. */
  onRefused: (message: string) => void;
}

/**
 * The cart's currency: the address's, else the storefront's default; a military cart's is
 * the server's. Answers the buyer's change of currency, which the server may refuse.
 */
export function useCurrencyChoice({ query, config, dispatch, loggedIn, military, serverCurrency, onRefused }: CurrencyChoiceInput) {
  // No currency in the address: the storefront's default (the currency cookie, then the
  // visitor's location, USD when that fails). A buyer who already picked one keeps it.
  const picked = useRef(false);
  useEffect(() => {
    if (query.requestedCurrency || query.military) return;
    const ac = new AbortController();
    void defaultCurrency(null, { signal: ac.signal }).then((c) => {
      if (ac.signal.aborted || picked.current || c === config.currency) return;
      dispatch({ type: 'set', patch: { currency: c } });
    });
    return () => ac.abort();
    // Once per page: later currency changes are the buyer's.
  }, []);
  // A military cart is priced in its fixed currency: follow the server's invoice.
  useEffect(() => {
    if (military && isCurrencyCode(serverCurrency) && serverCurrency !== config.currency) dispatch({ type: 'set', patch: { currency: serverCurrency } });
  }, [military, serverCurrency, config.currency]);

  const choose = async (c: CurrencyCode) => {
    if (c === config.currency) return;
    picked.current = true;
    if (!military && (loggedIn || config.email || config.accountId)) {
      try {
        const r = await unwrap(apiClient().checkout.POST('/buy/api/currency/validate', { body: { currency: c, email: config.email, accountId: config.accountId, military } }));
        if (r.status === 'fail') {
          onRefused(r.message || MSG_CURRENCY_NOT_ALLOWED);
          return;
        }
      } catch {
        /* the preview will say what is wrong */
      }
    }
    // The choices stay: only the currency changes, and the preview prices them again.
    dispatch({ type: 'set', patch: { currency: c } });
    if (typeof window !== 'undefined') window.history.replaceState(window.history.state, '', withCurrency(window.location.href, c));
  };
  return useEvent((c: CurrencyCode) => void choose(c));
}
