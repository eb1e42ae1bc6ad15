import type { RemoteModuleProps } from '@hangar/ui';

/** Standalone: /gift/370,40/a@b.co → the same params the shell's '/gift/*' route gives. */
export function standaloneProps(pathname: string): RemoteModuleProps {
  const rest = pathname.replace(/^\/(gift\/?)?/, '');
  return { route: '/gift/*', params: { '*': rest } };
}
