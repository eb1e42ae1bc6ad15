import { Button, formatDate } from '@hangar/ui';
import { formatMoney, type CurrencyCode } from '@hangar/money';
import { num } from '@hangar/api-client';
import type { Preview } from '../hooks';
import { DOWNGRADE_ALLOCATIONS } from '../messages';
import s from '../buy.module.css';

export interface RenewalBoxProps {
  preview: Pick<Preview, 'renewalAmountInCents' | 'renewalDate'>;
  currency: CurrencyCode;
  business: boolean;
  /** A business switching to an individual plan. */
  onDowngrade: () => void;
}

/** Section 4: the subscription being renewed, and a business's switch to an individual plan. */
export function RenewalBox({ preview: p, currency, business, onDowngrade }: RenewalBoxProps) {
  return (
    <section className={s.buyBox} aria-labelledby="buy-renewal-title" data-testid="renewal-box">
      <h2 id="buy-renewal-title">Renew your subscription</h2>
      <p>
        You are renewing your current subscription. It renews at {formatMoney(num(p.renewalAmountInCents), currency)}/yr
        {p.renewalDate ? ` from ${formatDate(p.renewalDate)}` : ''}. Change plans, regions or add-ons below to update it.
      </p>
      {business ? (
        <Button variant="secondary" size="small" onClick={onDowngrade}>
          Switch to an individual plan
        </Button>
      ) : null}
    </section>
  );
}

/** What happens to the users of an owner's licences when the business becomes individual. */
export function DowngradeWarning() {
  return (
    <p className={s.buyNotice} role="note" data-testid="downgrade-allocations">
      {DOWNGRADE_ALLOCATIONS}
    </p>
  );
}

/** Section 5: the cart's plan is no longer sold and was replaced. */
export function LegacyNotice({ replacedPlan }: { replacedPlan: string | undefined }) {
  return (
    <p className={s.buyNotice} role="status" data-testid="legacy-notice">
      Your plan {replacedPlan ? `(${replacedPlan}) ` : ''}is no longer sold; it has been replaced by its current equivalent below.
    </p>
  );
}
