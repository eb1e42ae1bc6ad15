import type { ReactNode } from 'react';
import { formatMoney, type CurrencyCode } from '@hangar/money';
import { CheckboxField, SelectField, TextField } from './fields';
import { countryOptions } from './countries';
import { cx } from './cx';
import ui from './ui.module.css';
import s from './purchase.module.css';

/** The title every purchase form puts above its list of problems. */
export const CORRECT_FOLLOWING = 'Please correct the following:';

export interface ErrorSummaryProps {
  errors: readonly string[];
  title?: ReactNode;
  className?: string;
  /** Announce it (role alert): the summary of a failed attempt. Off for standing notes. */
  announce?: boolean;
  'data-testid'?: string;
}

/**
 * The purchase forms' error summary: the problems of the last attempt, announced (alert),
 * each once. Nothing when there are none.
 */
export function ErrorSummary({ errors, title = CORRECT_FOLLOWING, className, announce = true, 'data-testid': testId = 'errors' }: ErrorSummaryProps) {
  const list = [...new Set(errors.filter((e) => e.trim() !== ''))];
  if (list.length === 0) return null;
  return (
    <div className={cx(s.hErrorSummary, className)} role={announce ? 'alert' : undefined} data-testid={testId}>
      <p className={s.hErrorSummaryTitle}>{title}</p>
      <ul className={s.hErrorSummaryList}>
        {list.map((e) => (
          <li key={e}>{e}</li>
        ))}
      </ul>
    </div>
  );
}

export interface Billing {
  cardholderName: string;
  zipcode: string;
  country: string;
}

export interface BillingFieldsProps {
  value: Billing;
  onChange: (patch: Partial<Billing>) => void;
  /** Messages per field (the ones the form's summary also lists). */
  errors?: Partial<Record<keyof Billing, readonly string[]>>;
  /** A stored or read card has its own name: then only ZIP and country are asked. */
  showCardholderName?: boolean;
  className?: string;
}

/** The billing fields of a card payment: cardholder name, ZIP / postal code and country. */
export function BillingFields({ value, onChange, errors = {}, showCardholderName = true, className }: BillingFieldsProps) {
  return (
    <div className={cx(s.hBilling, className)}>
      {showCardholderName ? (
        <TextField
          label="Cardholder name"
          name="cardholderName"
          autoComplete="cc-name"
          value={value.cardholderName}
          errors={errors.cardholderName}
          onChange={(e) => onChange({ cardholderName: e.target.value })}
        />
      ) : null}
      <TextField label="ZIP / Postal code" name="zipcode" autoComplete="postal-code" value={value.zipcode} errors={errors.zipcode} onChange={(e) => onChange({ zipcode: e.target.value })} />
      <SelectField
        label="Country"
        name="country"
        autoComplete="country"
        value={value.country}
        errors={errors.country}
        onChange={(e) => onChange({ country: e.target.value })}
        options={countryOptions()}
      />
    </div>
  );
}

/** The server's message for an order without the EU consent (checkout's rules.MsgEuConsent). */
export const MSG_EU_CONSENT = 'Please give your consent to the processing of your data to continue.';

export interface EuConsentFieldProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  errors?: readonly string[];
}

/**
 * The EU data-consent checkbox of the purchase forms (/buy, the one-off cart). The page
 * shows it when the server's preview says euConsentRequired (or gdpr=show on /buy); the
 * server refuses the order without it (MSG_EU_CONSENT).
 */
export function EuConsentField({ checked, onChange, errors }: EuConsentFieldProps) {
  return (
    <CheckboxField
      name="gdpr"
      checked={checked}
      errors={errors}
      onChange={(e) => onChange(e.target.checked)}
      label="I consent to the processing of my personal data to complete this purchase and manage my subscription."
    />
  );
}

export interface MarketingConsentFieldProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
}

/**
 * The optional marketing checkbox of the purchase forms (spec 001 §5 "GDPR marketing
 * checkbox"), not to be confused with the required EU data consent above. The page shows
 * it, never ticked in advance, when identity says the buyer has not consented
 * (GET eu_consent: marketingNotificationsEnabled false); ticking it gives the consent with
 * the order, leaving it unticked changes nothing.
 */
export function MarketingConsentField({ checked, onChange }: MarketingConsentFieldProps) {
  return (
    <CheckboxField
      name="marketingConsent"
      checked={checked}
      onChange={(e) => onChange(e.target.checked)}
      label="Send me news and offers about Hangar by e-mail (optional; you can unsubscribe at any time)."
    />
  );
}

/** The field a billing message belongs to, so the field can show it too. */
export const BILLING_FIELD_OF: Readonly<Record<string, keyof Billing>> = {
  'Name cannot be blank': 'cardholderName',
  'Postal Code cannot be blank': 'zipcode',
  'Please enter your zipcode': 'zipcode',
  'Please select a country': 'country',
};

/** The billing messages of a list, per field. */
export function billingErrors(errors: readonly string[]): Partial<Record<keyof Billing, string[]>> {
  const out: Partial<Record<keyof Billing, string[]>> = {};
  for (const e of errors) {
    const f = BILLING_FIELD_OF[e];
    if (f) (out[f] ??= []).push(e);
  }
  return out;
}

export interface OrderLine {
  key: string;
  description: ReactNode;
  quantity?: number;
  amountInCents: number;
}

export interface OrderSummaryProps {
  lines: readonly OrderLine[];
  currency: CurrencyCode;
  /** 'Tax' or 'VAT', as the server labels it. */
  taxLabel: string;
  taxInCents: number;
  totalInCents: number;
  /** The test id of the total (and `${prefix}-tax` of the tax). */
  testIdPrefix?: string;
  title?: string;
  children?: ReactNode;
  className?: string;
}

/** The order summary box of the gift and one-off pages: the lines, tax and total, then extras. */
export function OrderSummary({ lines, currency, taxLabel, taxInCents, totalInCents, testIdPrefix = 'order', title = 'Order summary', children, className }: OrderSummaryProps) {
  const money = (c: number) => formatMoney(c, currency);
  return (
    <aside className={cx(s.hOrderSummary, className)} aria-label={title}>
      <h2>{title}</h2>
      <table className={s.hOrderSummaryTable}>
        <caption className={ui.hVisuallyHidden}>Order lines</caption>
        <tbody>
          {lines.map((l) => (
            <tr key={l.key}>
              <th scope="row">
                {l.description}
                {l.quantity && l.quantity > 1 ? ` × ${l.quantity}` : ''}
              </th>
              <td>{money(l.amountInCents)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{taxLabel}</th>
            <td data-testid={`${testIdPrefix}-tax`}>{money(taxInCents)}</td>
          </tr>
          <tr className={s.hOrderSummaryTotal}>
            <th scope="row">Total</th>
            <td data-testid={`${testIdPrefix}-total`}>{money(totalInCents)}</td>
          </tr>
        </tfoot>
      </table>
      {children}
    </aside>
  );
}
