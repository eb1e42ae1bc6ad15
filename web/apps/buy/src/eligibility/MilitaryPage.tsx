import type { ReactNode } from 'react';
import { MilitaryEligibility } from './MilitaryEligibility';

/**
 * /buy/military and /buy/military_intl: without an e-mail in the query the visitor first
 * proves eligibility (the verified flow lands back here with ?email=…, the invoice URL
 * identity answers); with one, the military configuration is shown.
 */
export function MilitaryPage({ route, search = window.location.search, configure }: { route: string; search?: string; configure: ReactNode }) {
  const email = new URLSearchParams(search).get('email');
  if (email) return <>{configure}</>;
  return <MilitaryEligibility subscription={route === '/buy/military_intl' ? 'military_intl' : 'military'} />;
}
