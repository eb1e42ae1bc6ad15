import { useEffect, useRef, useState } from 'react';
import { ApiError, type WireAllocation, type WirePromoInfoRequirement } from '@hangar/api-client';
import { AUTH_FAILED, LOGIN_REQUIRED } from './account';
import type { Preview } from './hooks';
import { CURRENCY_NOT_ALLOWED, MSG_CURRENCY_NOT_ALLOWED } from './messages';
import type { BuyQuery } from './query';

/** What the page's modals show, and what opens them besides a click. */
export function useModals(query: BuyQuery, p: Preview | undefined, previewError: unknown) {
  const [login, setLogin] = useState<string | undefined>(query.loginFailed ? AUTH_FAILED : query.promptLogin ? LOGIN_REQUIRED : undefined);
  const [currencyMessage, setCurrencyMessage] = useState<string | undefined>();
  // The military buy page to prove eligibility on, when the server asked for it.
  const [eligibilityPage, setEligibilityPage] = useState<string | undefined>();
  // A preview of an account this session may not act on (a /buy#/account/{id} link opened
  // by someone else, or logged out) answers 401 with requireLogin: log in first (spec 000
  // §4 Login).
  useEffect(() => {
    if (previewError instanceof ApiError && previewError.status === 401) setLogin(LOGIN_REQUIRED);
  }, [previewError]);
  const [planChangeOpen, setPlanChangeOpen] = useState(false);
  const [planChangeErrors, setPlanChangeErrors] = useState<string[]>([]);
  const [allocations, setAllocations] = useState<WireAllocation[] | undefined>();
  const [cardHelp, setCardHelp] = useState(false);
  const [promo, setPromo] = useState<WirePromoInfoRequirement | undefined>();
  const seenNotices = useRef(new Set<string>());
  useEffect(() => {
    // Notices the server asks to show (EAA2020 once, BUNDLE2020 always).
    const req = (p?.promoInfoRequirements ?? []).find((r) => r.code && !seenNotices.current.has(`${r.code}:${p?.requestCounter}`));
    if (!req || promo) return;
    seenNotices.current.add(`${req.code}:${p?.requestCounter}`);
    setPromo(req);
  }, [p, promo]);
  // The account buys in its own currency: the preview says so and the modal opens (never
  // for military carts, whose currency the server fixes).
  const currencyRefused = (p?.errorCodes ?? []).includes(CURRENCY_NOT_ALLOWED);
  useEffect(() => {
    if (currencyRefused) setCurrencyMessage(MSG_CURRENCY_NOT_ALLOWED);
  }, [currencyRefused]);
  return {
    login, setLogin,
    currencyMessage, setCurrencyMessage,
    eligibilityPage, setEligibilityPage,
    planChangeOpen, setPlanChangeOpen,
    planChangeErrors, setPlanChangeErrors,
    allocations, setAllocations,
    cardHelp, setCardHelp,
    promo, setPromo,
  };
}

export type Modals = ReturnType<typeof useModals>;
