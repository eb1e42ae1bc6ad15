// Exposed as 'buy/Module': the buy page (/buy and its routes), the success page, sales mode
// (/buy/sales-mode), the association-member form (/buy/association) and the military
// pages: /buy/military and /buy/military_intl verify eligibility first (no e-mail in the
// query), then configure military plans on the buy page (?email=…, identity's invoice URL).
import { useEffect } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { BuyPage } from './BuyPage';
import { SuccessPage } from './success/SuccessPage';
import { SalesModePage } from './salesmode/SalesModePage';
import { MilitaryPage } from './eligibility/MilitaryPage';
import { AssociationForm } from './eligibility/AssociationForm';

/** Server state lives in one TanStack Query client per page. */
const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

export default function BuyModule({ route }: RemoteModuleProps) {
  // The military-international path is rewritten in the address bar to the military path.
  useEffect(() => {
    if (route === '/buy/military_intl' && typeof window !== 'undefined' && window.location.pathname.startsWith('/buy/military_intl')) {
      window.history.replaceState(window.history.state, '', `/buy/military${window.location.search}${window.location.hash}`);
    }
  }, [route]);

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
      page = <MilitaryPage route={route} configure={<BuyPage />} />;
      break;
    default:
      page = <BuyPage />;
  }
  return <QueryClientProvider client={queryClient}>{page}</QueryClientProvider>;
}
