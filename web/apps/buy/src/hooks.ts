import { useEffect, useMemo, useRef, useState, useTransition } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { loadLinks, loadNotices, num, unwrap, type ApiError, type Catalog, type WireMe, type WirePaymentMethod, type WirePreview } from '@hangar/api-client';
import { apiClient } from './api';
import { reduce, toWire, type Configuration } from './configuration';

/** The fields typed character by character: a change to them alone is priced at a pause. */
const TYPED: ReadonlySet<keyof Configuration> = new Set<keyof Configuration>(['email', 'organizationName', 'businessIdentificationNo', 'jeppCustomerNo', 'zipcode', 'cardholderName', 'quantity']);

/** How long typing must pause before the typed text is priced (one preview per pause, issue 45). */
export const TYPING_PAUSE_MS = 350;

function onlyTypedDiffer(a: Configuration, b: Configuration): boolean {
  return (Object.keys(b) as (keyof Configuration)[]).every((k) => TYPED.has(k) || a[k] === b[k]);
}

/**
 * The configuration to price: a click (a plan, a region, a code) at once; text being typed
 * once the typing pauses, so an e-mail costs one preview, not one per key (issue 45: 32
 * previews for one e-mail). `settled` is false while typed text waits for its pause.
 */
export function useSettledConfiguration(config: Configuration): { asked: Configuration; settled: boolean } {
  const [asked, setAsked] = useState(config);
  const immediate = asked !== config && !onlyTypedDiffer(asked, config);
  // A choice is priced in this render (React's state-from-props pattern), not one later.
  if (immediate) setAsked(config);
  useEffect(() => {
    if (asked === config) return;
    const t = setTimeout(() => setAsked(config), TYPING_PAUSE_MS);
    return () => clearTimeout(t);
  }, [asked, config]);
  return immediate ? { asked: config, settled: true } : { asked, settled: asked === config };
}

/** The catalogue (all currencies: one cacheable URL). */
export function useCatalog() {
  return useQuery<Catalog, ApiError>({
    queryKey: ['catalog'],
    queryFn: ({ signal }) => apiClient().catalog.availablePlans({}, signal),
    staleTime: 5 * 60_000,
    retry: 1,
  });
}

/** Who is logged in (identity's GET /buy/api/me). */
export function useMe() {
  return useQuery<WireMe, ApiError>({
    queryKey: ['me'],
    queryFn: ({ signal }) => unwrap(apiClient().identity.GET('/buy/api/me', { signal })),
    staleTime: 60_000,
    retry: 1,
  });
}

/** The stored payment method of a logged-in account; none when there is none or it is not ours to see. */
export function usePaymentMethod(accountId: string | undefined) {
  return useQuery<WirePaymentMethod | null, ApiError>({
    queryKey: ['payment-method', accountId],
    enabled: Boolean(accountId),
    queryFn: async ({ signal }) => {
      try {
        return await unwrap(apiClient().payments.GET('/buy/api/subscription/payment-method/{id}', { params: { path: { id: accountId! } }, signal }));
      } catch {
        return null;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
}

/**
 * The signed-in buyer's marketing preference (identity's GET eu_consent, fetched after
 * login, spec 001 §4): true or false, undefined while unknown.
 */
export function useMarketingConsent(accountId: string | undefined) {
  return useQuery<boolean | undefined, ApiError>({
    queryKey: ['eu-consent', accountId],
    enabled: Boolean(accountId),
    queryFn: async ({ signal }) =>
      (await unwrap(apiClient().identity.GET('/buy/api/subscription/eu_consent/{id}', { params: { path: { id: accountId! } }, signal }))).preference
        ?.marketingNotificationsEnabled,
    staleTime: 60_000,
    retry: 1,
  });
}

/** Card readers exist only for sales staff: the list answers credit-card admins only (others 401/403). */
export function useCardReaders(cardAdmin: boolean) {
  return useQuery<string[], ApiError>({
    queryKey: ['card-readers'],
    enabled: cardAdmin,
    queryFn: async ({ signal }) => {
      try {
        const r = await unwrap(apiClient().payments.GET('/buy/api/card-reader/list', { signal }));
        return r.serialNumbers ?? [];
      } catch {
        return [];
      }
    },
    staleTime: 5 * 60_000,
    retry: false,
  });
}

export type Preview = WirePreview & { requestCounter: number; requestKey: string };

/** The answer's counter: the server's, never below the one we sent. */
export function previewCounter(p: Pick<Preview, 'invoice' | 'requestCounter'>): number {
  return Math.max(num(p.invoice?.counter), p.requestCounter);
}

function randomId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

function sameKey(a: Preview, b: Preview): boolean {
  return a.requestKey === b.requestKey;
}

/** The request minus what changes per request, as the query key. */
function keyOf(c: Configuration) {
  const w = toWire(c, { cartId: '', counter: 0 }) as Record<string, unknown>;
  delete w.counter;
  delete w.cartId;
  return ['preview', w] as const;
}

/**
 * Every selection change asks POST /buy/api/invoice/preview. Each request carries a
 * growing counter; an answer older than the one shown is dropped, so a slow answer to
 * an earlier click never overwrites a newer one. When the latest answer normalised
 * the cart (rules removed or replaced codes, one-shot inputs applied), the page adopts
 * it; the cache is seeded for the adopted configuration so that costs no second call.
 */
export function usePreview(config: Configuration, adopt: (p: Preview) => void, needsAdopt: (c: Configuration, p: Preview) => boolean) {
  const client = useQueryClient();
  const counter = useRef(0);
  const cartId = useRef(randomId());
  const { asked, settled } = useSettledConfiguration(config);
  const key = useMemo(() => keyOf(asked), [asked]);
  const query = useQuery<Preview, ApiError>({
    queryKey: key,
    queryFn: async ({ signal }) => {
      const sent = ++counter.current;
      const r = await unwrap(apiClient().checkout.POST('/buy/api/invoice/preview', { body: toWire(asked, { cartId: cartId.current, counter: sent }), signal }));
      return { ...r, requestCounter: sent, requestKey: JSON.stringify(key[1]) };
    },
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    // A 401 (an account this session may not act on) asks for a login, not a retry.
    retry: (failures, err) => failures < 1 && err.status !== 401,
  });

  // What is shown: the answer for the configuration on screen. Answers are keyed by the
  // configuration, so a slow answer to an earlier click lands in its own cache entry and
  // never replaces the current one; among answers for the same configuration (a refetch
  // racing an older one) the higher counter wins.
  // An answer can change every section's choices (the first one does: the cart's add-ons
  // come from it), so it is shown and adopted in a transition: React renders the sections
  // in slices instead of one long task (issue 31: /buy's blocking time). Until that render
  // commits the screen shows the previous answer, so `pending` says it may not be paid.
  const [pending, startTransition] = useTransition();
  const [shown, setShown] = useState<Preview | undefined>(undefined);
  const data = query.data;
  const current = !query.isPlaceholderData;
  useEffect(() => {
    if (!data || !current) return;
    startTransition(() => setShown((cur) => (cur && cur !== data && sameKey(cur, data) && previewCounter(cur) > previewCounter(data) ? cur : data)));
  }, [data, current]);

  // Adopt only the answer to the current request (not a placeholder). The cache is seeded for
  // the cart that was asked: text typed since then is priced at its pause.
  useEffect(() => {
    if (!data || query.isPlaceholderData || query.isFetching) return;
    if (!needsAdopt(asked, data)) return;
    const next = reduce(asked, { type: 'adopt', preview: data });
    client.setQueryData(keyOf(next), data);
    startTransition(() => adopt(data));
  }, [data, query.isPlaceholderData, query.isFetching, asked, adopt, needsAdopt, client]);

  // Typed text not yet priced is pending as well: the total on screen is not yet its price.
  return { preview: shown, pending: pending || !settled, query, cartId: cartId.current, nextCounter: () => ++counter.current };
}

/** The page's notification-banner text from the runtime config (none: no banner). */
export function useNotice(page: string) {
  return useQuery({ queryKey: ['notices'], queryFn: () => loadNotices(), staleTime: Infinity, select: (n) => n[page] });
}

/** The store's outside links from the runtime config (App Store listing, sales address). */
export function useLinks() {
  return useQuery({ queryKey: ['links'], queryFn: () => loadLinks(), staleTime: Infinity });
}
