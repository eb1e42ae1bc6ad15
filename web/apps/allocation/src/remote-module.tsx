// Exposed as 'allocation/Module': the organization's licence allocation panel at
// /account/allocation (spec 001 §2), on the allocation service's routes.
import { useMemo, useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { RemoteModuleProps } from '@hangar/ui';
import { AllocationPanel } from './AllocationPanel';
import { createAllocationApi, type AllocationApi } from './api';

export interface AllocationModuleProps extends RemoteModuleProps {
  /** Injected in tests; the store's same-origin API otherwise. */
  api?: AllocationApi;
}

export default function AllocationModule({ api }: AllocationModuleProps) {
  const client = useMemo(() => api ?? createAllocationApi(), [api]);
  // Server state lives in one TanStack Query client per mounted panel.
  const [queries] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  return (
    <QueryClientProvider client={queries}>
      <AllocationPanel api={client} />
    </QueryClientProvider>
  );
}
