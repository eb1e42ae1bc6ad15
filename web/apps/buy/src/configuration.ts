import type { CurrencyCode } from '@hangar/money';
import type { WireConfiguration, WirePreview } from '@hangar/api-client';
import type { BuyQuery } from './query';
import { suggestedCountry } from '@hangar/storefront';

/**
 * What the buyer has chosen and typed. The page keeps no copy of checkout's rules:
 * every change is sent to POST /buy/api/invoice/preview and the normalised cart it
 * answers replaces `addOns` (see adopt()).
 */
export interface Configuration {
  currency: CurrencyCode;
  /** Codes in selection order (the server's exclusions let the later choice win). */
  addOns: string[];
  /** The typed text; checkout turns it into a number (minimum, clamp). */
  quantity: string;
  email: string;
  organizationName: string;
  businessIdentificationNo: string;
  accountId: string;
  subscriptionId: string;
  military: boolean;
  militaryInternational: boolean;
  hjopaBundle: boolean;
  isBusiness: boolean;
  businessDowngrade: boolean;
  isEulaChecked: boolean;
  isLicenseAgreementChecked: boolean;
  isGdprCompliant: boolean;
  isEuCustomer: boolean;
  jeppCustomerNo: string;
  zipcode: string;
  country: string;
  cardholderName: string;
  discountPromoCode: string[];
  giftCertificateCode: string[];
  viewedPromoCodes: string[];
  keepExpiredAllocations: boolean;
  expiredAllocations: unknown[] | undefined;
  runwayAircraft: string[];
  paymentMethod: 'CREDIT_CARD' | 'PAYPAL';
  /**
   * Sales mode's card reader (this device's setting) while a credit-card admin sells: the
   * configuration is then the customer's (checkout's who(): their e-mail and account).
   */
  readerSerialNumber: string;
  /** One-shot inputs, cleared once a preview answered them. */
  chartChoice: { addOnCode: string; type: 'App' | 'Web' | 'Both'; checked: boolean } | undefined;
  upgrade: string;
  extras: string[];
}

/**
 * The billing country a currency suggests (@hangar/storefront's rule, shared with /gift). It
 * follows the currency until the buyer picks a country.
 */
export function defaultCountry(currency: CurrencyCode): string {
  return suggestedCountry(currency);
}

/**
 * The country sent with the billing address. The currency's suggestion alone, with no postal
 * code typed, is not an address: checkout then keeps a subscriber's billing contact (the
 * stored-card renewal has no billing fields, and sending the suggestion replaced the
 * contact's postal code with none: 'Postal Code cannot be blank').
 */
function sentCountry(c: Configuration): string {
  return c.zipcode.trim() === '' && c.country === defaultCountry(c.currency) ? '' : c.country;
}

export function initialConfiguration(q: BuyQuery): Configuration {
  return {
    currency: q.currency,
    addOns: [...q.addOns],
    quantity: q.quantity ?? '',
    email: q.email ?? '',
    organizationName: '',
    businessIdentificationNo: '',
    accountId: q.accountId ?? '',
    subscriptionId: q.subscriptionId ?? '',
    military: q.military,
    militaryInternational: q.militaryInternational,
    hjopaBundle: q.hjopaBundle,
    isBusiness: false,
    businessDowngrade: false,
    isEulaChecked: false,
    isLicenseAgreementChecked: false,
    isGdprCompliant: false,
    isEuCustomer: false,
    // jepp=true is a flag; anything else is the customer number.
    jeppCustomerNo: q.jepp && q.jepp !== 'true' ? q.jepp : '',
    zipcode: q.zipcode ?? '',
    country: defaultCountry(q.currency),
    cardholderName: '',
    discountPromoCode: [],
    giftCertificateCode: [],
    viewedPromoCodes: [],
    keepExpiredAllocations: false,
    expiredAllocations: undefined,
    runwayAircraft: [],
    paymentMethod: 'CREDIT_CARD',
    readerSerialNumber: '',
    chartChoice: undefined,
    upgrade: q.upgrade ?? '',
    extras: q.extras,
  };
}

export type Action =
  | { type: 'set'; patch: Partial<Configuration> }
  /** A radio choice among plans: the other plans leave the cart. */
  | { type: 'selectPlan'; plan: string; planCodes: readonly string[] }
  | { type: 'toggle'; code: string }
  /** Radio choice within a group (three-month plan regions, jet-maker model). */
  | { type: 'pick'; code: string; group: readonly string[] }
  | { type: 'chart'; addOnCode: string; platform: 'App' | 'Web' | 'Both'; checked: boolean }
  | { type: 'addCode'; code: string; kind: 'promo' | 'gift' }
  | { type: 'removeCode'; code: string }
  | { type: 'viewed'; codes: string[] }
  /** The server's normalised cart for the latest request. */
  | { type: 'adopt'; preview: WirePreview };

const without = (list: readonly string[], code: string) => list.filter((c) => c !== code);

export function reduce(s: Configuration, a: Action): Configuration {
  switch (a.type) {
    case 'set': {
      const next = { ...s, ...a.patch };
      if (a.patch.currency !== undefined && a.patch.country === undefined && s.country === defaultCountry(s.currency)) next.country = defaultCountry(a.patch.currency);
      return next;
    }
    case 'selectPlan':
      return { ...s, addOns: [a.plan, ...s.addOns.filter((c) => c !== a.plan && !a.planCodes.includes(c))] };
    case 'toggle':
      return { ...s, addOns: s.addOns.includes(a.code) ? without(s.addOns, a.code) : [...s.addOns, a.code] };
    case 'pick':
      return { ...s, addOns: [...s.addOns.filter((c) => !a.group.includes(c)), a.code] };
    case 'chart': {
      // The radio shows the choice at once; checkout applies the overlaps and answers the cart.
      const web = `${a.addOnCode}_web`;
      const rest = s.addOns.filter((c) => c !== a.addOnCode && c !== web);
      const add = !a.checked ? [] : a.platform === 'App' ? [a.addOnCode] : a.platform === 'Web' ? [web] : [a.addOnCode, web];
      return { ...s, addOns: [...rest, ...add], chartChoice: { addOnCode: a.addOnCode, type: a.platform, checked: a.checked } };
    }
    case 'addCode': {
      const field = a.kind === 'gift' ? 'giftCertificateCode' : 'discountPromoCode';
      if (s[field].some((c) => c.toLowerCase() === a.code.toLowerCase())) return s;
      return { ...s, [field]: [...s[field], a.code] };
    }
    case 'removeCode':
      return { ...s, discountPromoCode: without(s.discountPromoCode, a.code), giftCertificateCode: without(s.giftCertificateCode, a.code) };
    case 'viewed':
      return { ...s, viewedPromoCodes: [...new Set([...s.viewedPromoCodes, ...a.codes])] };
    case 'adopt': {
      const p = a.preview;
      const addOns = p.addOns ?? s.addOns;
      // Codes the server refused (unknown, not valid, PROMO_POP) leave the code box.
      const refused = new Set((p.codeErrors ?? []).map((e) => (e.code ?? '').toLowerCase()));
      const removed = new Set((p.promoInfoRequirements ?? []).filter((r) => r.removeCode).map((r) => (r.code ?? '').toLowerCase()));
      const keep = (c: string) => !refused.has(c.toLowerCase()) && !removed.has(c.toLowerCase());
      const next: Configuration = {
        ...s,
        addOns,
        chartChoice: undefined,
        upgrade: '',
        extras: [],
        businessDowngrade: false,
        discountPromoCode: s.discountPromoCode.filter(keep),
        giftCertificateCode: s.giftCertificateCode.filter(keep),
      };
      // A logged-in buyer's e-mail is the session's.
      if (p.emailLocked && p.email) next.email = p.email;
      if (p.accountId && !s.accountId) next.accountId = p.accountId;
      return next;
    }
  }
}

function hasCode(s: Configuration, code: string | undefined): boolean {
  const c = (code ?? '').toLowerCase();
  return c !== '' && [...s.discountPromoCode, ...s.giftCertificateCode].some((x) => x.toLowerCase() === c);
}

/** Does adopting the answer change anything the next request would send? */
export function needsAdopt(s: Configuration, p: WirePreview): boolean {
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return (
    !same(s.addOns, p.addOns ?? s.addOns) ||
    s.chartChoice !== undefined ||
    s.upgrade !== '' ||
    s.extras.length > 0 ||
    s.businessDowngrade ||
    (p.codeErrors ?? []).some((e) => hasCode(s, e.code)) ||
    (p.promoInfoRequirements ?? []).some((r) => r.removeCode && hasCode(s, r.code)) ||
    (!!p.emailLocked && !!p.email && p.email !== s.email)
  );
}

/** The zip asks again only from 4 characters, or cleared (spec 000 §4). */
export function effectiveZip(zip: string): string {
  const z = zip.trim();
  return z.length >= 4 ? z : '';
}

/**
 * The e-mail asks again once it has an address's shape (checkout's: x@y.z), or cleared: a
 * half-typed address is not priced (issue 45: one preview per key). A half-typed one goes as
 * none, which checkout answers as it answers a malformed one ("Please enter your email address.").
 */
export function effectiveEmail(email: string): string {
  const v = email.trim();
  return v === '' || /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v) ? v : '';
}

/** The business id asks again at 4+ characters or cleared. */
export function effectiveBusinessId(id: string): string {
  const v = id.trim();
  return v.length >= 4 ? v : '';
}

/** The request body of preview and validate (spec 000 §3 names). */
export function toWire(c: Configuration, extra: { cartId: string; counter: number }): WireConfiguration {
  const quantity = c.quantity.trim() === '' ? undefined : /^\d+$/.test(c.quantity.trim()) ? Number(c.quantity.trim()) : c.quantity;
  return {
    email: effectiveEmail(c.email),
    organizationName: c.organizationName.trim(),
    businessIdentificationNo: effectiveBusinessId(c.businessIdentificationNo),
    accountId: c.accountId,
    subscriptionId: c.subscriptionId,
    currency: c.currency,
    addOns: c.addOns,
    quantity,
    military: c.military,
    militaryInternational: c.militaryInternational,
    hjopaBundle: c.hjopaBundle,
    isBusiness: c.isBusiness,
    businessDowngrade: c.businessDowngrade,
    isEulaChecked: c.isEulaChecked,
    isLicenseAgreementChecked: c.isLicenseAgreementChecked,
    isGdprCompliant: c.isGdprCompliant,
    isEuCustomer: c.isEuCustomer,
    jeppCustomerNo: c.jeppCustomerNo.trim(),
    billingInfo: { zipcode: effectiveZip(c.zipcode), country: sentCountry(c) },
    cardholderName: c.cardholderName.trim(),
    discountPromoCode: c.discountPromoCode,
    giftCertificateCode: c.giftCertificateCode,
    viewedPromoCodes: c.viewedPromoCodes,
    keepExpiredAllocations: c.keepExpiredAllocations,
    expiredAllocations: c.expiredAllocations,
    runwayAircraft: c.runwayAircraft,
    paymentMethod: c.paymentMethod,
    readerSerialNumber: c.readerSerialNumber || undefined,
    chartChoice: c.chartChoice,
    upgrade: c.upgrade,
    extras: c.extras,
    cartId: extra.cartId,
    counter: extra.counter,
  } as WireConfiguration;
}
