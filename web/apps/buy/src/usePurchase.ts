import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { MSG_CAPTCHA_ERROR, type HostedCardFieldsHandle, type HumanVerificationHandle } from '@hangar/ui';
import type { CurrencyCode } from '@hangar/money';
import { ApiError, num, unwrap, type PurchaseAttempt, type WireMe } from '@hangar/api-client';
import { analytics } from '@hangar/analytics';
import { LOGIN_REQUIRED } from './account';
import { apiClient } from './api';
import { analyticsItems, track } from './buyAnalytics';
import { toWire, type Configuration } from './configuration';
import type { Preview } from './hooks';
import { CARD_AGAIN, CURRENCY_NOT_ALLOWED, eligibilityPath, MILITARY_ELIGIBILITY_REQUIRED, MSG_CURRENCY_NOT_ALLOWED } from './messages';
import type { KeptCard } from './payment/PaymentSection';
import type { Modals } from './useModals';
import type { Payment } from './usePayment';
import { keepReceipt } from './success/receiptQuery';

type Flow = typeof import('./submit');

export interface PurchaseInput {
  preview: Preview | undefined;
  /** The shown answer is not yet the cart's (rendering in a transition). */
  previewPending: boolean;
  refetchPreview: () => void;
  config: Configuration;
  currency: CurrencyCode;
  me: WireMe;
  payment: Payment;
  hosted: RefObject<HostedCardFieldsHandle | null>;
  human: RefObject<HumanVerificationHandle | null>;
  deeplinkOnSuccess: string | undefined;
  kiosk: boolean;
  modals: Modals;
  navigate: (url: string) => void;
}

/**
 * Pay: tokenise the card (or take the stored method, the wallet, the reader), submit under
 * one idempotency key per attempt, and go to the success page. There is no /validate first:
 * submit validates, and its refusal carries the fresh preview the page acts on (one click is
 * priced once, issue 43).
 */
export function usePurchase(o: PurchaseInput) {
  const queries = useQueryClient();
  const [submitting, setSubmitting] = useState(false);
  const [submitErrors, setSubmitErrors] = useState<string[]>([]);
  // Waiting for an order another request is still processing (409 ORDER_IN_PROGRESS).
  const [processing, setProcessing] = useState(false);
  // What went wrong with the card itself (the frame refused it, the bank declined it): shown
  // next to the card fields as well as in the summary.
  const [cardErrors, setCardErrors] = useState<string[]>([]);
  const [attempted, setAttempted] = useState(false);
  // Sales mode: the order waits for the customer's card on the chosen reader.
  const [waitingForCard, setWaitingForCard] = useState(false);
  const [confirmedChange, setConfirmedChange] = useState<string | undefined>();
  // One idempotency key per attempt at the quote's order, made at the first Pay.
  const attempts = useRef<PurchaseAttempt | undefined>(undefined);
  // The card tokenised for a click that submit refused before charging (a form problem, a
  // changed price): its single-use nonce is still unspent, so it pays the next click unless
  // the buyer asks for another card.
  const [keptCard, setKeptCard] = useState<KeptCard>();
  useEffect(() => setKeptCard(undefined), [o.config.cardholderName, o.config.zipcode]);
  const otherCard = useCallback(() => setKeptCard(undefined), []);
  const { preview: p, config, me, payment, modals, hosted, human } = o;
  const { payWith, reader } = payment;
  const loggedIn = me.loggedIn === true;

  const paymentFormErrors = (): string[] => {
    if (payWith === 'stored') return [];
    const errs: string[] = [];
    const name = config.cardholderName.trim();
    // The card reader reads the cardholder's name from the card: none is asked for.
    if (payWith !== 'reader') {
      if (name === '') errs.push('Name cannot be blank');
      else if (name.split(/\s+/).length < 2) errs.push('Please enter the cardholder name as it appears on the card (first and last name).');
    }
    if (config.zipcode.trim() === '') errs.push('Postal Code cannot be blank');
    if (config.country === '') errs.push('Please select a country');
    if (payWith === 'reader' && !reader) errs.push('Please choose a card reader.');
    return errs;
  };

  /** The payment method: a nonce from the hosted fields or the wallet, or a token; errors when there is none. */
  const paymentMethod = async ({ payWithCardReader }: Flow): Promise<{ nonce?: string; token?: string; card?: KeptCard } | undefined> => {
    if (payWith === 'stored') return { token: payment.storedMethod.data?.paymentMethod?.token };
    if (payWith === 'reader') {
      // The storefront's card-present payment: vault on the reader, poll every 1000 ms; the
      // vault verifies a card, so it carries the page's human-verification value. The page
      // says it waits for the card on that reader meanwhile (issue 45: only "Processing…").
      setWaitingForCard(true);
      try {
        return { token: (await payWithCardReader(config.email || me.email || '', reader, { recaptchaValue: human.current?.value() ?? '' })).paymentMethod };
      } finally {
        setWaitingForCard(false);
      }
    }
    if (payWith === 'wallet') {
      const r = await hosted.current?.tokenizeWallet(config.email || me.email || '');
      if (r?.ok) return { nonce: r.nonce };
      setSubmitErrors([r && !r.ok ? r.message : 'The payment service did not answer.']);
      return undefined;
    }
    if (keptCard) return { nonce: keptCard.nonce, card: keptCard };
    const r = await hosted.current?.tokenize(config.cardholderName.trim(), config.zipcode.trim());
    if (r?.ok) return { nonce: r.nonce, card: { nonce: r.nonce, cardType: r.details?.cardType, lastFour: r.details?.lastFour } };
    const msg = r && !r.ok ? r.message : 'Credit Card cannot be blank';
    setSubmitErrors([msg]);
    if (r && !r.ok && r.customer) setCardErrors([msg]);
    return undefined;
  };

  /**
   * The card frame's problem, without paying: it tokenises what is typed (the nonce, single
   * use, is dropped; the frame keeps the card for the Pay that follows).
   */
  const cardProblems = async (): Promise<string[]> => {
    if (payWith !== 'card' || keptCard) return [];
    const r = await hosted.current?.tokenize(config.cardholderName.trim(), config.zipcode.trim());
    if (r?.ok) return [];
    const msg = r && !r.ok ? r.message : 'Credit Card cannot be blank';
    if (r && !r.ok && r.customer) setCardErrors([msg]);
    return [msg];
  };

  const purchase = async (confirmed = false) => {
    // Never on an answer the screen has not caught up with (it is rendering in a transition).
    if (submitting || !p || o.previewPending) return;
    setAttempted(true);
    setSubmitErrors([]);
    setCardErrors([]);
    const quote = p.quoteHash ?? '';
    // A plan change that needs confirmation blocks payment until confirmed.
    if (p.planChange?.needsConfirmation && !confirmed && confirmedChange !== quote) {
      modals.setPlanChangeErrors([]);
      modals.setPlanChangeOpen(true);
      return;
    }
    const formErrors = [...paymentFormErrors(), ...(human.current?.problems() ?? [])];
    setSubmitting(true);
    try {
      const flow = await import('./submit');
      const wire = { ...toWire(config, { cartId: '', counter: 0 }), recaptchaValue: human.current?.value() ?? '' };
      if (formErrors.length > 0) {
        // The first Pay shows every problem at once (issue 45: the e-mail and the card came
        // only at the second): the card frame's and the server's validation (e-mail,
        // organization, agreements) beside the form's. Nothing is submitted.
        const [card, server] = await Promise.all([cardProblems(), flow.validateCart(wire)]);
        setSubmitErrors([...new Set([...server, ...formErrors, ...card])]);
        return;
      }
      const { submitOrder, successUrl } = flow;
      const attempt = (attempts.current ??= new flow.PurchaseAttempt());
      track(() => analytics().beginCheckout({ currency: o.currency, value: num(p.invoice?.totalInCents) / 100, items: analyticsItems(p), accountId: me.accountUuid || undefined, source: 'buy' }));
      const method = await paymentMethod(flow);
      if (!method) {
        // The card was refused by its frame: the server's problems are shown with it.
        if (payWith === 'card') {
          const server = await flow.validateCart(wire);
          setSubmitErrors((shown) => [...new Set([...server, ...shown])]);
        }
        return;
      }
      analytics().addPaymentInfo();
      const req = {
        configuration: wire,
        nonce: method.nonce,
        paymentMethodToken: method.token,
        quoteId: p.quoteId,
        deeplinkOnSuccess: o.deeplinkOnSuccess,
        marketingConsent: payment.askMarketing && payment.marketing ? true : undefined,
      };
      // The store's one submit flow: a lost answer is asked again with the same key, an order
      // being processed elsewhere is waited for as Retry-After says, up to a bound (then it
      // may still complete, so the key is kept and the buyer told to check for a receipt).
      const result = await submitOrder(req, attempt, quote, setProcessing);
      // Refused before any charge (400, 401, a changed price): the card's nonce is unspent.
      const unspent = result.status !== 'ok' && (result.httpStatus === 400 || result.httpStatus === 401 || result.reason === 'QUOTE_CHANGED');
      setKeptCard(payWith === 'card' && unspent ? method.card : undefined);
      if (result.status !== 'ok') {
        const errors = result.errors ?? [];
        if (result.requireLogin) modals.setLogin(LOGIN_REQUIRED);
        // A refused order's fresh preview: the allocations to ask about, the promotion's
        // notice, and whether the plan needs proven military eligibility.
        const refused = result.reason === 'QUOTE_CHANGED' ? undefined : result.preview;
        if (refused) {
          if ((refused.expiringAllocations ?? []).length > 0) modals.setAllocations(refused.expiringAllocations);
          if ((refused.promoInfoRequirements ?? []).length > 0) modals.setPromo(refused.promoInfoRequirements![0]);
          modals.setEligibilityPage((refused.errorCodes ?? []).includes(MILITARY_ELIGIBILITY_REQUIRED) ? eligibilityPath(p.addOns ?? config.addOns) : undefined);
        }
        if (result.reason === CURRENCY_NOT_ALLOWED) modals.setCurrencyMessage(errors[0] || MSG_CURRENCY_NOT_ALLOWED);
        if (result.reason === 'QUOTE_CHANGED') {
          // Nothing was charged: the prices moved; show the fresh invoice and ask again.
          attempt.settled();
          o.refetchPreview();
        }
        // A card nonce is single use: the next Pay tokenises the frame's fields again, which
        // keep the card as typed; payments' message next to the card says what to change.
        if (result.httpStatus === 402) {
          attempt.settled();
          if (payWith === 'card') setCardErrors([...errors, CARD_AGAIN]);
        }
        // A refused tick (expired, reused) is cleared for a new one (spec 001); the body
        // changes with the next tick, so the next attempt takes a new key.
        if (errors.includes(MSG_CAPTCHA_ERROR)) {
          human.current?.reset();
          attempt.settled();
        }
        setSubmitErrors(errors);
        return;
      }
      const inv = (result.invoice as Preview['invoice']) ?? p.invoice;
      const details = { currency: inv?.currency ?? o.currency, value: num(inv?.totalInCents) / 100, items: analyticsItems({ invoice: inv }), invoiceId: result.invoiceId, accountId: result.accountId, source: 'buy' };
      track(() => {
        analytics().purchase(details);
        analytics().orderCompleted(details);
        analytics().socialPurchase(details.currency, details.value);
      });
      // The success page shows the receipt the submit answered (no second request).
      keepReceipt(queries, result.invoiceId, result.receipt);
      const url = successUrl(result, o.kiosk, { newAccount: !loggedIn && payWith !== 'reader' });
      // Only the server's deeplink: it keeps deeplinkOnSuccess only for the app's own
      // schemes and hosts, so the page never follows one it dropped.
      const deeplink = result.mobileDeeplink;
      if (deeplink) {
        // The app opens first; the success page follows after 3 s.
        o.navigate(deeplink);
        setTimeout(() => o.navigate(url), 3000);
      } else {
        o.navigate(url);
      }
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(0, 'unknown', (e as Error).message);
      setSubmitErrors(err.fieldErrors.length ? err.fieldErrors.map((f) => f.message) : [err.message]);
    } finally {
      setSubmitting(false);
    }
  };

  /** The plan change is confirmed: a business becoming individual is asked whether it may first. */
  const proceedWithChange = async () => {
    if (config.businessDowngrade) {
      try {
        const r = await unwrap(apiClient().checkout.GET('/buy/api/business/can-downgrade', { params: { query: { accountId: config.accountId || me.accountUuid || '' } } }));
        if (r.canDowngrade === false) {
          modals.setPlanChangeErrors(r.errors ?? []);
          return;
        }
      } catch (e) {
        console.error('business check failed', e);
      }
    }
    setConfirmedChange(p?.quoteHash ?? '');
    modals.setPlanChangeOpen(false);
    void purchase(true);
  };

  return { purchase, proceedWithChange, submitting, processing, waitingForCard, reader, submitErrors, setSubmitErrors, cardErrors, attempted, keptCard, otherCard };
}
