import { startTransition, useEffect, useRef, useState } from 'react';
import { jumpToPayment } from './sections/PayBar';
import { useEvent, useNearViewport } from './render';

/** How far below the viewport the payment form starts to render: 1,500 px (a desktop's whole page). */
const PAYMENT_MARGIN = 1500;

/**
 * Where and when /buy renders its payment form. The form (its card frame, 250 countries) is
 * below the fold on every screen: it mounts in a render of its own once the choices are on
 * screen (issue 31), and not before the buyer comes within PAYMENT_MARGIN px of it (issue
 * 45): on a desktop that is at once, on a phone, where it is four screens down, not during
 * the page's load, whose blocking time its mount was the largest part of. The pay bar's jump
 * mounts it first.
 */
export function usePaymentPlacement() {
  const paymentPlace = useRef<HTMLDivElement>(null);
  const [paymentNear, showPayment] = useNearViewport(paymentPlace, PAYMENT_MARGIN);
  const [paymentShown, setPaymentShown] = useState(false);
  useEffect(() => {
    if (paymentNear) startTransition(() => setPaymentShown(true));
  }, [paymentNear]);
  // The pay bar's jump to a form not yet rendered renders it, and jumps once it is there.
  const jumpPending = useRef(false);
  const onJumpToPayment = useEvent(() => {
    if (paymentShown) return jumpToPayment();
    jumpPending.current = true;
    showPayment();
    setPaymentShown(true);
  });
  useEffect(() => {
    if (!paymentShown || !jumpPending.current) return;
    jumpPending.current = false;
    jumpToPayment();
  }, [paymentShown]);
  return { paymentPlace, paymentShown, onJumpToPayment };
}
