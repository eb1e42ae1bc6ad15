// Exposed as 'oneoff/Module'. First cut: a placeholder that shows which cart
// was asked for; the one-off purchase (spec 001 §2) comes in a later issue.
import type { RemoteModuleProps } from '@hangar/ui';

export default function OneOffModule({ params }: RemoteModuleProps) {
  return (
    <section data-remote="oneoff" aria-labelledby="oneoff-title">
      <h1 id="oneoff-title">COMPLETE YOUR ORDER</h1>
      <p>
        Cart <code data-testid="cart-id">{params.cartId ?? ''}</code>. One-off purchases will be completed here soon.
      </p>
    </section>
  );
}
