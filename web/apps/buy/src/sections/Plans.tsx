import { SectionBlock, useTapOrClick } from '@hangar/ui';
import type { CurrencyCode } from '@hangar/money';
import type { Catalog, CatalogEntry } from '@hangar/api-client';
import { useStable } from '../render';
import { OptionList, priceText, type Option, type SectionShell } from './Choices';
import { groupEntries } from './options';
import s from '../buy.module.css';

/** The catalogue groups that hold plans. */
export const PLAN_GROUPS = ['INDIVIDUAL', 'THREE_MONTH', 'BYOP', 'BUSINESS', 'MILITARY', 'BUNDLE'];

export interface PlanFamily {
  id: string;
  title: string;
  entries: CatalogEntry[];
}

export interface PlanKind {
  /** The HondaJet bundle page (?hjopaBundle). */
  bundle: boolean;
  /** A military cart, or the military page. */
  military: boolean;
  /** The international military plans (/buy/military_intl). */
  international: boolean;
}

/** The plan families the page offers: the bundle, the military plans, or individual and business. */
export function planFamilies(catalog: Catalog, currency: CurrencyCode, kind: PlanKind): PlanFamily[] {
  if (kind.bundle) return [{ id: 'bundle', title: 'Jet-Maker Bundles', entries: groupEntries(catalog, 'BUNDLE', currency) }];
  if (kind.military) {
    const intl = (e: CatalogEntry) => e.addOnCode.endsWith('_intl');
    return [{ id: 'military', title: 'Military Plans', entries: groupEntries(catalog, 'MILITARY', currency).filter((e) => (kind.international ? intl(e) : !intl(e))) }];
  }
  return [
    { id: 'individual', title: 'Individual Plans', entries: [...groupEntries(catalog, 'INDIVIDUAL', currency), ...groupEntries(catalog, 'THREE_MONTH', currency)] },
    { id: 'business', title: 'Business Plans', entries: groupEntries(catalog, 'BUSINESS', currency) },
  ];
}

export interface PlansSectionProps extends SectionShell, PlanKind {
  catalog: Catalog;
  currency: CurrencyCode;
  /** The plan in the cart. */
  plan: string | undefined;
  /** A refusal of the plan itself (a child account's purchase), shown in the section. */
  error?: string;
  onPlan: (code: string) => void;
  /** A plan picked with the pointer collapses the section. */
  onPointerChoice: () => void;
}

/** Section 6: the plans, one list per family. */
export function PlansSection({ catalog, currency, plan, error, onPlan, onPointerChoice, note, expanded, onExpandedChange, ...kind }: PlansSectionProps) {
  const verb = useTapOrClick();
  const families = planFamilies(catalog, currency, kind);
  const options = useStable(families.map((f) => f.entries.map((e): Option => ({ entry: e, checked: plan === e.addOnCode }))));
  const entry = families.flatMap((f) => f.entries).find((e) => e.addOnCode === plan);
  const summary = entry ? `${entry.title} · ${priceText(entry, currency)}` : 'Choose a plan';
  return (
    <SectionBlock id="plans" title="Plans" note={note} expanded={expanded} onToggle={onExpandedChange} summary={summary}>
      <p className={s.buyHint}>{verb} a plan to select it. Each plan includes one region.</p>
      {error ? <p className={s.buyErrorInline}>{error}</p> : null}
      {families.map((f, i) => (
        <div key={f.id} className={s.buySubblock} data-family={f.id}>
          {families.length > 1 ? <h3>{f.title}</h3> : null}
          <OptionList name="plan" legend={f.title} type="radio" currency={currency} options={options[i]!} onChange={onPlan} onPointerChoice={onPointerChoice} />
        </div>
      ))}
    </SectionBlock>
  );
}
