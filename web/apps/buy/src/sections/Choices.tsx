import { useId, useState, type ReactNode } from 'react';
import { SectionBlock, cx, ui } from '@hangar/ui';
import { formatPrice, type CurrencyCode } from '@hangar/money';
import { priceIn, type CatalogEntry } from '@hangar/api-client';
import s from '../buy.module.css';

export interface SectionShell {
  expanded: boolean;
  onExpandedChange: (open: boolean) => void;
  note?: string;
}

export function priceText(e: CatalogEntry, currency: CurrencyCode): string {
  const p = priceIn(e, currency);
  if (!p) return `Unavailable in ${currency}`;
  if (p.included) return 'Included';
  const term = e.durationMonths === 3 ? 'three-months' : 'year';
  return formatPrice(p.amountInCents, currency, term);
}

/** A popover that says why a control is disabled (allocated products). */
export function InfoPopover({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <span className={s.buyPopover}>
      <button type="button" className={s.buyPopoverBtn} aria-expanded={open} aria-controls={id} aria-label={label} onClick={() => setOpen((o) => !o)}>
        i
      </button>
      {open ? (
        <span role="note" id={id} className={s.buyPopoverBody}>
          {children}
        </span>
      ) : null}
    </span>
  );
}

export interface Option {
  entry: CatalogEntry;
  checked: boolean;
  disabled?: boolean;
  /** Shown under the title (why it is disabled, included, ...). */
  note?: ReactNode;
  popover?: ReactNode;
  priceLabel?: string;
}

export interface OptionListProps {
  name: string;
  legend: string;
  type: 'checkbox' | 'radio';
  options: readonly Option[];
  currency: CurrencyCode;
  onChange: (code: string, checked: boolean) => void;
}

/** Checkboxes (or radios) with a title, description, note and price each. */
export function OptionList({ name, legend, type, options, currency, onChange }: OptionListProps) {
  return (
    <fieldset className={s.buyOptions}>
      <legend className={ui.hVisuallyHidden}>{legend}</legend>
      {options.map(({ entry: e, checked, disabled, note, popover, priceLabel }) => {
        const inputId = `${name}-${e.addOnCode}`;
        return (
          <div className={cx(s.buyOption, checked && s.buyOptionSelected, disabled && s.buyOptionDisabled)} key={e.addOnCode} data-addon={e.addOnCode}>
            <input
              type={type}
              id={inputId}
              name={type === 'radio' ? name : undefined}
              value={e.addOnCode}
              checked={checked}
              disabled={disabled}
              onChange={(ev) => onChange(e.addOnCode, ev.target.checked)}
            />
            <label htmlFor={inputId}>
              <span className={s.buyOptionTitle}>{e.title}</span>
              {e.description ? <span className={s.buyOptionDesc}>{e.description}</span> : null}
              {note ? <span className={s.buyOptionNote}>{note}</span> : null}
            </label>
            <span className={s.buyOptionPrice} data-testid={`price-${e.addOnCode}`}>
              {popover ? <InfoPopover label={`Why ${e.title} cannot be changed here`}>{popover}</InfoPopover> : null}
              {priceLabel ?? priceText(e, currency)}
            </span>
          </div>
        );
      })}
    </fieldset>
  );
}

export interface ChoiceSectionProps extends SectionShell {
  id: string;
  title: string;
  intro?: ReactNode;
  type?: 'checkbox' | 'radio';
  options: readonly Option[];
  currency: CurrencyCode;
  onChange: (code: string, checked: boolean) => void;
  children?: ReactNode;
}

export function ChoiceSection({ id, title, intro, type = 'checkbox', options, currency, onChange, note, expanded, onExpandedChange, children }: ChoiceSectionProps) {
  return (
    <SectionBlock id={id} title={title} note={note} expanded={expanded} onToggle={onExpandedChange}>
      {intro ? <p className={s.buyHint}>{intro}</p> : null}
      {children}
      <OptionList name={id} legend={title} type={type} options={options} currency={currency} onChange={onChange} />
      {options.length === 0 ? <p>Nothing to add in {currency}.</p> : null}
    </SectionBlock>
  );
}
