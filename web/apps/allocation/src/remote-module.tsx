// Exposed as 'allocation/Module'. First cut: a placeholder; the organization
// licence allocation panel (spec 001 §2) comes in a later issue.
import type { RemoteModuleProps } from '@hangar/ui';

export default function AllocationModule(_props: RemoteModuleProps) {
  return (
    <section data-remote="allocation" aria-labelledby="allocation-title">
      <h1 id="allocation-title">Licence allocation</h1>
      <p>Assign your organization&apos;s licences to users and aircraft. This panel will be available here soon.</p>
    </section>
  );
}
