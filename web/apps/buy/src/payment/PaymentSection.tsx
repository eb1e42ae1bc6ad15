import { useId, type KeyboardEvent, type Ref } from 'react';
import { BillingFields, Button, CheckboxField, EuConsentField, HostedCardFields, MarketingConsentField, SelectField, TextField, cx, ui, type HostedCardFieldsHandle } from '@hangar/ui';
import type { WirePaymentMethod } from '@hangar/api-client';
import { takesBusinessId } from './countries';
import s from '../buy.module.css';

export type PayWith = 'card' | 'stored' | 'wallet' | 'reader';

/** A card tokenised for a click submit refused before charging: its nonce pays the next. */
export interface KeptCard {
  nonce: string;
  cardType?: string;
  lastFour?: string;
}

export interface PaymentSectionProps {
  payWith: PayWith;
  onPayWith: (p: PayWith) => void;
  stored: WirePaymentMethod | null | undefined;
  readers: string[];
  reader: string;
  onReader: (serial: string) => void;
  hosted: Ref<HostedCardFieldsHandle>;
  /** The card entered for the refused click, shown instead of the emptied fields. */
  keptCard?: KeptCard;
  onOtherCard: () => void;
  cardholderName: string;
  zipcode: string;
  country: string;
  businessId: string;
  /** Checkout's word on the VAT ID typed (the preview's vatIdCheck): shown, never decided here. */
  vatIdCheck?: { message?: string; counted?: boolean };
  showGdpr: boolean;
  gdpr: boolean;
  /** The optional marketing checkbox (the page decides from identity's answer). */
  showMarketing: boolean;
  marketing: boolean;
  onMarketing: (checked: boolean) => void;
  fieldErrors: Record<string, string[]>;
  onChange: (patch: { cardholderName?: string; zipcode?: string; country?: string; businessIdentificationNo?: string; isGdprCompliant?: boolean }) => void;
  onCardHelp: () => void;
  /** Enter in the card frame: pay, as the one Pay button does. */
  onPay?: () => void;
}

export function PaymentSection(p: PaymentSectionProps) {
  const tabsId = useId();
  const vatNoteId = useId();
  const card = p.stored?.paymentMethod;
  const canUseStored = Boolean(card?.token);
  const tabs: Array<{ id: PayWith; label: string }> = [
    { id: 'card', label: 'Credit card' },
    { id: 'wallet', label: 'PayPal' },
  ];
  const tabOf = (w: PayWith) => (w === 'stored' || w === 'reader' ? 'card' : w);
  const choose = (id: PayWith) => p.onPayWith(id === 'card' && canUseStored ? 'stored' : id);
  const onTabKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = tabs.findIndex((t) => t.id === tabOf(p.payWith));
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length]!;
    choose(next.id);
    document.getElementById(`${tabsId}-${next.id}`)?.focus();
  };
  return (
    <section className={s.buyPayment} id="buy-payment" aria-labelledby={`${tabsId}-title`} data-testid="payment">
      <h2 id={`${tabsId}-title`} tabIndex={-1}>
        Payment
      </h2>
      {/* One Tab stop: the chosen method; the arrow keys (Home, End) move and choose (WAI-ARIA tabs). */}
      <div role="tablist" aria-label="Payment method" className={s.buyTabs} onKeyDown={onTabKey}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${tabsId}-${t.id}`}
            aria-selected={tabOf(p.payWith) === t.id}
            aria-controls={`${tabsId}-panel`}
            tabIndex={tabOf(p.payWith) === t.id ? 0 : -1}
            className={cx(s.buyTabsTab, tabOf(p.payWith) === t.id && s.buyTabsTabOn)}
            onClick={() => choose(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${tabsId}-panel`} aria-labelledby={`${tabsId}-${tabOf(p.payWith)}`}>
        {tabOf(p.payWith) === 'card' ? (
          <>
            {canUseStored ? (
              <fieldset className={s.buyOptions}>
                <legend>Card</legend>
                <CheckboxField
                  type="radio"
                  name="payWith"
                  checked={p.payWith === 'stored'}
                  onChange={() => p.onPayWith('stored')}
                  label={
                    <span data-testid="stored-card">
                      Use your card on file: {card?.type || 'Card'} ending in {card?.last4}
                      {card?.expirationDate ? ` (expires ${card.expirationDate})` : ''}
                    </span>
                  }
                />
                <CheckboxField type="radio" name="payWith" checked={p.payWith === 'card'} onChange={() => p.onPayWith('card')} label="Use a new card" />
              </fieldset>
            ) : null}
            {p.readers.length > 0 ? (
              <CheckboxField type="radio" name="payWith" checked={p.payWith === 'reader'} onChange={() => p.onPayWith('reader')} label="Use the card reader" />
            ) : null}
            {p.payWith === 'reader' ? (
              <SelectField label="Card reader" value={p.reader} onChange={(e) => p.onReader(e.target.value)} options={[{ value: '', label: 'Choose a reader' }, ...p.readers.map((r) => ({ value: r, label: r }))]} />
            ) : null}
            {p.payWith === 'card' ? (
              <>
                {p.keptCard ? (
                  <p data-testid="kept-card">
                    Paying with the card you entered{p.keptCard.lastFour ? ` (${p.keptCard.cardType ?? 'card'} ending in ${p.keptCard.lastFour})` : ''}.{' '}
                    <Button variant="link" size="small" onClick={p.onOtherCard}>
                      Use another card
                    </Button>
                  </p>
                ) : (
                  <HostedCardFields handle={p.hosted} frameClassName={s.buyHostedFrame} onSubmitRequest={p.onPay} deferFrame />
                )}
                <Button variant="link" size="small" onClick={p.onCardHelp}>
                  Which cards do you accept?
                </Button>
                {p.fieldErrors.card?.length ? (
                  // The alert is the wrapper: role=alert on the list itself would take away its list semantics.
                  <div role="alert" data-testid="card-errors">
                    <ul className={ui.hFieldErrors}>
                      {p.fieldErrors.card.map((e) => (
                        <li key={e}>{e}</li>
                      ))}
                    </ul>
                  </div>
                ) : null}
              </>
            ) : null}
          </>
        ) : (
          <>
            <p className={s.buyHint}>You will confirm the payment with PayPal; the e-mail address PayPal holds is kept with your subscription.</p>
            {/* The wallet is tokenised on the fields origin too: the store takes no payment data. */}
            <HostedCardFields handle={p.hosted} flow="wallet" />
          </>
        )}
        {p.payWith !== 'stored' ? (
          <BillingFields
            // The card reader reads the cardholder's name from the card (issue 45: it was asked).
            showCardholderName={p.payWith !== 'reader'}
            value={{ cardholderName: p.cardholderName, zipcode: p.zipcode, country: p.country }}
            errors={{ cardholderName: p.fieldErrors.cardholderName, zipcode: p.fieldErrors.zipcode, country: p.fieldErrors.country }}
            onChange={(patch) => p.onChange(patch.country === undefined || takesBusinessId(patch.country) ? patch : { ...patch, businessIdentificationNo: '' })}
          />
        ) : null}
        {takesBusinessId(p.country) ? (
          <>
            <TextField
              label="VAT ID (business identification number)"
              name="businessIdentificationNo"
              value={p.businessId}
              aria-describedby={p.businessId.trim() && p.vatIdCheck?.message ? vatNoteId : undefined}
              onChange={(e) => p.onChange({ businessIdentificationNo: e.target.value })}
            />
            {p.businessId.trim() && p.vatIdCheck?.message ? (
              <p id={vatNoteId} role="status" data-testid="vat-id-check" data-counted={p.vatIdCheck.counted ? 'true' : 'false'}>
                {p.vatIdCheck.message}
              </p>
            ) : null}
          </>
        ) : null}
        {p.showGdpr ? (
          <EuConsentField checked={p.gdpr} errors={p.fieldErrors.gdpr} onChange={(checked) => p.onChange({ isGdprCompliant: checked })} />
        ) : null}
        {p.showMarketing ? <MarketingConsentField checked={p.marketing} onChange={p.onMarketing} /> : null}
      </div>
    </section>
  );
}
