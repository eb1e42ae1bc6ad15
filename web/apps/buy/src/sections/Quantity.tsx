import { useId, useState } from 'react';
import { CheckboxField, SectionBlock } from '@hangar/ui';
import type { SectionShell } from './Choices';
import s from '../buy.module.css';

export const QUANTITY_MAX = 100;
export const SLIDER_DEFAULT = 2;

export interface QuantitySectionProps extends SectionShell {
  /** What the buyer typed. */
  value: string;
  /** What checkout priced (after its minimum and clamp). */
  priced: number;
  min: number;
  max: number;
  salesContact: string;
  onChange: (v: string) => void;
  /** A large change of the count (bigChange()) the buyer must confirm before Pay. */
  confirm?: QuantityConfirm;
}

export interface QuantityConfirm {
  /** The count the cart started with: the subscription's, or the new cart's default. */
  from: number;
  /** Whether `from` is the subscription's count (a renewal) rather than a new cart's. */
  renewal: boolean;
  checked: boolean;
  onChange: (checked: boolean) => void;
}

/**
 * A count the buyer is asked to confirm: at least twice, or ten more than, the count the cart
 * started with (issue 45: an owner going from 5 to 8 licences paid for 58).
 */
export function bigChange(from: number, to: number): boolean {
  return from > 0 && to > from && (to >= 2 * from || to >= from + 10);
}

/**
 * What the field shows once the buyer leaves it: the number checkout will price ('abc' is
 * the minimum, '150' the maximum, '1' a business's 2), never text the invoice disagrees with.
 */
export function clampQuantity(typed: string, min: number, max: number): string {
  const n = Number.parseInt(typed.replace(/[^\d]/g, ''), 10);
  return String(Number.isFinite(n) ? Math.min(Math.max(n, min), max) : min);
}

/** Licence quantity: a slider (default 2) and a number field; checkout applies the limits. */
export function QuantitySection({ value, priced, min, max, salesContact, onChange, confirm, note, expanded, onExpandedChange }: QuantitySectionProps) {
  const id = useId();
  // Until the buyer types, an empty value is checkout's count; once they do, the field shows
  // what they typed, empty included (showing the priced count in an emptied field turned
  // Backspace-then-8 into 28).
  const [typed, setTyped] = useState(false);
  const shown = value === '' && !typed ? String(priced || SLIDER_DEFAULT) : value;
  const n = Number(shown);
  return (
    <SectionBlock id="quantity" title="Licenses" note={note} expanded={expanded} onToggle={onExpandedChange}>
      <p className={s.buyHint}>Each license covers 2 devices (two iPads, or one iPad and one iPhone).</p>
      <div className={s.buyQuantity}>
        <label htmlFor={`${id}-range`}>Number of licenses (slider)</label>
        <input id={`${id}-range`} type="range" min={min} max={max} value={Number.isFinite(n) ? Math.min(Math.max(n, min), max) : min} onChange={(e) => onChange(e.target.value)} />
        <label htmlFor={`${id}-num`}>Number of licenses</label>
        <input id={`${id}-num`} name="quantity" inputMode="numeric" value={shown}
          onChange={(e) => {
            setTyped(true);
            onChange(e.target.value);
          }}
          onBlur={() => shown !== clampQuantity(shown, min, max) && onChange(clampQuantity(shown, min, max))} size={5} />
      </div>
      {Number.isFinite(n) && n > QUANTITY_MAX ? (
        <p className={s.buyHint}>
          For more than {QUANTITY_MAX} licenses, please <a href={`mailto:${salesContact}`}>contact sales</a>.
        </p>
      ) : null}
      {confirm && bigChange(confirm.from, priced) ? (
        <div className={s.buyNotice} role="group" aria-labelledby={`${id}-confirm`} data-testid="quantity-confirm">
          <p id={`${id}-confirm`}>
            {confirm.renewal ? `You are changing your subscription from ${confirm.from} to ${priced} licenses.` : `You are buying ${priced} licenses.`} Please
            confirm the number before you pay.
          </p>
          <CheckboxField name="quantityConfirmed" checked={confirm.checked} onChange={(e) => confirm.onChange(e.target.checked)} label={`Yes, I want ${priced} licenses.`} />
        </div>
      ) : null}
    </SectionBlock>
  );
}
