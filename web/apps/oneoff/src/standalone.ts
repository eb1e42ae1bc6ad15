import type { RemoteModuleProps } from '@hangar/ui';

/** Standalone: /product/cart/<id> as in the shell, or a demo cart at '/'. */
export function standaloneProps(pathname: string): RemoteModuleProps {
  const m = /^\/product\/cart\/([^/]+)/.exec(pathname);
  return { route: '/product/cart/:cartId', params: { cartId: m?.[1] ? decodeURIComponent(m[1]) : 'demo' } };
}
