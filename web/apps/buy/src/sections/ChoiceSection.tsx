import type { ReactNode } from 'react';
import { SectionBlock } from '@hangar/ui';
import { formatPrice, type CurrencyCode } from '@hangar/money';
import { priceIn, type CatalogEntry } from '@hangar/api-client';

export interface ChoiceSectionProps {
  id: 'regions' | 'addOns';
  title: string;
  intro?: ReactNode;
  entries: readonly CatalogEntry[];
  currency: CurrencyCode;
  selected: readonly string[];
  onToggle: (code: string) => void;
  /**
   * Entries that cannot be toggled: 'included' ones show checked, others
   * unchecked; both disabled, with the note.
   */
  locked?: (entry: CatalogEntry) => { included: boolean; note: string } | undefined;
  note?: string;
  expanded: boolean;
  onExpandedChange: (expanded: boolean) => void;
}

/** A list of checkboxes with prices: the regions and add-ons sections. */
export function ChoiceSection({
  id, title, intro, entries, currency, selected, onToggle, locked, note, expanded, onExpandedChange,
}: ChoiceSectionProps) {
  return (
    <SectionBlock id={id} title={title} note={note} expanded={expanded} onToggle={onExpandedChange}>
      {intro ? <p className="buy-hint">{intro}</p> : null}
      <fieldset className="buy-options">
        <legend className="h-visually-hidden">{title}</legend>
        {entries.map((e) => {
          const price = priceIn(e, currency);
          const lock = locked?.(e);
          const included = lock?.included === true;
          const inputId = `${id}-${e.addOnCode}`;
          return (
            <div className={`buy-option${included ? ' buy-option--included' : lock ? ' buy-option--unavailable' : ''}`} key={e.addOnCode} data-addon={e.addOnCode}>
              <input
                type="checkbox"
                id={inputId}
                checked={included || (!lock && selected.includes(e.addOnCode))}
                disabled={Boolean(lock)}
                onChange={() => onToggle(e.addOnCode)}
              />
              <label htmlFor={inputId}>
                <span className="buy-option__title">{e.title}</span>
                {e.description ? <span className="buy-option__desc">{e.description}</span> : null}
                {lock ? <span className={included ? 'buy-option__note' : 'buy-option__desc'}>{lock.note}</span> : null}
              </label>
              <span className="buy-option__price">
                {included || price?.included ? 'Included' : price ? formatPrice(price.amountInCents, currency, 'year') : ''}
              </span>
            </div>
          );
        })}
      </fieldset>
      {entries.length === 0 ? <p>Nothing to add in {currency}.</p> : null}
    </SectionBlock>
  );
}
