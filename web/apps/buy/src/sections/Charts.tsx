import type { ReactNode } from 'react';
import { SectionBlock, TextField, cx } from '@hangar/ui';
import { formatPrice, type CurrencyCode } from '@hangar/money';
import { priceIn, type CatalogEntry } from '@hangar/api-client';
import type { SectionShell } from './Choices';
import s from '../buy.module.css';

export type Platform = 'None' | 'App' | 'Web' | 'Both';
const LEGACY = ['jepp_northern_europe', 'jepp_trans_atlantic'];

export function platformOf(code: string, addOns: readonly string[]): Platform {
  const app = addOns.includes(code);
  const web = addOns.includes(`${code}_web`);
  return app && web ? 'Both' : app ? 'App' : web ? 'Web' : 'None';
}

export interface ChartsSectionProps extends SectionShell {
  /** Shown at the end of the section (the avionics partner-account linker). */
  children?: ReactNode;
  coverages: readonly CatalogEntry[];
  addOns: readonly string[];
  currency: CurrencyCode;
  disabled: boolean;
  military: boolean;
  accountNumber: string;
  onAccountNumber: (v: string) => void;
  onChoose: (code: string, platform: Platform) => void;
}

/** Chart-provider IFR charts: per coverage App, Web or Both (Both is priced twice). */
export function ChartsSection({ coverages, addOns, currency, disabled, military, accountNumber, onAccountNumber, onChoose, note, expanded, onExpandedChange, children }: ChartsSectionProps) {
  const chosen = coverages.map((c) => ({ c, pl: platformOf(c.addOnCode, addOns) })).filter((x) => x.pl !== 'None');
  const summary = chosen.length === 0 ? 'None selected' : chosen.map((x) => `${x.c.title} (${x.pl})`).join(', ');
  const legacy = coverages.filter((c) => LEGACY.includes(c.addOnCode) && (addOns.includes(c.addOnCode) || addOns.includes(`${c.addOnCode}_web`)));
  const current = coverages.filter((c) => !LEGACY.includes(c.addOnCode));
  const row = (c: CatalogEntry) => {
    const p = priceIn(c, currency);
    const value = platformOf(c.addOnCode, addOns);
    const platforms: Platform[] = military ? ['None', 'App'] : ['None', 'App', 'Web', 'Both'];
    return (
      <div className={cx(s.buyOption, s.buyChart, value !== 'None' && s.buyOptionSelected)} key={c.addOnCode} data-addon={c.addOnCode}>
        <span className={cx(s.buyOptionTitle, s.buyChartTitle)} id={`chart-${c.addOnCode}-title`}>
          {c.title}
        </span>
        <div role="radiogroup" aria-labelledby={`chart-${c.addOnCode}-title`} className={s.buySegmented}>
          {platforms.map((pl) => (
            <label key={pl} className={cx(s.buySegmentedItem, value === pl && s.buySegmentedItemOn, disabled && s.buySegmentedItemDisabled)}>
              <input
                type="radio"
                name={`chart-${c.addOnCode}`}
                value={pl}
                checked={value === pl}
                disabled={disabled}
                onChange={() => onChoose(c.addOnCode, pl)}
                aria-label={`${c.title}: ${pl === 'None' ? 'none' : pl}`}
              />
              <span aria-hidden="true">{pl}</span>
            </label>
          ))}
        </div>
        <span className={cx(s.buyOptionPrice, s.buyChartPrice)}>{p ? formatPrice(value === 'Both' ? p.amountInCents * 2 : p.amountInCents, currency) : `Unavailable in ${currency}`}</span>
      </div>
    );
  };
  return (
    <SectionBlock id="jeppesen" title="Jeppesen IFR Charts" note={note} expanded={expanded} onToggle={onExpandedChange} summary={summary}>
      <TextField
        label="Already a Jeppesen customer? Your Jeppesen account number"
        name="jeppCustomerNo"
        value={accountNumber}
        onChange={(e) => onAccountNumber(e.target.value)}
      />
      {disabled ? <p className={s.buyHint}>Your charts come with your Jeppesen account; coverages are disabled while a number is entered.</p> : null}
      {legacy.length > 0 ? (
        <div className={s.buySubblock}>
          <h3>Your current coverages</h3>
          {legacy.map(row)}
        </div>
      ) : null}
      <div className={s.buySubblock}>
        <h3>Coverages (App, Web or Both)</h3>
        {current.map(row)}
      </div>
      {children}
    </SectionBlock>
  );
}
