import { featureStatus, visibleEntries, type Catalog, type CatalogEntry } from '@hangar/api-client';
import type { CurrencyCode } from '@hangar/money';
import type { Option } from './Choices';

/** A group's entries the buyer sees in the currency (no hidden or deprecated ones). */
export function groupEntries(catalog: Catalog, group: string, currency: CurrencyCode): CatalogEntry[] {
  return visibleEntries(catalog, group, currency);
}

/** An add-on as a choice: checked when in the cart, disabled when allocated to users. */
export function optionOf(e: CatalogEntry, addOns: readonly string[], locked: readonly string[]): Option {
  const isLocked = locked.includes(e.addOnCode);
  return {
    entry: e,
    checked: addOns.includes(e.addOnCode),
    disabled: isLocked,
    popover: isLocked ? 'This product is allocated to users. Change it on the users page of the product web site.' : undefined,
  };
}

/** The catalogue group the plan belongs to (the plan's siblings read forPlans against it). */
export function planGroupOf(catalog: Catalog, plan: string | undefined): readonly CatalogEntry[] {
  return plan ? (Object.values(catalog.groups).find((g) => g.entries.some((e) => e.addOnCode === plan))?.entries ?? []) : [];
}

/**
 * A feature as a choice: what the plan includes or cannot have, read from forPlans exactly
 * as /pricing and checkout read it (featureStatus; checkout's rules.includedWith).
 */
export function featureOptionOf(e: CatalogEntry, plan: string | undefined, planGroup: readonly CatalogEntry[], addOns: readonly string[], locked: readonly string[]): Option {
  const option = optionOf(e, addOns, locked);
  const status = plan ? featureStatus(e, plan, planGroup) : 'addon';
  const planName = planGroup.find((x) => x.addOnCode === plan)?.title ?? '';
  if (status === 'included') return { ...option, checked: true, disabled: true, note: `Included with ${planName}`, priceLabel: 'Included', quietNote: true };
  if (status === 'unavailable') return { ...option, checked: false, disabled: true, note: `Not available with ${planName}`, priceLabel: 'Not available', quietNote: true };
  return option;
}
