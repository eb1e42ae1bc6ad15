/** Marketing-site constants and rules (spec 001 §4 "Marketing navigation", §9). */
export const DROPDOWN_CLOSE_MS = 300;
export const SLIDE_MS = 5000;
export const SLIDER_PAUSE_MS = 4000;
export const WIDE_VIDEO_PX = 1025;
export const VIDEO_FADE_IN = 0.01;
export const VIDEO_FADE_OUT = 0.98;
export const MOBILE_PX = 880;

/**
 * The sticky header's classes from the top of the main area (px, negative once scrolled
 * past): sticky-ready between -10 and -99, sticky-show at -60 or beyond.
 */
export function stickyClasses(mainTop: number): { ready: boolean; show: boolean } {
  return { ready: mainTop <= -10 && mainTop >= -99, show: mainTop <= -60 };
}

/** The home video is shown only on the home page on screens 1025 px wide or more. */
export function showsHomeVideo(path: string, width: number): boolean {
  return path === '/' && width >= WIDE_VIDEO_PX;
}

/** The video is visible from 1 % of its length until 98 %; it fades in and out around them. */
export function videoVisible(currentTime: number, duration: number): boolean {
  if (!Number.isFinite(duration) || duration <= 0) return false;
  const p = currentTime / duration;
  return p > VIDEO_FADE_IN && p < VIDEO_FADE_OUT;
}

/** The slide after i steps of delta, wrapping around. */
export function stepSlide(i: number, delta: number, count: number): number {
  return count <= 0 ? 0 : (((i + delta) % count) + count) % count;
}

/**
 * When the slider next advances by itself: every 5 s, and after a manual arrow click it
 * pauses 4 s before the 5 s interval starts again.
 */
export function nextAdvanceDelay(lastManualAt: number | undefined, now: number): number {
  if (lastManualAt === undefined) return SLIDE_MS;
  return Math.max(0, lastManualAt + SLIDER_PAUSE_MS - now) + SLIDE_MS;
}
