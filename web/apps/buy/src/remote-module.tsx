// Exposed as 'buy/Module': the buy page (/buy and its routes), the success page, sales mode
// (/buy/sales-mode), the association-member form (/buy/association) and the military
// pages: /buy/military and /buy/military_intl verify eligibility first (no e-mail in the
// query), then configure military plans on the buy page (?email=…, identity's invoice URL).
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { LoadingState, type RemoteModuleProps } from '@hangar/ui';
import { BuyPage } from './BuyPage';
import { MilitaryPage } from './eligibility/MilitaryPage';

// The buy remote's other pages are chunks of their own, outside /buy's initial JavaScript.
const SuccessPage = lazy(() => import('./success/SuccessPage').then((m) => ({ default: m.SuccessPage })));
const SalesModePage = lazy(() => import('./salesmode/SalesModePage').then((m) => ({ default: m.SalesModePage })));
const AssociationForm = lazy(() => import('./eligibility/AssociationForm').then((m) => ({ default: m.AssociationForm })));

/** Server state lives in one TanStack Query client per page. */
const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

/**
 * The history entry's mark of an international military page whose address was rewritten
 * to /buy/military: a reload keeps the entry's state, so it stays international (it fell
 * back to the domestic plans).
 */
const INTL_MARK = 'hangarMilitaryIntl';

function markedInternational(): boolean {
  if (typeof window === 'undefined') return false;
  const state: unknown = window.history.state;
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>)[INTL_MARK] === true;
}

export default function BuyModule({ route: shellRoute }: RemoteModuleProps) {
  const route = shellRoute === '/buy/military' && markedInternational() ? '/buy/military_intl' : shellRoute;
  // The military-international path is rewritten in the address bar to the military path
  // (spec 000 §2); the entry keeps the mark.
  useEffect(() => {
    if (route === '/buy/military_intl' && typeof window !== 'undefined' && window.location.pathname.startsWith('/buy/military_intl')) {
      const state: unknown = window.history.state;
      window.history.replaceState({ ...(typeof state === 'object' && state !== null ? state : {}), [INTL_MARK]: true }, '', `/buy/military${window.location.search}${window.location.hash}`);
    }
  }, [route]);
  const location = useMemo(
    () => (route === '/buy/military_intl' && typeof window !== 'undefined' ? { pathname: '/buy/military_intl', search: window.location.search, hash: window.location.hash } : undefined),
    [route],
  );

  let page;
  switch (route) {
    case '/buy/success':
      page = <SuccessPage />;
      break;
    case '/buy/sales-mode':
      page = <SalesModePage />;
      break;
    case '/buy/association':
      page = <AssociationForm />;
      break;
    case '/buy/military':
    case '/buy/military_intl':
      page = <MilitaryPage route={route} configure={<BuyPage location={location} />} />;
      break;
    default:
      page = <BuyPage />;
  }
  return (
    <QueryClientProvider client={queryClient}>
      <Suspense fallback={<LoadingState label="Loading the page…" />}>{page}</Suspense>
    </QueryClientProvider>
  );
}
