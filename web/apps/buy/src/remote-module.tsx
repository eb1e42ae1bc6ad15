// Exposed as 'buy/Module': the buy page (/buy and its routes) and the success page.
// Sales mode and the military pages' eligibility parts belong to the geo helper's issue;
// /buy/military and /buy/military_intl configure military plans here.
import { useEffect } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { BuyPage } from './BuyPage';
import { SuccessPage } from './success/SuccessPage';

/** Server state lives in one TanStack Query client per page. */
const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

function Placeholder({ title, children }: { title: string; children: string }) {
  return (
    <section className="buy" data-remote="buy">
      <h1>{title}</h1>
      <p>{children}</p>
    </section>
  );
}

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
      page = <Placeholder title="Sales mode">Sales mode for card readers will be configured here.</Placeholder>;
      break;
    default:
      page = <BuyPage />;
  }
  return <QueryClientProvider client={queryClient}>{page}</QueryClientProvider>;
}
