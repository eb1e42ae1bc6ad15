import { memo, useCallback, useId, useRef, useState, type ReactNode } from 'react';
import { SectionBlock, cx, ui } from '@hangar/ui';
import { formatPrice, type CurrencyCode } from '@hangar/money';
import { priceIn, type CatalogEntry } from '@hangar/api-client';
import s from '../buy.module.css';

export interface SectionShell {
  expanded: boolean;
  onExpandedChange: (open: boolean) => void;
  note?: string;
  /** The one-line summary shown while collapsed. */
  summary?: ReactNode;
}

/** A section's one-line summary: the chosen titles, or 'None selected'. */
export function choiceSummary(options: readonly Option[], currency: CurrencyCode): string {
  // What the buyer chose: a feature the plan includes is not a choice.
  const chosen = options.filter((o) => o.checked && o.priceLabel !== 'Included');
  if (chosen.length === 0) return 'None selected';
  if (chosen.length === 1) return `${chosen[0]!.entry.title} · ${chosen[0]!.priceLabel ?? priceText(chosen[0]!.entry, currency)}`;
  const names = chosen.map((o) => o.entry.title);
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
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
  /** The note is for screen readers only (the price column already says it). */
  quietNote?: boolean;
}

export interface OptionListProps {
  name: string;
  legend: string;
  type: 'checkbox' | 'radio';
  options: readonly Option[];
  currency: CurrencyCode;
  onChange: (code: string, checked: boolean) => void;
  /** Short rows without descriptions, several to a line (regions). */
  compact?: boolean;
  /** A choice made with the pointer (not the arrow keys, which step through the radios). */
  onPointerChoice?: () => void;
}

/** Checkboxes (or radios) with a title, description, note and price each. */
// Memoized: the page keeps options and callbacks the same objects while unchanged (render.ts).
export const OptionList = memo(function OptionList({ name, legend, type, options, currency, onChange, compact, onPointerChoice }: OptionListProps) {
  // Arrow keys change a radio group's choice while the buyer is still choosing, so only a
  // click or tap counts as "chosen" for collapsing the section.
  const pointer = useRef(false);
  const onRowChange = useCallback(
    (code: string, checked: boolean) => {
      onChange(code, checked);
      if (pointer.current) onPointerChoice?.();
      pointer.current = false;
    },
    [onChange, onPointerChoice],
  );
  return (
    <fieldset className={cx(s.buyOptions, compact && s.buyOptionsCompact)} onPointerDown={() => (pointer.current = true)} onKeyDown={() => (pointer.current = false)}>
      <legend className={ui.hVisuallyHidden}>{legend}</legend>
      {options.map((o) => (
        <OptionRow key={o.entry.addOnCode} name={name} type={type} currency={currency} compact={compact} onChange={onRowChange} {...o} />
      ))}
    </fieldset>
  );
});

/**
 * One option. Memoized on its own: a price answer that changes one option re-renders that
 * row, not the list's every input. React writes an input's name, type and value again on any
 * change of its props (a new onChange included), and those writes were much of the commit
 * that shows /buy's first price (issue 45: /buy's blocking time).
 */
const OptionRow = memo(function OptionRow({
  name,
  type,
  currency,
  compact,
  onChange,
  entry: e,
  checked,
  disabled,
  note,
  popover,
  priceLabel,
  quietNote,
}: Option & Pick<OptionListProps, 'name' | 'type' | 'currency' | 'compact' | 'onChange'>) {
  const inputId = `${name}-${e.addOnCode}`;
  return (
    <div className={cx(s.buyOption, checked && s.buyOptionSelected, disabled && s.buyOptionDisabled)} data-addon={e.addOnCode}>
      <input
        type={type}
        id={inputId}
        name={type === 'radio' ? name : undefined}
        value={e.addOnCode}
        checked={checked}
        disabled={disabled}
        onChange={(ev) => onChange(e.addOnCode, ev.target.checked)}
      />
      <label htmlFor={inputId} title={compact ? e.description : undefined}>
        <span className={s.buyOptionTitle}>{e.title}</span>
        {e.description && !compact ? <span className={s.buyOptionDesc} title={e.description}>{e.description}</span> : null}
        {note ? <span className={quietNote ? ui.hVisuallyHidden : s.buyOptionNote}>{note}</span> : null}
      </label>
      <span className={s.buyOptionPrice} data-testid={`price-${e.addOnCode}`}>
        {popover ? <InfoPopover label={`Why ${e.title} cannot be changed here`}>{popover}</InfoPopover> : null}
        {priceLabel ?? priceText(e, currency)}
      </span>
    </div>
  );
});

export interface ChoiceSectionProps extends SectionShell {
  id: string;
  title: string;
  intro?: ReactNode;
  type?: 'checkbox' | 'radio';
  options: readonly Option[];
  currency: CurrencyCode;
  onChange: (code: string, checked: boolean) => void;
  children?: ReactNode;
  compact?: boolean;
  /** What checkout's preview says is wrong in this section, shown as soon as it answers. */
  errors?: readonly string[];
}

export const ChoiceSection = memo(function ChoiceSection({ id, title, intro, type = 'checkbox', options, currency, onChange, note, expanded, onExpandedChange, summary, compact, errors, children }: ChoiceSectionProps) {
  return (
    <SectionBlock id={id} title={title} note={note} expanded={expanded} onToggle={onExpandedChange} summary={summary ?? choiceSummary(options, currency)}>
      {intro ? <p className={s.buyHint}>{intro}</p> : null}
      {errors && errors.length > 0 ? (
        <p className={s.buyErrorInline} data-testid={`section-errors-${id}`}>
          {errors.join(' ')}
        </p>
      ) : null}
      {children ? (
        // A figure (the coverage map) stands beside the choices on a wide column, not above them.
        <div className={s.buyWithFigure}>
          {children}
          <OptionList name={id} legend={title} type={type} options={options} currency={currency} onChange={onChange} compact={compact} />
        </div>
      ) : (
        <OptionList name={id} legend={title} type={type} options={options} currency={currency} onChange={onChange} compact={compact} />
      )}
      {options.length === 0 ? <p>Nothing to add in {currency}.</p> : null}
    </SectionBlock>
  );
});
