import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';

export interface Nonce {
  nonce: string;
  details?: { cardType?: string; lastFour?: string };
}

export type TokenizeResult = { ok: true; nonce: Nonce } | { ok: false; message: string; customer: boolean };

export interface HostedFieldsHandle {
  tokenize(cardholderName: string, postalCode: string): Promise<TokenizeResult>;
}

/** A CUSTOMER error is shown with 'tokenize' changed to 'process' (spec 000 §8). */
export function customerMessage(msg: string): string {
  return msg.replace(/tokeni[sz]e/g, 'process').replace(/Tokeni[sz]e/g, 'Process');
}

/**
 * The payments service's hosted card fields in an iframe: card number, expiry and CVV are
 * typed there and never reach this page; we ask it to tokenise and get a single-use nonce
 * back by postMessage (from that frame and origin only).
 */
export function HostedFields({ handle, onReady }: { handle: Ref<HostedFieldsHandle>; onReady?: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const pending = useRef<((r: TokenizeResult) => void) | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== origin || e.source !== frame.current?.contentWindow) return;
      const m = (e.data ?? {}) as { type?: string; nonce?: string; details?: Nonce['details']; message?: string; errorType?: string };
      if (m.type === 'hangar:ready') {
        setReady(true);
        onReady?.();
      } else if (m.type === 'hangar:nonce' && m.nonce) {
        pending.current?.({ ok: true, nonce: { nonce: m.nonce, details: m.details } });
        pending.current = undefined;
      } else if (m.type === 'hangar:error') {
        const customer = m.errorType === 'CUSTOMER';
        pending.current?.({ ok: false, customer, message: customer ? customerMessage(m.message ?? '') : m.message || 'The payment service did not answer.' });
        pending.current = undefined;
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [origin, onReady]);

  useImperativeHandle(handle, () => ({
    tokenize(cardholderName, postalCode) {
      return new Promise<TokenizeResult>((resolve) => {
        const w = frame.current?.contentWindow;
        if (!w) {
          resolve({ ok: false, customer: false, message: 'Credit Card cannot be blank' });
          return;
        }
        pending.current?.({ ok: false, customer: false, message: 'superseded' });
        pending.current = resolve;
        w.postMessage({ type: 'hangar:tokenize', cardholderName, postalCode }, origin);
      });
    },
  }));

  return (
    <div className="buy-hosted" data-ready={ready || undefined}>
      <iframe
        ref={frame}
        title="Card details (card number, expiration date and security code)"
        src={`/buy/payments/?parentOrigin=${encodeURIComponent(origin)}`}
        className="buy-hosted__frame"
        data-testid="hosted-fields"
      />
    </div>
  );
}
