import { DEFAULT_REGION, type CurrencyCode } from '@hangar/money';
import { GROUPS, featureStatus, visibleEntries, type Catalog, type CatalogEntry } from '@hangar/api-client';

/**
 * The buyer's selection. The first cut holds plan, regions and add-ons; the
 * full configuration of spec 000 §3 (e-mail, quantity, charts, promo codes, ...)
 * grows here.
 */
export interface Configuration {
  currency: CurrencyCode;
  plan: string | undefined;
  /** The region the plan includes (hidden catalogue entry, e.g. included_geo_us). */
  includedRegion: string;
  /** Extra regions bought (add_geo_*). */
  regions: string[];
  /** Feature add-ons. */
  addOns: string[];
}

export const DEFAULT_PLAN = 'pro_plus';

export type Action =
  | { type: 'selectPlan'; plan: string }
  | { type: 'toggleRegion'; code: string }
  | { type: 'toggleAddOn'; code: string };

/** The extra region matching the included one: included_geo_us <-> add_geo_us. */
export function addRegionFor(includedRegion: string): string {
  return includedRegion.replace(/^included_/, 'add_');
}

/** Plans, regions and add-ons a buyer can pick in this currency. */
export interface Offer {
  plans: CatalogEntry[];
  regions: CatalogEntry[];
  addOns: CatalogEntry[];
  includedRegion: CatalogEntry | undefined;
}

export function offerFor(catalog: Catalog, currency: CurrencyCode, includedRegion: string): Offer {
  const included = catalog.groups[GROUPS.REGIONS]?.entries.find((e) => e.addOnCode === includedRegion);
  return {
    plans: visibleEntries(catalog, GROUPS.INDIVIDUAL, currency),
    regions: visibleEntries(catalog, GROUPS.REGIONS, currency).filter((e) => e.addOnCode !== addRegionFor(includedRegion)),
    addOns: visibleEntries(catalog, GROUPS.FEATURES, currency),
    includedRegion: included,
  };
}

/** Can the feature be bought with the plan (not included, and sold with it)? */
export function buyableWith(addOn: CatalogEntry, plan: string | undefined, plans: readonly CatalogEntry[]): boolean {
  return featureStatus(addOn, plan, plans) === 'addon';
}

/**
 * Start state: pro_plus (or the first plan offered) plus the currency's
 * default region; codes from the addOns query preselect plan, regions and
 * add-ons when the catalogue offers them.
 */
export function initialConfiguration(catalog: Catalog, currency: CurrencyCode, preselected: readonly string[] = []): Configuration {
  const server = catalog.currencies.find((c) => c.code === currency)?.defaultRegion;
  const includedRegion = server || DEFAULT_REGION[currency];
  const offer = offerFor(catalog, currency, includedRegion);
  const has = (list: CatalogEntry[], code: string) => list.some((e) => e.addOnCode === code);
  const plan =
    preselected.find((c) => has(offer.plans, c)) ??
    (has(offer.plans, DEFAULT_PLAN) ? DEFAULT_PLAN : offer.plans[0]?.addOnCode);
  const addOns = preselected.filter((c) => has(offer.addOns, c));
  return {
    currency,
    plan,
    includedRegion,
    regions: preselected.filter((c) => has(offer.regions, c)),
    addOns: addOns.filter((c) => buyableWith(offer.addOns.find((e) => e.addOnCode === c)!, plan, offer.plans)),
  };
}

const toggle = (list: string[], code: string) => (list.includes(code) ? list.filter((c) => c !== code) : [...list, code]);

export function reduce(state: Configuration, action: Action, catalog: Catalog): Configuration {
  switch (action.type) {
    case 'selectPlan': {
      const offer = offerFor(catalog, state.currency, state.includedRegion);
      // Add-ons the new plan already includes, or is not sold with, are dropped.
      const addOns = state.addOns.filter((c) => {
        const e = offer.addOns.find((x) => x.addOnCode === c);
        return e !== undefined && buyableWith(e, action.plan, offer.plans);
      });
      return { ...state, plan: action.plan, addOns };
    }
    case 'toggleRegion':
      return { ...state, regions: toggle(state.regions, action.code) };
    case 'toggleAddOn':
      return { ...state, addOns: toggle(state.addOns, action.code) };
  }
}

/** The add-on codes of the selection, as checkout will receive them. */
export function selectedCodes(c: Configuration): string[] {
  return [c.plan, c.includedRegion, ...c.regions, ...c.addOns].filter((x): x is string => Boolean(x));
}
