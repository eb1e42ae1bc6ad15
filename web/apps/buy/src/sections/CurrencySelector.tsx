import { SelectField } from '@hangar/ui';
import { CURRENCY_SYMBOLS, isCurrencyCode, type CurrencyCode } from '@hangar/money';
import type { Currency } from '@hangar/api-client';
import s from '../buy.module.css';

export interface CurrencySelectorProps {
  currencies: readonly Currency[];
  value: CurrencyCode;
  onChange: (currency: CurrencyCode) => void;
}

/** Shown only when at least two currencies are supported. */
export function CurrencySelector({ currencies, value, onChange }: CurrencySelectorProps) {
  const codes = currencies.map((c) => c.code).filter(isCurrencyCode);
  if (codes.length < 2) return null;
  return (
    <div className={s.buyCurrency}>
      <SelectField
        className={s.buyCurrencyField}
        label="Currency"
        name="currency"
        value={value}
        onChange={(e) => isCurrencyCode(e.target.value) && onChange(e.target.value)}
        options={codes.map((c) => ({ value: c, label: `${c} (${CURRENCY_SYMBOLS[c]})` }))}
      />
    </div>
  );
}
