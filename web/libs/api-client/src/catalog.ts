import type { components, operations, paths } from './generated/hangar/catalog/v1/catalog';
import type { Client } from 'openapi-fetch';
import { unwrap } from './typed';

type definitions = components['schemas'];

/** Wire types, straight from the generated OpenAPI definitions. */
export type WireAvailablePlans = definitions['v1ListAvailablePlansResponse'];
export type WireEntry = definitions['v1Entry'];
export type WirePrice = definitions['v1Price'];
export type WireCurrency = definitions['v1Currency'];
export type WirePlanGroup = definitions['v1PlanGroup'];
export type AvailablePlansQuery = NonNullable<operations['CatalogService_ListAvailablePlans']['parameters']['query']>;

export const AVAILABLE_PLANS_PATH = '/account/api/subscription/available/add-ons' as const;

/** Response group codes the pages use. */
export const GROUPS = {
  INDIVIDUAL: 'INDIVIDUAL',
  REGIONS: 'REGIONS',
  FEATURES: 'FEATURES',
  BUSINESS: 'BUSINESS',
  MILITARY: 'MILITARY',
  JEPPESEN_PLANS: 'JEPPESEN_PLANS',
  NATIONAL_VFR_PACKAGES: 'NATIONAL_VFR_PACKAGES',
} as const;

/** The three individual plans, in order. */
export const INDIVIDUAL_PLAN_CODES = ['basic_plus', 'pro_plus', 'performance'] as const;

/** A price after normalisation: always a number of cents and an included flag. */
export type Price = Required<Pick<WirePrice, 'amountInCents' | 'included'>>;

/**
 * A catalogue entry after normalisation: zero values the wire omits are filled
 * in, so pages never branch on `undefined`.
 */
export type CatalogEntry = Omit<WireEntry, 'addOnCode' | 'title' | 'price' | 'order' | 'hidden' | 'deprecated'> & {
  addOnCode: string;
  title: string;
  order: number;
  hidden: boolean;
  deprecated: boolean;
  /** Currency code -> price; a missing currency is not sold in it. */
  price: Readonly<Record<string, Price>>;
};

export type Currency = Omit<WireCurrency, 'code' | 'symbol' | 'default'> & { code: string; symbol: string; default: boolean };

export interface PlanGroup {
  code: string;
  title: string;
  entries: readonly CatalogEntry[];
}

export interface Catalog {
  version: string;
  currencies: readonly Currency[];
  groups: Readonly<Record<string, PlanGroup>>;
}

function toNumber(v: unknown): number {
  // proto3 JSON writes 64-bit integers as strings; accept both.
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : 0;
  return Number.isFinite(n) ? n : 0;
}

export function normalizeEntry(e: WireEntry): CatalogEntry | undefined {
  if (!e || typeof e.addOnCode !== 'string' || e.addOnCode === '') return undefined;
  const price: Record<string, Price> = {};
  for (const [code, p] of Object.entries(e.price ?? {})) {
    if (!p) continue;
    price[code] = { amountInCents: toNumber(p.amountInCents), included: p.included === true };
  }
  return {
    ...e,
    addOnCode: e.addOnCode,
    title: e.title ?? e.addOnCode,
    order: toNumber(e.order),
    hidden: e.hidden === true,
    deprecated: e.deprecated === true,
    price,
  };
}

export function normalizeCatalog(wire: WireAvailablePlans | undefined | null): Catalog {
  const groups: Record<string, PlanGroup> = {};
  for (const [code, g] of Object.entries(wire?.plans ?? {})) {
    const entries = (g?.entries ?? []).map(normalizeEntry).filter((x): x is CatalogEntry => x !== undefined);
    groups[code] = { code, title: g?.title ?? code, entries };
  }
  const currencies = (wire?.currencies ?? [])
    .filter((c): c is WireCurrency & { code: string } => typeof c?.code === 'string' && c.code !== '')
    .map((c) => ({ ...c, code: c.code, symbol: c.symbol ?? c.code, default: c.default === true }));
  return { version: wire?.version ?? '', currencies, groups };
}

/** The price of an entry in a currency, or undefined when it is not sold in it. */
export function priceIn(entry: CatalogEntry, currency: string): Price | undefined {
  return entry.price[currency];
}

/**
 * What a buyer sees of a group in a currency: not hidden, not deprecated, sold
 * in the currency; ordered by `order`, then title.
 */
export function visibleEntries(catalog: Catalog, group: string, currency: string): CatalogEntry[] {
  return [...(catalog.groups[group]?.entries ?? [])]
    .filter((e) => !e.hidden && !e.deprecated && priceIn(e, currency) !== undefined)
    .sort((a, b) => a.order - b.order || a.title.localeCompare(b.title));
}

/** Looks an entry up by code in any group. */
export function findEntry(catalog: Catalog, addOnCode: string): CatalogEntry | undefined {
  for (const g of Object.values(catalog.groups)) {
    const e = g.entries.find((x) => x.addOnCode === addOnCode);
    if (e) return e;
  }
  return undefined;
}

export type FeatureStatus = 'addon' | 'included' | 'unavailable';

/**
 * A feature (FEATURES entry) for a plan. The catalogue's forPlans names the
 * plans that can buy the feature because they do not already include it. An
 * empty list means every plan can buy it. A plan that is not listed includes it
 * when a lower tier (smaller order) of the same plans can buy it, as Essential
 * includes what Starter buys; otherwise the feature is not sold with that plan.
 */
export function featureStatus(feature: CatalogEntry, plan: string | undefined, plans: readonly CatalogEntry[]): FeatureStatus {
  const forPlans = feature.forPlans ?? [];
  if (forPlans.length === 0) return 'addon';
  if (plan === undefined) return 'unavailable';
  if (forPlans.includes(plan)) return 'addon';
  const order = plans.find((p) => p.addOnCode === plan)?.order;
  if (order === undefined) return 'unavailable';
  const lowerTierBuys = plans.some((p) => p.order < order && forPlans.includes(p.addOnCode));
  return lowerTierBuys ? 'included' : 'unavailable';
}

export interface CatalogApi {
  /** GET /account/api/subscription/available/add-ons */
  availablePlans(query?: AvailablePlansQuery, signal?: AbortSignal): Promise<Catalog>;
}

export type CatalogClient = Client<paths>;

export function catalogApi(client: CatalogClient): CatalogApi {
  return {
    async availablePlans(query = {}, signal) {
      // An empty currency means "every currency": leave it out of the URL.
      const q = query.currency ? { currency: query.currency } : {};
      const wire = await unwrap(client.GET(AVAILABLE_PLANS_PATH, { params: { query: q }, signal }));
      return normalizeCatalog(wire);
    },
  };
}
export type CatalogDefinitions = definitions;
