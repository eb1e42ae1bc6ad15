// The subscriber's account page (issue 17 item 5; spec 000 §3-§4, spec 001 §4): the calls
// it makes and the two state machines of spec 001 §4 "Payment-method and auto-renew".
// Everything shown comes from the server's answers; the page computes no price.
import { ApiError, createApiClient, num, unwrap, type ApiClient, type CheckoutComponents, type Me, type OrganizationsComponents, type PaymentsComponents } from '@hangar/api-client';

export type RenewalStatus = CheckoutComponents['schemas']['v1GetRenewalStatusResponse'];
export type InvoiceSummary = CheckoutComponents['schemas']['v1InvoiceSummary'];
export type SubscriptionSimple = CheckoutComponents['schemas']['v1GetSubscriptionSimpleResponse'];
export type PaymentMethodOnFile = PaymentsComponents['schemas']['v1GetPaymentMethodResponse'];
export type PaymentMethodUpdate = PaymentsComponents['schemas']['v1UpdateAccountPaymentMethodResponse'];

/** An open invitation to join an organization (identity's GetInvitationResponse). */
export type Invitation = OrganizationsComponents['schemas']['v1GetInvitationResponse'];
/** The answer of an accepted invitation. */
export type InvitationAccepted = OrganizationsComponents['schemas']['v1AcceptInvitationResponse'];

/** Auto-renew (spec 000 §4): updating, submitting, succeeded, failed. */
export type AutoRenewState =
  | { kind: 'idle' }
  | { kind: 'updating'; to: boolean }
  | { kind: 'submitting'; to: boolean }
  | { kind: 'succeeded'; on: boolean }
  | { kind: 'failed'; to: boolean; errors: string[] };

export type AutoRenewEvent =
  | { type: 'toggle'; to: boolean }
  | { type: 'submit' }
  | { type: 'answer'; status?: string; autoRenew?: boolean; errors?: string[] }
  | { type: 'error'; message: string };

/**
 * One click moves the toggle through updating (the change is asked for, the control is
 * locked) and submitting (the form post is in flight) to the server's answer: succeeded
 * with the flag the server now holds, or failed with its errors. A second click while a
 * change is under way is ignored.
 */
export function autoRenewReducer(s: AutoRenewState, e: AutoRenewEvent): AutoRenewState {
  switch (e.type) {
    case 'toggle':
      return s.kind === 'updating' || s.kind === 'submitting' ? s : { kind: 'updating', to: e.to };
    case 'submit':
      return s.kind === 'updating' ? { kind: 'submitting', to: s.to } : s;
    case 'answer':
      if (s.kind !== 'submitting') return s;
      if (e.status === 'succeeded') return { kind: 'succeeded', on: e.autoRenew === true };
      return { kind: 'failed', to: s.to, errors: e.errors?.length ? e.errors : ['Automatic renewal could not be changed. Please try again.'] };
    case 'error':
      return s.kind === 'submitting' ? { kind: 'failed', to: s.to, errors: [e.message] } : s;
  }
}

/** Payment-method update (spec 000 §4): updating, succeeded, failed; the form shown or hidden. */
export type PaymentState =
  | { kind: 'hidden' }
  | { kind: 'form'; errors: string[] }
  | { kind: 'updating' }
  | { kind: 'succeeded'; summary: string }
  | { kind: 'failed'; errors: string[] };

export type PaymentEvent =
  | { type: 'show' }
  | { type: 'hide' }
  | { type: 'invalid'; errors: string[] }
  | { type: 'submit' }
  | { type: 'answer'; status?: string; errors?: string[]; summary?: string }
  | { type: 'error'; message: string };

export function paymentReducer(s: PaymentState, e: PaymentEvent): PaymentState {
  switch (e.type) {
    case 'show':
      return s.kind === 'updating' ? s : { kind: 'form', errors: [] };
    case 'hide':
      return s.kind === 'updating' ? s : { kind: 'hidden' };
    case 'invalid':
      return s.kind === 'updating' ? s : { kind: 'form', errors: e.errors };
    case 'submit':
      return s.kind === 'form' || s.kind === 'failed' ? { kind: 'updating' } : s;
    case 'answer':
      if (s.kind !== 'updating') return s;
      // Spec 001 §8: a failed update shows the errors list of the response.
      if (e.status === 'succeeded') return { kind: 'succeeded', summary: e.summary ?? '' };
      return { kind: 'failed', errors: e.errors?.length ? e.errors : ['Your payment method could not be updated.'] };
    case 'error':
      return s.kind === 'updating' ? { kind: 'failed', errors: [e.message] } : s;
  }
}

/** "Visa ending in 1111, expires 12/2031" from the server's payment method. */
export function describeMethod(m: { type?: string; last4?: string; expirationDate?: string; braintreeEmail?: string } | undefined): string {
  if (!m) return '';
  if (m.braintreeEmail) return `${m.type || 'PayPal'} (${m.braintreeEmail})`;
  if (!m.last4) return m.type ?? '';
  return `${m.type || 'Card'} ending in ${m.last4}${m.expirationDate ? `, expires ${m.expirationDate}` : ''}`;
}

/** The receipt page of an invoice (the buy remote's /buy/success). */
export function receiptHref(invoiceId: string, print?: 'invoice'): string {
  return `/buy/success?invoiceId=${encodeURIComponent(invoiceId)}${print ? `&print=${print}` : ''}`;
}

/** The text of an error for the page: the server's field messages, else its message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.fieldErrors.length > 0) return err.fieldErrors.map((f) => f.message).join(' ');
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The account page's calls, on the store's same-origin API. */
export function accountApi(client: ApiClient = createApiClient()) {
  return {
    me: (signal?: AbortSignal): Promise<Me> => unwrap(client.identity.GET('/buy/api/me', { signal })),
    renewal: (signal?: AbortSignal) => unwrap(client.checkout.GET('/buy/api/account/renewal', { signal })),
    subscription: (signal?: AbortSignal) =>
      unwrap(client.checkout.GET('/buy/api/subscription/simple', { params: { query: { includePaymentInfo: '1' } }, signal })),
    invoices: async (signal?: AbortSignal) => (await unwrap(client.checkout.GET('/buy/api/account/invoices', { signal }))).invoices ?? [],
    paymentMethod: (accountId: string, signal?: AbortSignal) =>
      unwrap(client.payments.GET('/buy/api/subscription/payment-method/{id}', { params: { path: { id: accountId } }, signal })),
    /** POST /buy/api/subscription/auto-renew?productCode= as form data with isAutoRenew (spec 001 §7). */
    setAutoRenew: (productCode: string, on: boolean) =>
      unwrap(
        client.checkout.POST('/buy/api/subscription/auto-renew', {
          // productCode travels in the query (the gateway reads it there), the flag as a form field.
          params: { query: { productCode } } as never,
          body: { isAutoRenew: String(on) } as never,
          bodySerializer: (b: unknown) => new URLSearchParams(b as Record<string, string>).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        }),
      ),
    /** POST /account/api/subscription/payment-method (spec 001 §7), payments' route. */
    updatePaymentMethod: (body: { accountId: string; nonce: string; zipcode: string; cardholderName: string; country: string; recaptchaValue: string }) =>
      unwrap(client.payments.POST('/account/api/subscription/payment-method', { body: { ...body, paymentMethod: 'CREDIT_CARD' } })),
    /** POST /account/api/password/forgot: the same answer for known and unknown addresses. */
    forgotPassword: async (email: string): Promise<string> =>
      (await unwrap(client.identity.POST('/account/api/password/forgot', { body: { email } }))).message ?? '',
    /** POST /account/api/password/set with a link's token; the answer logs the browser in. */
    setPassword: (token: string, password: string, confirmPassword: string) =>
      unwrap(client.identity.POST('/account/api/password/set', { body: { token, password, confirmPassword } })),
    /** POST /org/api/members: invites an address (the same answer for every address). */
    invite: async (email: string, roles: string[]): Promise<string> =>
      (await unwrap(client.organizations.POST('/org/api/members', { body: { email, roles } }))).message ?? '',
    /** POST /org/api/invitations/lookup: what an open invitation names. */
    invitation: (token: string): Promise<Invitation> => unwrap(client.organizations.POST('/org/api/invitations/lookup', { body: { token } })),
    /** POST /org/api/invitations/accept; without a session and an account, creates it and logs the browser in. */
    acceptInvitation: (token: string, password = '', confirmPassword = ''): Promise<InvitationAccepted> =>
      unwrap(client.organizations.POST('/org/api/invitations/accept', { body: { token, password, confirmPassword } })),
    login: async (username: string, password: string, recaptchaValue = ''): Promise<string | undefined> => {
      try {
        const r = await client.identity.POST('/pricing/api/login', { body: { username, password, ...(recaptchaValue ? { recaptchaValue } : {}) } });
        const data = r.data as { status?: string } | undefined;
        if (r.response.ok && data?.status === 'ok') return undefined;
        const err = (r.error ?? {}) as { msg?: string; message?: string };
        return err.msg || err.message || 'Failed to login';
      } catch {
        return 'Failed to login';
      }
    },
  };
}
export type AccountApi = ReturnType<typeof accountApi>;

export { num };
