// Exposed as 'marketing/Module': the home page ('/') and the plan comparison ('/pricing').
import type { RemoteModuleProps } from '@hangar/ui';
import { HomePage } from './HomePage';
import { PricingPage } from './PricingPage';
import { ensureMarketingStyles } from './styles';

ensureMarketingStyles();

export default function MarketingModule({ route, navigate }: RemoteModuleProps) {
  return route === '/pricing' ? <PricingPage navigate={navigate} /> : <HomePage navigate={navigate} />;
}
