// Exposed as 'gift/Module': /gift, /gift/{values} and /gift/{values}/{email} (spec 001 §2).
import type { RemoteModuleProps } from '@hangar/ui';
import { GiftPage } from './GiftPage';

export default function GiftModule({ params, navigate }: RemoteModuleProps) {
  return <GiftPage rest={params['*']} go={(u) => (navigate ? navigate(u) : window.location.assign(u))} />;
}
