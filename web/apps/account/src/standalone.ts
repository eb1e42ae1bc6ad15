import type { RemoteModuleProps } from '@hangar/ui';

export function standaloneProps(_pathname: string): RemoteModuleProps {
  return { route: '/account', params: {} };
}
