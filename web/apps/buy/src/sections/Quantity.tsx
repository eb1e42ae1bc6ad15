import { useId } from 'react';
import { SectionBlock } from '@hangar/ui';
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
export function QuantitySection({ value, priced, min, max, salesContact, onChange, note, expanded, onExpandedChange }: QuantitySectionProps) {
  const id = useId();
  const shown = value === '' ? String(priced || SLIDER_DEFAULT) : value;
  const n = Number(shown);
  return (
    <SectionBlock id="quantity" title="Licenses" note={note} expanded={expanded} onToggle={onExpandedChange}>
      <p className={s.buyHint}>Each license covers 2 devices (two iPads, or one iPad and one iPhone).</p>
      <div className={s.buyQuantity}>
        <label htmlFor={`${id}-range`}>Number of licenses (slider)</label>
        <input id={`${id}-range`} type="range" min={min} max={max} value={Number.isFinite(n) ? Math.min(Math.max(n, min), max) : min} onChange={(e) => onChange(e.target.value)} />
        <label htmlFor={`${id}-num`}>Number of licenses</label>
        <input id={`${id}-num`} name="quantity" inputMode="numeric" value={shown} onChange={(e) => onChange(e.target.value)} onBlur={() => shown !== clampQuantity(shown, min, max) && onChange(clampQuantity(shown, min, max))} size={5} />
      </div>
      {Number.isFinite(n) && n > QUANTITY_MAX ? (
        <p className={s.buyHint}>
          For more than {QUANTITY_MAX} licenses, please <a href={`mailto:${salesContact}`}>contact sales</a>.
        </p>
      ) : null}
    </SectionBlock>
  );
}
