// Exposed as 'oneoff/Module': /product/cart/{cartId} (spec 001 §2) and the staff cart
// builder at /product/cart-create.
import { useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { CartCreator } from './CartCreator';
import { OneOffPage } from './OneOffPage';

export default function OneOffModule({ route, params, navigate }: RemoteModuleProps) {
  // One cache per mounted page: a buyer's answers (the marketing preference) never outlive it.
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } }));
  return (
    <QueryClientProvider client={client}>
      {route === '/product/cart-create' ? (
        <CartCreator />
      ) : (
        <OneOffPage cartId={params.cartId ?? ''} go={(u) => (navigate ? navigate(u) : window.location.assign(u))} />
      )}
    </QueryClientProvider>
  );
}
