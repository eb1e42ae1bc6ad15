import { useEffect, useRef, useState } from 'react';
import { Button } from '@hangar/ui';
import { MAX_QUANTITY, MIN_QUANTITY, QUANTITY_DEBOUNCE_MS, clampQuantity, typedQuantity } from './oneoff';
import s from './oneoff.module.css';

/** A quantity stepper: digits only, at most 4; a typed value commits after 1 s idle, the
 * buttons at once (spec 001 §5). */
export function QuantityStepper({ label, value, onCommit }: { label: string; value: number; onCommit: (n: number) => void }) {
  const [text, setText] = useState(String(value));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => setText(String(value)), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (n: number) => {
    clearTimeout(timer.current);
    const q = clampQuantity(n);
    setText(String(q));
    if (q !== value) onCommit(q);
  };
  return (
    <div className={s.oneoffStepper} role="group" aria-label={label}>
      <Button variant="secondary" size="small" aria-label={`Fewer: ${label}`} disabled={value <= MIN_QUANTITY} onClick={() => commit(value - 1)}>
        −
      </Button>
      <input
        aria-label={`Quantity: ${label}`}
        inputMode="numeric"
        value={text}
        maxLength={4}
        onChange={(e) => {
          const t = typedQuantity(e.target.value);
          setText(t);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => commit(clampQuantity(t)), QUANTITY_DEBOUNCE_MS);
        }}
        onBlur={() => text !== String(value) && commit(clampQuantity(text))}
      />
      <Button variant="secondary" size="small" aria-label={`More: ${label}`} disabled={value >= MAX_QUANTITY} onClick={() => commit(value + 1)}>
        +
      </Button>
    </div>
  );
}
