import { useSyncExternalStore } from 'react';

/** Under 700 px the copy says 'Tap', otherwise 'Click'. */
export const NARROW_TEXT_BREAKPOINT = 700;
/** The general mobile breakpoint. */
export const MOBILE_BREAKPOINT = 880;

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (notify) => {
      if (typeof window === 'undefined' || !window.matchMedia) return () => undefined;
      const mq = window.matchMedia(query);
      mq.addEventListener?.('change', notify);
      return () => mq.removeEventListener?.('change', notify);
    },
    () => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(query).matches : false),
    () => false,
  );
}

/** 'Tap' on narrow screens, 'Click' otherwise. */
export function useTapOrClick(): 'Tap' | 'Click' {
  return useMediaQuery(`(max-width: ${NARROW_TEXT_BREAKPOINT - 1}px)`) ? 'Tap' : 'Click';
}
