// Exposed as 'allocation/Module': the organization's licence allocation panel at
// /account/allocation (spec 001 §2), on the allocation service's routes.
import { useMemo } from 'react';
import type { RemoteModuleProps } from '@hangar/ui';
import { AllocationPanel } from './AllocationPanel';
import { createAllocationApi, type AllocationApi } from './api';

export interface AllocationModuleProps extends RemoteModuleProps {
  /** Injected in tests; the store's same-origin API otherwise. */
  api?: AllocationApi;
}

export default function AllocationModule({ api }: AllocationModuleProps) {
  const client = useMemo(() => api ?? createAllocationApi(), [api]);
  return <AllocationPanel api={client} />;
}
