// Exposed as 'account/Module': the subscriber's account page at /account (issue 17 item 5):
// subscription and renewal, auto-renew, payment method, invoices.
import { useMemo } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { AccountPage } from './AccountPage';
import { accountApi, type AccountApi } from './account';

const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

export interface AccountModuleProps extends RemoteModuleProps {
  /** Injected in tests; the store's same-origin API otherwise. */
  api?: AccountApi;
  reload?: () => void;
  client?: QueryClient;
}

export default function AccountModule({ api, reload, client }: AccountModuleProps) {
  const a = useMemo(() => api ?? accountApi(), [api]);
  return (
    <QueryClientProvider client={client ?? queryClient}>
      <AccountPage api={a} reload={reload} />
    </QueryClientProvider>
  );
}
