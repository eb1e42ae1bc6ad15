import type { RemoteModuleProps } from '@hangar/ui';

const ROUTES = ['/buy/success', '/buy/sales-mode', '/buy/military_intl', '/buy/military'];

/** Standalone the remote serves '/' as the buy page, and the /buy/... paths as in the shell. */
export function standaloneProps(pathname: string): RemoteModuleProps {
  const route = ROUTES.find((r) => pathname === r || pathname.startsWith(`${r}/`)) ?? '/buy';
  return { route, params: {} };
}
