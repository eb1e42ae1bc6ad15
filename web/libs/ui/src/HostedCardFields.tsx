import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { injectStyles } from './styles';

export type CardTokenizeResult = { ok: true; nonce: string; details?: { cardType?: string; lastFour?: string } } | { ok: false; message: string };

export interface HostedCardFieldsHandle {
  tokenize(cardholderName: string, postalCode: string): Promise<CardTokenizeResult>;
}

const CSS = `.h-hosted__frame { width: 100%; min-height: 190px; border: 1px solid var(--h-border); border-radius: var(--h-radius); background: var(--h-bg); }`;

/**
 * The payments service's hosted card fields (/buy/payments/) in an iframe: card number,
 * expiry and CVV are typed there and never reach this page. tokenize() asks the frame for
 * a single-use nonce, answered by postMessage from that frame and this origin only.
 */
export function HostedCardFields({ handle }: { handle: Ref<HostedCardFieldsHandle> }) {
  injectStyles('hosted-card-fields', CSS);
  const frame = useRef<HTMLIFrameElement>(null);
  const pending = useRef<((r: CardTokenizeResult) => void) | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== origin || e.source !== frame.current?.contentWindow) return;
      const m = (e.data ?? {}) as { type?: string; nonce?: string; details?: { cardType?: string; lastFour?: string }; message?: string };
      if (m.type === 'hangar:ready') setReady(true);
      else if (m.type === 'hangar:nonce' && m.nonce) {
        pending.current?.({ ok: true, nonce: m.nonce, details: m.details });
        pending.current = undefined;
      } else if (m.type === 'hangar:error') {
        // Customer errors are shown with 'tokenize' changed to 'process' (spec 000 §8).
        const msg = (m.message || 'The payment service did not answer.').replace(/tokeni[sz]e/g, 'process');
        pending.current?.({ ok: false, message: msg });
        pending.current = undefined;
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [origin]);

  useImperativeHandle(handle, () => ({
    tokenize(cardholderName, postalCode) {
      return new Promise<CardTokenizeResult>((resolve) => {
        const w = frame.current?.contentWindow;
        if (!w || !ready) {
          resolve({ ok: false, message: 'Credit Card cannot be blank' });
          return;
        }
        pending.current?.({ ok: false, message: 'superseded' });
        pending.current = resolve;
        w.postMessage({ type: 'hangar:tokenize', cardholderName, postalCode }, origin);
      });
    },
  }));

  return (
    <div className="h-hosted" data-ready={ready || undefined}>
      <iframe
        ref={frame}
        title="Card details (card number, expiration date and security code)"
        src={`/buy/payments/?parentOrigin=${encodeURIComponent(origin)}`}
        className="h-hosted__frame"
        data-testid="hosted-fields"
      />
    </div>
  );
}
