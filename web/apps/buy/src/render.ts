import { startTransition, useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';

// The configurator renders in one component; every query answer (preview, session, card
// readers, ...) renders it again. These keep what a section receives the same object when its
// content is the same, so memoized sections skip the render (issue 31: /buy's blocking time).

/** A callback whose identity never changes and that always calls the latest `fn`. */
export function useEvent<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const latest = useRef(fn);
  // Before any child effect or handler can call it (layout effects run before passive ones).
  useLayoutEffect(() => {
    latest.current = fn;
  });
  return useCallback((...args: A) => latest.current(...args), []);
}

/** Structural equality of plain data (arrays, plain objects); anything else by identity. */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameData(x, b[i]));
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** `value`, or the previous render's one when it holds the same data. */
export function useStable<T>(value: T): T {
  const kept = useRef(value);
  if (!sameData(kept.current, value)) kept.current = value;
  return kept.current;
}

/**
 * Whether the element `ref` points at is, or has been, within `margin` px of the viewport:
 * a part of the page far below the fold renders when the buyer comes near it, not during
 * the page's load (issue 45: /buy's blocking time on a phone, where the card form is four
 * screens down). Once near, it stays. Without IntersectionObserver (tests' DOM), at once.
 * `show` makes it near now, for a jump to it.
 */
export function useNearViewport(ref: RefObject<Element | null>, margin: number): [near: boolean, show: () => void] {
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const el = ref.current;
    if (near || !el) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) startTransition(() => setNear(true));
    }, { rootMargin: `${margin}px 0px` });
    io.observe(el);
    return () => io.disconnect();
  }, [near, ref, margin]);
  return [near, useCallback(() => setNear(true), [])];
}
