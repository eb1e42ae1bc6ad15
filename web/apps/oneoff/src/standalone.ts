import type { RemoteModuleProps } from '@hangar/ui';

/** Standalone: /product/cart/<id> or /product/cart-create as in the shell, or a demo cart at '/'. */
export function standaloneProps(pathname: string): RemoteModuleProps {
  if (pathname.startsWith('/product/cart-create')) return { route: '/product/cart-create', params: {} };
  const m = /^\/product\/cart\/([^/]+)/.exec(pathname);
  return { route: '/product/cart/:cartId', params: { cartId: m?.[1] ? decodeURIComponent(m[1]) : 'demo' } };
}
