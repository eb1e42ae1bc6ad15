// Exposed as 'buy/Module': the buy page and its sub-pages. First cut: /buy
// shows plans, regions and add-ons from the live catalogue; the other paths
// are placeholders until their issues land.
import { useEffect } from 'react';
import type { RemoteModuleProps } from '@hangar/ui';
import { BuyPage } from './BuyPage';

function Placeholder({ title, children }: { title: string; children: string }) {
  return (
    <section className="buy" data-remote="buy">
      <h1>{title}</h1>
      <p>{children}</p>
    </section>
  );
}

export default function BuyModule({ route }: RemoteModuleProps) {
  // The military-international path is rewritten in the address bar to the military path.
  useEffect(() => {
    if (route === '/buy/military_intl' && typeof window !== 'undefined' && window.location.pathname.startsWith('/buy/military_intl')) {
      window.history.replaceState(window.history.state, '', `/buy/military${window.location.search}${window.location.hash}`);
    }
  }, [route]);

  switch (route) {
    case '/buy/success':
      return <Placeholder title="Thank you for your purchase">Your receipt will be shown here.</Placeholder>;
    case '/buy/sales-mode':
      return <Placeholder title="Sales mode">Sales mode for card readers will be configured here.</Placeholder>;
    case '/buy/military':
    case '/buy/military_intl':
      return <Placeholder title="Military Plans">Military flight-bag plans will be configured here.</Placeholder>;
    default:
      return <BuyPage />;
  }
}
