// Exposed as 'account/Module': the subscriber's account page at /account (issue 17 item 5):
// subscription and renewal, auto-renew, payment method, invoices; and the password pages
// /account/set-password and /account/forgot-password (issue 28); the members page that
// invites and the invitation page that accepts (issue 41).
import { useMemo } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { AccountPage } from './AccountPage';
import { ForgotPasswordPage, SetPasswordPage } from './PasswordPages';
import { InvitationPage, MembersPage } from './InvitationPages';
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
      ) : route === '/account/invitation' ? (
        <InvitationPage api={a} />
      ) : route === '/account/members' ? (
        <MembersPage api={a} />
      ) : (
        <AccountPage api={a} reload={reload} />
      )}
    </QueryClientProvider>
  );
}
