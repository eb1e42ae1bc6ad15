import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import ui from './ui.module.css';
import { createApiClient, unwrap } from '@hangar/api-client';
import { CardBrands } from './CardBrands';

export type CardTokenizeResult =
  | { ok: true; nonce: string; details?: { cardType?: string; lastFour?: string } }
  /** customer: the processor refused the card data (a CUSTOMER error), not a failure of ours. */
  | { ok: false; message: string; customer?: boolean };

export interface HostedCardFieldsHandle {
  tokenize(cardholderName: string, postalCode: string): Promise<CardTokenizeResult>;
  /** The wallet flow: the frame tokenises the wallet account of email (flow 'wallet' only). */
  tokenizeWallet(email: string): Promise<CardTokenizeResult>;
}

let fieldsUrl: Promise<string> | undefined;

/**
 * The hosted card fields' page, on payments' fields origin (never the store's: the store's
 * scripts cannot read a frame of another origin, docs/pci-saq-a.md), as the client token
 * names it. Asked once per page load; a failure is asked again next time.
 */
export function hostedFieldsUrl(): Promise<string> {
  fieldsUrl ??= unwrap(createApiClient().payments.GET('/buy/api/payments/client-token'))
    .catch(() => ({ hostedFieldsUrl: undefined }))
    .then((body) => {
      if (!body.hostedFieldsUrl) throw new Error('The payment service did not answer.');
      return new URL(body.hostedFieldsUrl, window.location.href).toString();
    })
    .catch((e: unknown) => {
      fieldsUrl = undefined;
      throw e;
    });
  return fieldsUrl;
}

export interface HostedCardFieldsProps {
  handle: Ref<HostedCardFieldsHandle>;
  /** Called once the frame says it is ready to take card data. */
  onReady?: () => void;
  /** Replaces the frame's default size and border (the buy page's frame is taller). */
  frameClassName?: string;
  /** 'wallet': an invisible frame that only tokenises the wallet account (tokenizeWallet). */
  flow?: 'card' | 'wallet';
  /**
   * Enter was pressed in a card field: the frame has no button of its own, so the page pays
   * with its one Pay button's action (the frame is then asked to tokenize()).
   */
  onSubmitRequest?: () => void;
  /**
   * Puts the frame in the page only once its address is known and the browser is idle, in a
   * commit of its own (a sized placeholder until then). Creating a frame is one of the
   * costliest DOM insertions: inside the commit that mounts a whole payment form it made one
   * long task of it (issue 45: /buy's blocking time on a phone).
   */
  deferFrame?: boolean;
}

/**
 * The payments service's hosted card fields in an iframe from the fields origin: card
 * number, expiry and CVV are typed there and never reach this page (its scripts cannot read
 * a frame of another origin). tokenize() asks the frame for a single-use nonce, answered by
 * postMessage; both sides check the other's exact origin and window, so a message from any
 * other origin or window is ignored. The one implementation for the buy page, gift
 * certificates, one-off carts and the account page.
 */
export function HostedCardFields({ handle, onReady, frameClassName, flow = 'card', onSubmitRequest, deferFrame = false }: HostedCardFieldsProps) {
  const submitRequest = useRef(onSubmitRequest);
  submitRequest.current = onSubmitRequest;
  const frame = useRef<HTMLIFrameElement>(null);
  const pending = useRef<((r: CardTokenizeResult) => void) | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const [src, setSrc] = useState<{ url: string; origin: string } | null>(null);
  const [failed, setFailed] = useState(false);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const fieldsOrigin = src?.origin ?? '';

  useEffect(() => {
    let live = true;
    hostedFieldsUrl().then(
      (u) => {
        if (!live) return;
        const url = new URL(u);
        url.searchParams.set('parentOrigin', origin);
        if (flow === 'wallet') url.searchParams.set('flow', 'wallet');
        setSrc({ url: url.toString(), origin: url.origin });
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [origin, flow]);

  const [framed, setFramed] = useState(!deferFrame);
  useEffect(() => {
    if (framed || !src) return;
    const idle = window.requestIdleCallback;
    if (idle) {
      const id = idle(() => setFramed(true), { timeout: 1000 });
      return () => window.cancelIdleCallback(id);
    }
    const t = setTimeout(() => setFramed(true), 0);
    return () => clearTimeout(t);
  }, [framed, src]);

  useEffect(() => {
    if (!fieldsOrigin) return;
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== fieldsOrigin || e.source !== frame.current?.contentWindow) return;
      const m = (e.data ?? {}) as { type?: string; nonce?: string; details?: { cardType?: string; lastFour?: string }; message?: string; errorType?: string };
      if (m.type === 'hangar:ready') {
        setReady(true);
        onReady?.();
      } else if (m.type === 'hangar:submit') {
        submitRequest.current?.();
      } else if (m.type === 'hangar:nonce' && m.nonce) {
        pending.current?.({ ok: true, nonce: m.nonce, details: m.details });
        pending.current = undefined;
      } else if (m.type === 'hangar:error') {
        const customer = m.errorType === 'CUSTOMER';
        // The payments service words a CUSTOMER error for the buyer (spec 000 §8): shown as it is.
        pending.current?.({ ok: false, customer, message: m.message || 'The payment service did not answer.' });
        pending.current = undefined;
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [fieldsOrigin, onReady]);

  useImperativeHandle(handle, () => {
    const ask = (message: Record<string, string>, blank: string) =>
      new Promise<CardTokenizeResult>((resolve) => {
        const w = frame.current?.contentWindow;
        if (!w || !ready || !fieldsOrigin) {
          resolve({ ok: false, message: failed ? 'The payment service did not answer.' : blank });
          return;
        }
        pending.current?.({ ok: false, message: 'superseded' });
        pending.current = resolve;
        w.postMessage(message, fieldsOrigin);
      });
    return {
      tokenize: (cardholderName, postalCode) => ask({ type: 'hangar:tokenize', cardholderName, postalCode }, 'Credit Card cannot be blank'),
      tokenizeWallet: (email) => ask({ type: 'hangar:tokenize', flow: 'vault', walletEmail: email }, 'The payment service did not answer.'),
    };
  });

  const frameClass = flow === 'wallet' ? ui.hHostedFrameWallet : (frameClassName ?? ui.hHostedFrame);
  const title = flow === 'wallet' ? 'PayPal' : 'Card details (card number, expiration date and security code)';
  return (
    <div className={ui.hHosted} data-ready={ready || undefined}>
      {flow === 'card' ? <CardBrands /> : null}
      {/* No src until the client token names the fields origin: nothing else is framed. */}
      {framed ? (
        <iframe
          ref={frame}
          title={title}
          src={src?.url}
          className={frameClass}
          data-testid={flow === 'wallet' ? 'hosted-wallet' : 'hosted-fields'}
        />
      ) : (
        <div className={frameClass} aria-hidden="true" />
      )}
      {failed ? <p role="alert">The payment service did not answer. Please reload the page.</p> : null}
    </div>
  );
}
