import { CheckboxField } from '@hangar/ui';
import type { PayWith, SavedCard } from './oneoff';
import s from './oneoff.module.css';

/** How the buyer pays: the sales-mode card reader, the saved card, or a new card. */
export function PayWithChoice({ value, onChange, saved, readerSerialNumber }: { value: PayWith; onChange: (v: PayWith) => void; saved?: SavedCard; readerSerialNumber?: string }) {
  return (
    <fieldset className={s.oneoffPayWith}>
      <legend>Card</legend>
      {readerSerialNumber !== undefined ? (
        <CheckboxField
          type="radio"
          name="payWith"
          checked={value === 'reader'}
          onChange={() => onChange('reader')}
          label={`Use the card reader (${readerSerialNumber})`}
        />
      ) : null}
      {saved?.token ? (
        <CheckboxField
          type="radio"
          name="payWith"
          checked={value === 'saved'}
          onChange={() => onChange('saved')}
          label={`Use my saved card ${saved.type ?? ''} ending ${saved.last4 ?? ''}`}
        />
      ) : null}
      <CheckboxField type="radio" name="payWith" checked={value === 'card'} onChange={() => onChange('card')} label="Use a new card" />
    </fieldset>
  );
}
