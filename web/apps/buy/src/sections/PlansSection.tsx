import { SectionBlock, useTapOrClick } from '@hangar/ui';
import { formatPrice, type CurrencyCode } from '@hangar/money';
import { priceIn, type CatalogEntry } from '@hangar/api-client';

export interface PlansSectionProps {
  plans: readonly CatalogEntry[];
  currency: CurrencyCode;
  selected: string | undefined;
  onSelect: (plan: string) => void;
  note?: string;
  expanded: boolean;
  onToggle: (expanded: boolean) => void;
}

export function PlansSection({ plans, currency, selected, onSelect, note, expanded, onToggle }: PlansSectionProps) {
  const verb = useTapOrClick();
  return (
    <SectionBlock id="plans" title="Plans" note={note} expanded={expanded} onToggle={onToggle}>
      <p className="buy-hint">{verb} a plan to select it. Each plan includes one region.</p>
      <fieldset className="buy-options">
        <legend className="h-visually-hidden">Choose a plan</legend>
        {plans.map((p) => {
          const price = priceIn(p, currency);
          const id = `plan-${p.addOnCode}`;
          return (
            <div className={`buy-option${selected === p.addOnCode ? ' buy-option--selected' : ''}`} key={p.addOnCode} data-plan={p.addOnCode}>
              <input type="radio" id={id} name="plan" value={p.addOnCode} checked={selected === p.addOnCode} onChange={() => onSelect(p.addOnCode)} />
              <label htmlFor={id}>
                <span className="buy-option__title">{p.title}</span>
                {p.description ? <span className="buy-option__desc">{p.description}</span> : null}
              </label>
              <span className="buy-option__price" data-testid={`price-${p.addOnCode}`}>
                {price?.included ? 'Included' : price ? formatPrice(price.amountInCents, currency, p.durationMonths === 3 ? 'three-months' : 'year') : ''}
              </span>
            </div>
          );
        })}
      </fieldset>
      {plans.length === 0 ? <p>No plans are sold in {currency}.</p> : null}
    </SectionBlock>
  );
}
