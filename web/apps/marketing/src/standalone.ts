import type { RemoteModuleProps } from '@hangar/ui';

export function standaloneProps(pathname: string): RemoteModuleProps {
  return { route: pathname.startsWith('/pricing') ? '/pricing' : '/', params: {} };
}
