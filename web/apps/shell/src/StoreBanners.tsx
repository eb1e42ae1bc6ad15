import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import {
  closeCookieBanner,
  decideCookieBanner,
  formatRemaining,
  onSalesModeChange,
  readSalesMode,
  remainingMs,
  syncKiosk,
  withKiosk,
  type Lookup,
  type SalesModeSetting,
} from '@hangar/storefront';
import s from './shell.module.css';

/** The privacy policy: /about/privacy/ on the marketing host (www.), /privacy-policy elsewhere (spec 001 §2). */
export function privacyHref(hostname: string): string {
  return hostname.startsWith('www.') ? '/about/privacy/' : '/privacy-policy';
}

/** The page's CSS custom property holding the cookie banner's height while it is shown. */
export const COOKIE_BANNER_HEIGHT = '--h-cookie-banner-height';

/**
 * The EU cookie notice (spec 001 §2, §4): decided once per page load from the three
 * cookies and, when one is missing, the location lookup; fixed at the bottom of the page.
 */
export function CookieBanner({ lookup }: { lookup?: Lookup }) {
  const [show, setShow] = useState(false);
  useEffect(() => {
    const ctl = new AbortController();
    decideCookieBanner({ lookup, signal: ctl.signal }).then(setShow, () => {});
    return () => ctl.abort();
  }, [lookup]);
  // While shown, its height is --h-cookie-banner-height on the page: bars fixed at the bottom
  // (/buy's phone pay bar) sit above it instead of under it (issue 45).
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!show || !el) return undefined;
    const root = document.documentElement;
    const set = () => root.style.setProperty(COOKIE_BANNER_HEIGHT, `${el.offsetHeight}px`);
    set();
    const ro = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(set);
    ro?.observe(el);
    return () => {
      ro?.disconnect();
      root.style.removeProperty(COOKIE_BANNER_HEIGHT);
    };
  }, [show]);
  if (!show) return null;
  return (
    <section ref={ref} className={s.shellCookies} role="region" aria-label="Cookie notice" data-testid="cookie-banner">
      <p>
        We use cookies to run this store and to understand how it is used. By continuing you agree to our use of cookies, described in our{' '}
        <a href={privacyHref(window.location.hostname)}>privacy policy</a>.
      </p>
      <button
        type="button"
        className={s.shellCookiesClose}
        onClick={() => {
          closeCookieBanner();
          setShow(false);
        }}
      >
        Close
      </button>
    </section>
  );
}

function useSalesMode(): { setting: SalesModeSetting | null; now: number } {
  const [now, setNow] = useState(() => Date.now());
  const [setting, setSetting] = useState(() => readSalesMode());
  useEffect(() => onSalesModeChange(() => setSetting(readSalesMode())), []);
  useEffect(() => {
    if (!setting) return;
    // The remaining time is polled every second (spec 001 §4, §9).
    const id = setInterval(() => {
      const t = Date.now();
      setNow(t);
      if (t >= setting.endTime) setSetting(readSalesMode(t));
    }, 1000);
    return () => clearInterval(id);
  }, [setting]);
  return { setting, now };
}

/** While sales mode is on, every page says so, with the reader and the time left. */
export function SalesModeBanner() {
  const { setting, now } = useSalesMode();
  if (!setting) return null;
  return (
    <div className={s.shellSales} role="status" data-testid="sales-mode-banner">
      <strong>Sales mode is on</strong>
      <span>
        Card reader {setting.readerSerialNumber} · <span data-testid="sales-mode-banner-clock">{formatRemaining(remainingMs(setting, now))}</span> left
      </span>
      <Link to="/buy/sales-mode">Manage sales mode</Link>
    </div>
  );
}

/**
 * Kiosk mode: kiosk=true in the address turns it on for the tab; while it is on, every
 * page's address carries kiosk=true (client-side navigations are rewritten in place) and
 * the store's links get it appended when followed.
 */
export function useKioskMode(): void {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    if (!syncKiosk(location.search)) return;
    const params = new URLSearchParams(location.search);
    if (params.get('kiosk') !== 'true') {
      params.set('kiosk', 'true');
      navigate({ pathname: location.pathname, search: `?${params}`, hash: location.hash }, { replace: true });
    }
  }, [location.pathname, location.search, location.hash, navigate]);
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || !syncKiosk('')) return;
      const href = a.getAttribute('href') ?? '';
      const next = withKiosk(href);
      if (next !== href) a.setAttribute('href', next);
    };
    document.addEventListener('click', onClick, true);
    return () => document.removeEventListener('click', onClick, true);
  }, []);
}
