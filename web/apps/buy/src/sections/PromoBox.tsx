import { memo, useEffect, useRef, useState } from 'react';
import { Button, TextField, cx } from '@hangar/ui';
import s from '../buy.module.css';

export interface PromoBoxProps {
  codes: string[];
  /** Checks and applies a code; answers why it was refused. */
  onAdd: (c: string) => Promise<string | undefined>;
  onRemove: (c: string) => void;
  errors: string[];
  /** A code from the address, applied once as if typed. */
  prefill?: string;
}

/** The promo or gift-certificate code box, with the codes applied. */
export const PromoBox = memo(function PromoBox({ codes, onAdd, onRemove, errors, prefill }: PromoBoxProps) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);
  const apply = (code: string) => {
    setChecking(true);
    void onAdd(code)
      .then((err) => {
        setError(err);
        setValue(err ? code : '');
      })
      .finally(() => setChecking(false));
  };
  const prefilled = useRef(false);
  useEffect(() => {
    if (!prefill || prefilled.current) return;
    prefilled.current = true;
    apply(prefill);
    // Once per page: the address's code, not a later edit.
  }, [prefill]);
  return (
    <section className={cx(s.buyBox, s.buyPromoBox)} aria-labelledby="buy-promo-title">
      <h2 id="buy-promo-title">Promo or gift code</h2>
      <form
        className={s.buyPromo}
        onSubmit={(e) => {
          e.preventDefault();
          if (checking) return;
          apply(value);
        }}
      >
        <TextField className={s.buyPromoField} label="Promo or gift certificate code" name="code" value={value} errors={error ? [error] : errors} onChange={(e) => setValue(e.target.value)} />
        <Button type="submit" variant="secondary" disabled={checking}>
          Apply
        </Button>
      </form>
      {codes.length > 0 ? (
        <ul className={s.buyCodes}>
          {codes.map((c) => (
            <li key={c}>
              <span data-testid="applied-code">{c}</span>{' '}
              <Button variant="link" size="small" onClick={() => onRemove(c)} aria-label={`Remove code ${c}`}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
});
