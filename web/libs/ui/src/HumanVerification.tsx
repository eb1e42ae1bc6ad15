import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import ui from './ui.module.css';

/** Spec 001: the box was not ticked. */
export const MSG_HUMAN = 'Please verify you are a human.';
/** Spec 001: the widget or the verification failed; the value is cleared for a new tick. */
export const MSG_CAPTCHA_ERROR = 'We are having problems validating your form.';

/** What checkout answers at GET /buy/api/human-verification: the server decides, the page shows. */
export interface HumanVerificationConfig {
  required?: boolean;
  siteKey?: string;
  scriptUrl?: string;
}

/** The part of reCAPTCHA v2's explicit API the pages use (the development verifier has the same). */
interface Grecaptcha {
  render(el: HTMLElement, opts: Record<string, unknown>): number;
  reset(id?: number): void;
}

let config: Promise<HumanVerificationConfig> | undefined;

/** Checkout's human-verification settings, asked once per page load (a failure is asked again). */
export function humanVerificationConfig(): Promise<HumanVerificationConfig> {
  config ??= fetch('/buy/api/human-verification', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
    .then(async (r) => {
      if (!r.ok) throw new Error('The store did not answer.');
      return (await r.json()) as HumanVerificationConfig;
    })
    .catch((e: unknown) => {
      config = undefined;
      throw e;
    });
  return config;
}

const READY = '__hangarHumanReady';
let widgetScript: Promise<Grecaptcha> | undefined;

/** Loads the widget's script once, explicit rendering, resolved by its onload callback (as api.js does). */
function loadWidget(src: string): Promise<Grecaptcha> {
  widgetScript ??= new Promise<Grecaptcha>((resolve, reject) => {
    const w = window as unknown as Record<string, unknown> & { grecaptcha?: Grecaptcha };
    w[READY] = () => (w.grecaptcha ? resolve(w.grecaptcha) : reject(new Error('no widget')));
    const url = new URL(src, window.location.href);
    url.searchParams.set('onload', READY);
    url.searchParams.set('render', 'explicit');
    const el = document.createElement('script');
    el.src = url.toString();
    el.async = true;
    el.onerror = () => {
      widgetScript = undefined;
      el.remove();
      reject(new Error('The verification widget did not load.'));
    };
    document.head.appendChild(el);
  });
  return widgetScript;
}

export interface HumanVerificationHandle {
  /** The value to send as recaptchaValue ('' until ticked, and again once expired). */
  value(): string;
  /** [MSG_HUMAN] when the server needs a value and there is none yet. */
  problems(): string[];
  /** Clears the value and the tick: after the server refused it (MSG_CAPTCHA_ERROR). */
  reset(): void;
}

/**
 * The human-verification widget of the card-payment pages (/buy, /gift, the one-off cart):
 * nothing when checkout does not ask for it; else reCAPTCHA's checkbox (the development
 * verifier's in make dev). An expired tick clears the value; a widget that fails says so.
 */
export function HumanVerification({ handle }: { handle: Ref<HumanVerificationHandle> }) {
  const [cfg, setCfg] = useState<HumanVerificationConfig | null>(null);
  const [problem, setProblem] = useState('');
  const value = useRef('');
  const box = useRef<HTMLDivElement>(null);
  const widget = useRef<{ g: Grecaptcha; id: number } | null>(null);

  useEffect(() => {
    let stop = false;
    humanVerificationConfig()
      .then((c) => !stop && setCfg(c))
      .catch(() => undefined); // the submit still answers MSG_HUMAN if the server needs a value
    return () => {
      stop = true;
    };
  }, []);

  useEffect(() => {
    const el = box.current;
    if (!cfg?.required || !cfg.scriptUrl || !el) return;
    let stop = false;
    loadWidget(cfg.scriptUrl)
      .then((g) => {
        if (stop || widget.current) return;
        // A fresh element each time: reCAPTCHA renders into an element only once.
        const host = document.createElement('div');
        el.appendChild(host);
        const id = g.render(host, {
          sitekey: cfg.siteKey,
          callback: (token: string) => {
            value.current = token;
            setProblem('');
          },
          'expired-callback': () => {
            value.current = '';
          },
          'error-callback': () => {
            value.current = '';
            setProblem(MSG_CAPTCHA_ERROR);
          },
        });
        widget.current = { g, id };
      })
      .catch(() => !stop && setProblem(MSG_CAPTCHA_ERROR));
    return () => {
      stop = true;
    };
  }, [cfg]);

  useImperativeHandle(
    handle,
    () => ({
      value: () => value.current,
      problems: () => (cfg?.required && !value.current ? [MSG_HUMAN] : []),
      reset: () => {
        value.current = '';
        if (widget.current) widget.current.g.reset(widget.current.id);
      },
    }),
    [cfg],
  );

  if (!cfg?.required) return null;
  return (
    <div className={ui.hField} data-testid="human-verification">
      <div ref={box} />
      {problem && (
        <p className={ui.hFieldErrors} role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
