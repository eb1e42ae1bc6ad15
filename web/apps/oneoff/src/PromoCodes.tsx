import { useState } from 'react';
import { Button, TextField } from '@hangar/ui';
import { MSG_CODE_USED } from './oneoff';
import s from './oneoff.module.css';

/** The cart's promo codes: each listed with what the preview said of it, and removable on its own. */
export function PromoCodes({ codes, onChange, refused }: { codes: string[]; onChange: (codes: string[]) => void; refused: (code: string) => { message?: string } | undefined }) {
  const [input, setInput] = useState('');
  const [error, setError] = useState('');
  return (
    <div className={s.oneoffPromo}>
      <TextField label="Promo code" value={input} errors={error ? [error] : []} onChange={(e) => setInput(e.target.value)} />
      <Button
        variant="secondary"
        onClick={() => {
          const c = input.trim();
          // A code already in the cart (any case) is not added twice (spec 001 §5).
          if (codes.some((x) => x.toLowerCase() === c.toLowerCase())) {
            setError(MSG_CODE_USED);
            return;
          }
          setError('');
          if (c) onChange([...codes, c]);
          setInput('');
        }}
      >
        Apply
      </Button>
      {codes.length > 0 ? (
        <ul className={s.oneoffCodes} aria-label="Promo codes">
          {codes.map((c) => {
            const why = refused(c);
            return (
              <li key={c} data-testid={`promo-code-${c}`}>
                <span className={why ? s.oneoffCodeRefused : undefined}>
                  {why ? `Promo code ${c} was not applied: ${why.message}` : `${c} applied`}
                </span>{' '}
                <Button variant="link" aria-label={`Remove promo code ${c}`} onClick={() => onChange(codes.filter((x) => x !== c))}>
                  Remove
                </Button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}
