import type { QueryClient } from '@tanstack/react-query';
import type { CheckoutComponents } from '@hangar/api-client';

/** GET /buy/api/receipt/{invoiceId} (checkout). */
export type Receipt = CheckoutComponents['schemas']['v1GetReceiptResponse'];

/**
 * How long a receipt the page holds is shown without asking again: long enough for the
 * success page that opens right after the submit, short enough that a later visit (after
 * a contact saved elsewhere issued a corrected copy) reads the route.
 */
export const RECEIPT_FRESH_MS = 30_000;

/** The success page's query of an order's receipt. */
export function receiptKey(invoiceId: string) {
  return ['receipt', invoiceId] as const;
}

/**
 * Keeps the receipt a submit answered for the success page, which then shows it without
 * asking again; a reload or the e-mail's link asks (GET /buy/api/receipt/{invoiceId}).
 */
export function keepReceipt(client: QueryClient, invoiceId: string | undefined, receipt: Receipt | undefined) {
  if (invoiceId && receipt) client.setQueryData(receiptKey(invoiceId), receipt);
}
