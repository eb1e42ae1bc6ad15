import { memo, useMemo } from 'react';
import type { CurrencyCode } from '@hangar/money';
import type { Catalog } from '@hangar/api-client';
import { AvionicsLinker } from '../avionics/AvionicsLinker';
import type { Action } from '../configuration';
import { useEvent, useStable } from '../render';
import { ChartsSection as ChartsSectionView, type Platform } from './Charts';
import { ChoiceSection, type SectionShell } from './Choices';
import { featureOptionOf, groupEntries, optionOf, planGroupOf } from './options';
import s from '../buy.module.css';

// A query answer renders the configurator again; this section renders again only when what
// it shows changed (its props are kept stable: render.ts).
const ChartsSection = memo(ChartsSectionView);

interface Cart {
  catalog: Catalog;
  currency: CurrencyCode;
  addOns: readonly string[];
  /** Add-ons allocated to users: not to be changed here. */
  locked: readonly string[];
}

export interface AddOnsSectionProps extends Cart, SectionShell {
  plan: string | undefined;
  business: boolean;
  onToggle: (code: string) => void;
}

/** Section 8: the features (and a business's features), as the plan includes or allows them. */
export function AddOnsSection({ catalog, currency, addOns, locked, plan, business, onToggle, ...shell }: AddOnsSectionProps) {
  const group = planGroupOf(catalog, plan);
  const feature = (g: string) => groupEntries(catalog, g, currency).map((e) => featureOptionOf(e, plan, group, addOns, locked));
  const options = useStable([...feature('FEATURES'), ...(business ? feature('BUSINESS_FEATURES') : [])]);
  return <ChoiceSection id="addOns" title="Add-ons" options={options} currency={currency} onChange={onToggle} {...shell} />;
}

export interface OptionalSectionsProps extends Cart {
  /** The sections the preview shows. */
  charts: boolean;
  chartsDisabled: boolean;
  militarySupplements: boolean;
  military: boolean;
  bundle: boolean;
  /** The logged-in account, whose avionics partner account can be linked. */
  avionicsAccount: string | undefined;
  accountNumber: string;
  onAccountNumber: (v: string) => void;
  onToggle: (code: string) => void;
  onChoose: (a: Action) => void;
  shell: (id: string) => SectionShell;
}

/** Sections 9–14: the optional sections, two collapsed headers to a line on desktop. */
export function OptionalSections({ catalog, currency, addOns, locked, charts, chartsDisabled, militarySupplements, military, bundle, avionicsAccount, accountNumber, onAccountNumber, onToggle, onChoose, shell }: OptionalSectionsProps) {
  const options = (g: string) => groupEntries(catalog, g, currency).map((e) => optionOf(e, addOns, locked));
  const milSupp = useStable(options('JEPPESEN_MILITARY_SUPPLEMENT_PLANS_APP').filter((o) => !o.entry.addOnCode.endsWith('_intl')));
  const jetRunway = useStable(options('JET_RUNWAY_ANALYSIS'));
  const tpRunway = useStable(options('TURBOPROP_RUNWAY_ANALYSIS'));
  const vfr = useStable([...options('NATIONAL_VFR_PACKAGES'), ...options('ALL_JEPPESEN_EU_CHART')]);
  const jetMaker = useStable((catalog.groups.JET_MAKER_RUNWAY_ANALYSIS?.entries ?? []).map((e) => ({ ...optionOf(e, addOns, locked), priceLabel: 'Included' })));
  const coverages = useStable(groupEntries(catalog, 'JEPPESEN_PLANS', currency));
  const onChart = useEvent((code: string, platform: Platform) => onChoose({ type: 'chart', addOnCode: code, platform: platform === 'None' ? 'Both' : platform, checked: platform !== 'None' }));
  const onJetMaker = useEvent((code: string) => onChoose({ type: 'pick', code, group: jetMaker.map((o) => o.entry.addOnCode) }));
  // Links the avionics databases to a partner account; nothing without one.
  const avionics = useMemo(() => <AvionicsLinker accountUuid={avionicsAccount} />, [avionicsAccount]);
  const runway = !military && !bundle;
  return (
    <div className={s.buyExtras}>
      {/* 9. chart-provider IFR */}
      {charts ? (
        <ChartsSection coverages={coverages} addOns={addOns} currency={currency} disabled={chartsDisabled} military={military} accountNumber={accountNumber} onAccountNumber={onAccountNumber} onChoose={onChart} {...shell('jeppesen')}>
          {avionics}
        </ChartsSection>
      ) : null}
      {/* 10. military supplements */}
      {militarySupplements && milSupp.length > 0 ? (
        <ChoiceSection id="militarySupplements" title="Jeppesen Military Supplements" options={milSupp} currency={currency} onChange={onToggle} {...shell('militarySupplements')} />
      ) : null}
      {/* 11–12. runway analysis */}
      {runway ? (
        <>
          <ChoiceSection id="jetRunway" title="Jet Runway Analysis" intro="Runway analysis by aircraft maker, for the aircraft of the model you buy." options={jetRunway} currency={currency} onChange={onToggle} {...shell('jetRunway')} />
          <ChoiceSection id="turbopropRunway" title="Turboprop Runway Analysis" options={tpRunway} currency={currency} onChange={onToggle} {...shell('turbopropRunway')} />
        </>
      ) : null}
      {/* 13. VFR packages */}
      {runway ? <ChoiceSection id="vfr" title="VFR Packages" options={vfr} currency={currency} onChange={onToggle} {...shell('vfr')} /> : null}
      {/* 14. jet-maker runway analysis (bundle) */}
      {bundle ? <ChoiceSection id="jetMaker" title="HondaJet Runway Analysis" type="radio" options={jetMaker} currency={currency} onChange={onJetMaker} {...shell('jetMaker')} /> : null}
    </div>
  );
}
