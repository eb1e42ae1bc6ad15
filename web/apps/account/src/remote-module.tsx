// Exposed as 'account/Module': the subscriber's account page at /account (issue 17 item 5):
// subscription and renewal, auto-renew, payment method, invoices; and the password pages
// /account/set-password and /account/forgot-password (issue 28).
import { useMemo } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { AccountPage } from './AccountPage';
import { ForgotPasswordPage, SetPasswordPage } from './PasswordPages';
import { accountApi, type AccountApi } from './account';

const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

export interface AccountModuleProps extends RemoteModuleProps {
  /** Injected in tests; the store's same-origin API otherwise. */
  api?: AccountApi;
  reload?: () => void;
  client?: QueryClient;
}

export default function AccountModule({ api, reload, client, route }: AccountModuleProps) {
  const a = useMemo(() => api ?? accountApi(), [api]);
  return (
    <QueryClientProvider client={client ?? queryClient}>
      {route === '/account/set-password' ? (
        <SetPasswordPage api={a} />
      ) : route === '/account/forgot-password' ? (
        <ForgotPasswordPage api={a} />
      ) : (
        <AccountPage api={a} reload={reload} />
      )}
    </QueryClientProvider>
  );
}
