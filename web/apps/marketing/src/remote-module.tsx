// Exposed as 'marketing/Module': the home page ('/'), the plan comparison ('/pricing') and
// the privacy policy ('/privacy-policy', '/about/privacy/').
import type { RemoteModuleProps } from '@hangar/ui';
import { HomePage } from './HomePage';
import { PricingPage } from './PricingPage';
import { PrivacyPage } from './PrivacyPage';

export default function MarketingModule({ route, navigate }: RemoteModuleProps) {
  if (route === '/pricing') return <PricingPage navigate={navigate} />;
  if (route === '/privacy-policy' || route === '/about/privacy') return <PrivacyPage navigate={navigate} />;
  return <HomePage navigate={navigate} />;
}
