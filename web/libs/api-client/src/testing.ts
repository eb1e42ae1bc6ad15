/**
 * A small catalogue in the wire shape of GET /account/api/subscription/available/add-ons,
 * for unit tests of the pages. Typed by the generated definitions, so a contract
 * change breaks the fixture at compile time.
 */
import type { WireAvailablePlans, WireEntry } from './catalog';

type Cents = Partial<Record<'USD' | 'CAD' | 'EUR' | 'GBP' | 'AUD', number>>;

const price = (c: Cents): WireEntry['price'] =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, { amountInCents: v }]));
const included = (...codes: string[]): WireEntry['price'] => Object.fromEntries(codes.map((c) => [c, { included: true }]));

export const catalogFixture: WireAvailablePlans = {
  version: '2026.11.0-test',
  currencies: [
    { code: 'USD', symbol: '$', defaultRegion: 'included_geo_us', defaultCountry: 'US', default: true },
    { code: 'CAD', symbol: 'CA$', defaultRegion: 'included_geo_ca', defaultCountry: 'CA' },
    { code: 'EUR', symbol: '€', defaultRegion: 'included_geo_eu' },
    { code: 'GBP', symbol: '£', defaultRegion: 'included_geo_eu', defaultCountry: 'GB' },
    { code: 'AUD', symbol: 'AU$', defaultRegion: 'included_geo_us', defaultCountry: 'AU' },
  ],
  // FEATURES.forPlans names the plans that can buy the feature (as in the catalogue):
  // vectormap is included from Essential up, syn_vis in Premium, active_navlog is not
  // sold with Starter.
  plans: {
    INDIVIDUAL: {
      title: 'Individual Plans',
      entries: [
        {
          addOnCode: 'performance', title: 'Premium', description: 'Everything in Essential plus advanced performance tools.',
          group: 'INDIVIDUAL', category: 'PLAN', planType: 'individual', order: 30,
          price: price({ USD: 37000, CAD: 49900, EUR: 34400, GBP: 29600, AUD: 55700 }),
        },
        {
          addOnCode: 'basic_plus', title: 'Starter', description: 'Moving maps, weather and flight planning.',
          group: 'INDIVIDUAL', category: 'PLAN', planType: 'individual', order: 10,
          price: price({ USD: 12500, CAD: 16900, EUR: 11600, GBP: 10000, AUD: 18800 }),
        },
        {
          addOnCode: 'pro_plus', title: 'Essential', description: 'Starter plus geo-referenced charts and hazard awareness.',
          group: 'INDIVIDUAL', category: 'PLAN', planType: 'individual', order: 20,
          price: price({ USD: 19999, CAD: 26999, EUR: 18599, GBP: 15999, AUD: 29999 }),
        },
        { addOnCode: 'pro', title: 'Pro (legacy)', group: 'INDIVIDUAL', planType: 'individual', order: 40, hidden: true, price: price({ USD: 14999 }) },
      ],
    },
    REGIONS: {
      title: 'Regions',
      entries: [
        { addOnCode: 'included_geo_us', title: 'United States', hidden: true, planType: 'region', price: included('USD', 'AUD') },
        { addOnCode: 'included_geo_eu', title: 'Europe', hidden: true, planType: 'region', price: included('EUR', 'GBP') },
        { addOnCode: 'add_geo_us', title: 'United States', planType: 'region', order: 10, price: price({ USD: 10000, CAD: 13500, EUR: 9300, GBP: 8000, AUD: 15000 }) },
        { addOnCode: 'add_geo_eu', title: 'Europe', planType: 'region', order: 20, price: price({ USD: 10000, CAD: 13500, EUR: 9300, GBP: 8000, AUD: 15000 }) },
        { addOnCode: 'add_geo_ca', title: 'Canada & Alaska', planType: 'region', order: 15, price: price({ USD: 10000, CAD: 13500 }) },
      ],
    },
    FEATURES: {
      title: 'Add-ons',
      entries: [
        { addOnCode: 'syn_vis', title: 'Synthetic Vision', planType: 'feature', order: 20, forPlans: ['basic_plus', 'pro_plus'], price: price({ USD: 2500, CAD: 3400, EUR: 2300, GBP: 2000, AUD: 3800 }) },
        { addOnCode: 'logbook', title: 'Logbook', planType: 'feature', order: 40, price: price({ USD: 5000, CAD: 6800, EUR: 4600, GBP: 4000, AUD: 7500 }) },
        { addOnCode: 'vectormap', title: 'Aeronautical Maps', planType: 'feature', order: 10, forPlans: ['basic_plus'], price: price({ USD: 2500, CAD: 3400, EUR: 2300, GBP: 2000, AUD: 3800 }) },
        { addOnCode: 'active_navlog', title: 'Active Navlog', planType: 'feature', order: 70, forPlans: ['pro_plus', 'performance'], price: price({ USD: 24000, CAD: 32400, EUR: 22300, GBP: 19200, AUD: 36000 }) },
        { addOnCode: 'old_thing', title: 'Deprecated feature', deprecated: true, planType: 'feature', order: 99, price: price({ USD: 100 }) },
      ],
    },
  },
};
