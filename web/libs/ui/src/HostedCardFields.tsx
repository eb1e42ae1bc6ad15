import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import ui from './ui.module.css';

export type CardTokenizeResult =
  | { ok: true; nonce: string; details?: { cardType?: string; lastFour?: string } }
  /** customer: the processor refused the card data (a CUSTOMER error), not a failure of ours. */
  | { ok: false; message: string; customer?: boolean };

export interface HostedCardFieldsHandle {
  tokenize(cardholderName: string, postalCode: string): Promise<CardTokenizeResult>;
}

/** A CUSTOMER error is shown with 'tokenize' changed to 'process' (spec 000 §8). */
export function customerMessage(msg: string): string {
  return msg.replace(/tokeni[sz]e/g, 'process').replace(/Tokeni[sz]e/g, 'Process');
}

export interface HostedCardFieldsProps {
  handle: Ref<HostedCardFieldsHandle>;
  /** Called once the frame says it is ready to take card data. */
  onReady?: () => void;
  /** Replaces the frame's default size and border (the buy page's frame is taller). */
  frameClassName?: string;
}

/**
 * The payments service's hosted card fields (/buy/payments/) in an iframe: card number,
 * expiry and CVV are typed there and never reach this page. tokenize() asks the frame for
 * a single-use nonce, answered by postMessage from that frame and this origin only. The
 * one implementation for the buy page, gift certificates and one-off carts.
 */
export function HostedCardFields({ handle, onReady, frameClassName }: HostedCardFieldsProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const pending = useRef<((r: CardTokenizeResult) => void) | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== origin || e.source !== frame.current?.contentWindow) return;
      const m = (e.data ?? {}) as { type?: string; nonce?: string; details?: { cardType?: string; lastFour?: string }; message?: string; errorType?: string };
      if (m.type === 'hangar:ready') {
        setReady(true);
        onReady?.();
      } else if (m.type === 'hangar:nonce' && m.nonce) {
        pending.current?.({ ok: true, nonce: m.nonce, details: m.details });
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
    <div data-ready={ready || undefined}>
      <iframe
        ref={frame}
        title="Card details (card number, expiration date and security code)"
        src={`/buy/payments/?parentOrigin=${encodeURIComponent(origin)}`}
        className={frameClassName ?? ui.hHostedFrame}
        data-testid="hosted-fields"
      />
    </div>
  );
}
