import { useEffect, useState } from 'react';
import { Button } from '@hangar/ui';
import s from '../buy.module.css';

/**
 * Phones: the total and a jump to the card form, fixed at the bottom while the order
 * summary (with the one Pay button) is off screen. It is a link, not a second Pay
 * button: paying stays one button next to the summary.
 */
export function PayBar({ total, onJump = jumpToPayment }: { total: string | undefined; /** The jump (the page renders the form first when it is not yet). */ onJump?: () => void }) {
  const [summaryInView, setSummaryInView] = useState(false);
  useEffect(() => {
    const el = document.getElementById('buy-invoice');
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setSummaryInView(entries.some((e) => e.isIntersecting)));
    io.observe(el);
    return () => io.disconnect();
  }, []);
  return (
    <div className={s.buyPaybar} hidden={summaryInView} data-testid="paybar">
      <span className={s.buyPaybarTotal}>
        Total <span data-testid="paybar-total">{total ?? '…'}</span>
      </span>
      <Button
        size="medium"
        onClick={onJump}
      >
        Go to payment
      </Button>
    </div>
  );
}

/**
 * To the card form itself (the payment method's panel), not back up to the Payment heading
 * (issue 45); focus goes to the heading so a screen reader starts there.
 */
export function jumpToPayment(): void {
  const pay = document.getElementById('buy-payment');
  const form = pay?.querySelector<HTMLElement>('[role="tabpanel"]') ?? pay;
  form?.scrollIntoView?.({ block: 'start' });
  pay?.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
}
