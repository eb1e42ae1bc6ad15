import { MSG_EU_CONSENT } from '@hangar/ui';

/** Spec 000 §8: the available-plans failure message. */
export const CONNECT_ERROR = 'There was a problem connecting.';

/** Messages that belong to a field, so the field shows them too. */
export const FIELD_OF: Record<string, string> = {
  'Please enter your email address.': 'email',
  'Please enter your organization name.': 'organizationName',
  'please confirm': 'license',
  'Please agree to our terms of use.': 'eula',
  'Name cannot be blank': 'cardholderName',
  'Postal Code cannot be blank': 'zipcode',
  'Please select a country': 'country',
  'Credit Card cannot be blank': 'card',
  [MSG_EU_CONSENT]: 'gdpr',
  "Please enter the cardholder's first and last name.": 'cardholderName',
};

/** Preview messages about a section's choices, shown in that section too. */
export const SECTION_OF: Record<string, string> = {
  'No region(s) selected.': 'regions',
  "Regions cannot be changed while your licenses are allocated to users. Make changes on the users page of the product's web site.": 'regions',
};

/** After a decline the frame keeps the card as typed: the buyer corrects it or types another. */
export const CARD_AGAIN = 'Your card was not charged. Correct the card details, or enter another card.';

/** Spec 000 §8: the account buys in its own currency. */
export const CURRENCY_NOT_ALLOWED = 'CURRENCY_NOT_ALLOWED_FOR_ACCOUNT';
export const MSG_CURRENCY_NOT_ALLOWED = 'Sorry, that currency is not allowed for your account.';
/** Military plans are sold to buyers who proved eligibility (spec 001 §4). */
export const MILITARY_ELIGIBILITY_REQUIRED = 'MILITARY_ELIGIBILITY_REQUIRED';

export const DOWNGRADE_ALLOCATIONS =
  'Your organization’s licences are allocated to users. An individual plan has one licence, yours: when this order goes through, the users lose the licences and products allocated to them.';

/** The eligibility page of a military cart: the international one for _intl plans. */
export function eligibilityPath(addOns: readonly string[]): string {
  return addOns.some((c) => c.startsWith('mfb_') && c.endsWith('_intl')) ? '/buy/military_intl' : '/buy/military';
}
