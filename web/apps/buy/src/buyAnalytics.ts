import { useEffect, useRef } from 'react';
import { num } from '@hangar/api-client';
import { analytics } from '@hangar/analytics';
import type { Preview } from './hooks';
import { visibleLines } from './InvoicePanel';

/** The invoice's lines as analytics items (amounts in major units, as the data layer wants). */
export function analyticsItems(p: { invoice?: Preview['invoice'] }) {
  return visibleLines(p.invoice?.invoiceItems).map((l) => ({
    addOnCode: l.addOnCode || l.type || '',
    description: l.description ?? '',
    amount: num(l.amountInCents) / 100,
    unitAmount: num(l.unitAmountInCents) / 100,
    quantity: num(l.quantity, 1),
    planType: l.planType,
  }));
}

/** Runs an analytics call: analytics never breaks the page; a missing parameter is reported, not thrown. */
export function track(f: () => void) {
  try {
    f();
  } catch (e) {
    console.error((e as Error).message);
  }
}

/** Add-to-cart when a changed invoice arrives (the shell logs the page view). */
export function useAddToCart(p: Preview | undefined, accountId: string | undefined) {
  const lastTotal = useRef<string>('');
  useEffect(() => {
    const inv = p?.invoice;
    if (!inv) return;
    const sig = `${inv.currency}:${num(inv.totalInCents)}:${(p.addOns ?? []).join(',')}`;
    if (sig === lastTotal.current) return;
    lastTotal.current = sig;
    track(() => analytics().addToCart({ currency: inv.currency ?? '', value: num(inv.totalInCents) / 100, items: analyticsItems(p), accountId: accountId || undefined, source: 'buy' }));
  }, [p, accountId]);
}
