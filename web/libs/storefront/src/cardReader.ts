import { ApiError, createApiClient, unwrap, type ApiClient } from '@hangar/api-client';

/** The card reader is polled every 1000 ms (spec 001 §4, §9). */
export const CARD_READER_POLL_MS = 1000;

export interface ReaderResult {
  /** The vaulted payment method's token, paid with as the checkout's existing payment method. */
  paymentMethod: string;
  /** Set on the checkout's cardholder name. */
  cardholderName: string;
}

/** payments' GetReaderVaultResultResponse: paymentMethod is the vaulted method, with its token. */
interface VaultResult {
  status?: string;
  paymentMethod?: { token?: string };
  cardholderName?: string;
}

export interface CardReaderDeps {
  signal?: AbortSignal;
  /** The page's human-verification value: the reader's vault verifies a card, as a card payment does. */
  recaptchaValue?: string;
  /** The store's client; a same-origin one by default. */
  client?: ApiClient;
  /** Waits between polls; injectable for tests. */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const defaultWait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    });
  });

/**
 * The card-present payment of sales mode (spec 001 §4 "Card reader", payments README):
 * ask for a vault for the e-mail on the chosen reader, then poll the result every 1000 ms
 * until a payment method is present. A declined card, a timeout or a superseded request is
 * an ApiError carrying the server's message, shown as it is.
 */
export async function payWithCardReader(
  email: string,
  readerSerialNumber: string,
  { signal, wait = defaultWait, recaptchaValue = '', client = createApiClient() }: CardReaderDeps = {},
): Promise<ReaderResult> {
  const { contextId } = await unwrap(client.payments.POST('/buy/api/card-reader/vault', { body: { email, readerSerialNumber, ...(recaptchaValue ? { recaptchaValue } : {}) }, signal }));
  if (!contextId) throw new ApiError(502, 'internal', 'The card reader did not start.');
  for (;;) {
    await wait(CARD_READER_POLL_MS, signal);
    const r: VaultResult = await unwrap(client.payments.GET('/buy/api/card-reader/vault-result', { params: { query: { contextId } }, signal }));
    if (r?.paymentMethod?.token) return { paymentMethod: r.paymentMethod.token, cardholderName: r.cardholderName ?? '' };
  }
}
