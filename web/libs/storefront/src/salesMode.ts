/**
 * Sales mode (spec 001 §4, §9): a credit-card admin turns on a card-present mode for 24
 * hours with a chosen card reader. The setting lives in this browser's local storage only
 * (it is a property of the shop's device, not of an account): kept for 86400 s and
 * treated as expired after its endTime. Disabling is manual.
 */
export const SALES_MODE_KEY = 'hangar.salesMode';
export const SALES_MODE_MS = 86_400_000;
export const SALES_MODE_STORAGE_S = 86_400;
/** Same-page listeners hear about changes through this event (other tabs: 'storage'). */
export const SALES_MODE_EVENT = 'hangar:sales-mode';

/** The sales-mode setting (spec 001 §3). endTime is epoch milliseconds. */
export interface SalesModeSetting {
  endTime: number;
  readerSerialNumber: string;
}

interface Stored {
  value: SalesModeSetting;
  /** When local storage forgets it: 86400 s after it was written. */
  expiresAt: number;
}

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function store(): Store | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.localStorage;
  } catch {
    return undefined; // storage disabled: sales mode cannot be on
  }
}

function announce(): void {
  if (typeof window !== 'undefined') window.dispatchEvent(new Event(SALES_MODE_EVENT));
}

/** The active setting, or null when none is stored, it has expired, or it is malformed. */
export function readSalesMode(now = Date.now(), s: Store | undefined = store()): SalesModeSetting | null {
  const raw = s?.getItem(SALES_MODE_KEY);
  if (!raw) return null;
  try {
    const st = JSON.parse(raw) as Stored;
    const v = st.value;
    if (typeof v?.endTime !== 'number' || typeof v.readerSerialNumber !== 'string' || !v.readerSerialNumber) throw new Error('malformed');
    if (now >= st.expiresAt || now >= v.endTime) {
      s?.removeItem(SALES_MODE_KEY);
      return null;
    }
    return v;
  } catch {
    s?.removeItem(SALES_MODE_KEY);
    return null;
  }
}

/** Enable: the reader is required; the mode ends 24 hours from now. */
export function enableSalesMode(readerSerialNumber: string, now = Date.now(), s: Store | undefined = store()): SalesModeSetting {
  if (!readerSerialNumber) throw new Error('sales mode needs a card reader');
  const value: SalesModeSetting = { endTime: now + SALES_MODE_MS, readerSerialNumber };
  const stored: Stored = { value, expiresAt: now + SALES_MODE_STORAGE_S * 1000 };
  s?.setItem(SALES_MODE_KEY, JSON.stringify(stored));
  announce();
  return value;
}

export function disableSalesMode(s: Store | undefined = store()): void {
  s?.removeItem(SALES_MODE_KEY);
  announce();
}

/** Milliseconds left, never negative. */
export function remainingMs(setting: SalesModeSetting, now = Date.now()): number {
  return Math.max(0, setting.endTime - now);
}

/** The remaining-time clock: HH:MM:SS. */
export function formatRemaining(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/** Calls listener whenever sales mode may have changed (this page or another tab). */
export function onSalesModeChange(listener: () => void): () => void {
  if (typeof window === 'undefined') return () => {};
  const storage = (e: StorageEvent) => {
    if (e.key === null || e.key === SALES_MODE_KEY) listener();
  };
  window.addEventListener(SALES_MODE_EVENT, listener);
  window.addEventListener('storage', storage);
  return () => {
    window.removeEventListener(SALES_MODE_EVENT, listener);
    window.removeEventListener('storage', storage);
  };
}
