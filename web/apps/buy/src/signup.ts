import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { createAccount } from './account';
import type { CreateAccountOffer } from './modals/Modals';

/** The server's reason a purchase of several licences needs a login (spec 000 §6). */
export const MSG_LOGIN_MULTI_LICENSE = 'Please log in to buy more than one license.';

export interface SignupAtCheckout {
  /** The session as /buy/api/me and the current preview see it. */
  loggedIn: boolean;
  previewLoggedIn: boolean;
  /** A preview is shown and none is being fetched. */
  previewSettled: boolean;
  submitting: boolean;
  /** The purchase's refusal messages: the offer stands while they ask for a login for several licences. */
  errors: readonly string[];
  business: boolean;
  organizationName: string;
  isEu: boolean;
  onOrganization: (v: string) => void;
  /** The account exists and the session is its: close the modal, keep the cart. */
  onSignedUp: (email: string) => void;
  /** Go on to payment (the purchase again, now logged in). */
  goOn: () => void;
}

/**
 * Issue 31: a new organization buying several licences is asked to log in; instead of
 * sending it away to sign up, the login modal offers CREATE NEW ACCOUNT (spec 001 §2).
 * The account is created and logged in through identity (the answer sets the session
 * cookie), every query is fetched again as the new session (who is logged in, the
 * preview), and once the page sees the session the purchase goes on by itself, with the
 * same cart and the card still in the card fields. The organization itself is created
 * with the order's name when the order is placed.
 */
export function useSignupAtCheckout(o: SignupAtCheckout): CreateAccountOffer | undefined {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const goOn = useRef(o.goOn);
  goOn.current = o.goOn;
  const ready = pending && o.loggedIn && o.previewLoggedIn && o.previewSettled && !o.submitting;
  useEffect(() => {
    if (!ready) return;
    setPending(false);
    goOn.current();
  }, [ready]);
  if (o.loggedIn || !o.errors.includes(MSG_LOGIN_MULTI_LICENSE)) return undefined;
  return {
    business: o.business,
    organizationName: o.organizationName,
    onOrganization: o.onOrganization,
    onCreate: async (email, password) => {
      const r = await createAccount(email, password, o.isEu);
      if (!r.ok) return r.messages;
      o.onSignedUp(email);
      setPending(true);
      await queryClient.invalidateQueries();
      return undefined;
    },
  };
}
