import { lazy, Suspense, useMemo } from 'react';
import type { CurrencyCode } from '@hangar/money';
import type { Catalog, CatalogEntry } from '@hangar/api-client';
import type { Action } from '../configuration';
import { useEvent, useStable } from '../render';
import { ChoiceSection, type Option, type SectionShell } from './Choices';
import type { CoveredRegion } from './CoverageMap';
import { groupEntries } from './options';
import { regionKey } from './regionKey';
import s from '../buy.module.css';

// The coverage map (d3-geo and the outlines) is its own chunk, outside /buy's initial budget.
const CoverageMap = lazy(() => import('./CoverageMap'));

const ALLOCATED =
  'Your licenses are allocated to users, so regions follow your subscription. Change allocations on the users page of the product web site.';

/** The included region's name, without its "(included)" suffix. */
export function regionTitle(entries: readonly CatalogEntry[], code: string | undefined): string {
  const t = entries.find((e) => e.addOnCode === code)?.title ?? '';
  const name = t.replace(/\s*\(included\)\s*$/i, '').trim();
  return name === '' ? 'one region' : name;
}

export interface RegionsSectionProps extends SectionShell {
  catalog: Catalog;
  currency: CurrencyCode;
  addOns: readonly string[];
  /** Add-ons allocated to users: not to be changed here. */
  locked: readonly string[];
  /** The server's choice: one region (radio) or any (checkbox). */
  mode: 'radio' | 'checkbox';
  /** The regions follow allocated licences. */
  disabled: boolean;
  errors: string[];
  onChoose: (a: Action) => void;
}

/** Section 7: the plan's included region, the extra ones, and the coverage map. */
export function RegionsSection({ catalog, currency, addOns, locked, mode, disabled, errors, onChoose, ...shell }: RegionsSectionProps) {
  const entries = catalog.groups.REGIONS?.entries ?? [];
  const included = addOns.find((c) => c.startsWith('included_'));
  const includedAsAdd = included?.replace(/^included_/, 'add_');
  const options: Option[] = useStable(
    groupEntries(catalog, 'REGIONS', currency).map((e) => {
      const isIncluded = e.addOnCode === includedAsAdd;
      return {
        entry: e,
        checked: isIncluded || addOns.includes(e.addOnCode),
        disabled: isIncluded || disabled || locked.includes(e.addOnCode),
        note: isIncluded ? 'Included with your plan' : undefined,
        priceLabel: isIncluded ? 'Included' : undefined,
        popover: disabled ? ALLOCATED : undefined,
      };
    }),
  );
  const extra = options.filter((o) => o.checked && o.entry.addOnCode !== includedAsAdd).map((o) => o.entry.title);
  const summary = `${regionTitle(entries, included)} included${extra.length ? ` + ${extra.join(', ')}` : ''}`;
  const covered: CoveredRegion[] = useStable(
    options.flatMap((o) => {
      const key = regionKey(o.entry.addOnCode);
      return o.checked && key ? [{ key, title: o.entry.title }] : [];
    }),
  );
  const onRegion = useEvent((code: string) =>
    onChoose(mode === 'radio' ? { type: 'pick', code: code.replace(/^add_/, 'included_'), group: entries.map((e) => e.addOnCode) } : { type: 'toggle', code }),
  );
  const mapShown = shell.expanded;
  const map = useMemo(
    () =>
      mapShown ? (
        <Suspense fallback={<div className={s.buyMapSvg} aria-hidden="true" />}>
          <CoverageMap regions={covered} />
        </Suspense>
      ) : null,
    [mapShown, covered],
  );
  return (
    <ChoiceSection
      id="regions"
      title="Regions"
      type={mode}
      intro={disabled ? 'Your regions follow your allocated licenses.' : `Your plan includes ${regionTitle(entries, included)}. Add more regions:`}
      options={options}
      currency={currency}
      compact
      summary={summary}
      onChange={onRegion}
      errors={errors}
      {...shell}
    >
      {map}
    </ChoiceSection>
  );
}
