/** Wire types of the checkout, identity and payments documents, by their spec names. */
import type { components as Checkout } from './generated/hangar/checkout/v1/checkout';
import type { components as Identity } from './generated/hangar/identity/v1/identity';
import type { components as Payments } from './generated/hangar/payments/v1/payments';

export type WireConfiguration = Checkout['schemas']['v1Configuration'];
export type WirePreview = Checkout['schemas']['v1PreviewInvoiceResponse'];
export type WireInvoice = Checkout['schemas']['v1Invoice'];
export type WireInvoiceItem = Checkout['schemas']['v1InvoiceItem'];
export type WirePlanChange = Checkout['schemas']['v1PlanChange'];
export type WirePromoInfoRequirement = Checkout['schemas']['v1PromoInfoRequirement'];
export type WireValidateInvoice = Checkout['schemas']['v1ValidateInvoiceResponse'];
export type WireValidatePromo = Checkout['schemas']['v1ValidatePromoResponse'];
export type WireAllocation = Checkout['schemas']['v1Allocation'];
export type WireMe = Identity['schemas']['v1GetMeResponse'];
export type WireLogin = Identity['schemas']['v1LoginResponse'];
export type WirePaymentMethod = Payments['schemas']['v1GetPaymentMethodResponse'];

/**
 * A number from the wire. proto3 JSON writes int64 as a string and int32 as a number;
 * money fields move from the first to the second, so accept both.
 */
export function num(v: unknown, fallback = 0): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : fallback;
}
