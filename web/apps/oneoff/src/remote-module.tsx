// Exposed as 'oneoff/Module': /product/cart/{cartId} (spec 001 §2) and the staff cart
// builder at /product/cart-create.
import type { RemoteModuleProps } from '@hangar/ui';
import { CartCreator } from './CartCreator';
import { OneOffPage } from './OneOffPage';

export default function OneOffModule({ route, params, navigate }: RemoteModuleProps) {
  if (route === '/product/cart-create') return <CartCreator />;
  return <OneOffPage cartId={params.cartId ?? ''} go={(u) => (navigate ? navigate(u) : window.location.assign(u))} />;
}
