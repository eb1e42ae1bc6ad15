// Exposed as 'gift/Module'. First cut: a placeholder; the gift-certificate
// flow (spec 001 §2, §9) comes in a later issue.
import type { RemoteModuleProps } from '@hangar/ui';

export default function GiftModule(_props: RemoteModuleProps) {
  return (
    <section data-remote="gift" aria-labelledby="gift-title">
      <h1 id="gift-title">BUY A GIFT CERTIFICATE</h1>
      <p>Give a year of flight planning. Gift certificates will be available here soon.</p>
    </section>
  );
}
