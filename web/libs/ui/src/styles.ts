/**
 * Styles travel with the components as text and are injected once per page.
 * That keeps every federated remote self-contained (no CSS asset the shell has
 * to know about) and works the same standalone and inside the shell.
 */
export function injectStyles(id: string, css: string): void {
  if (typeof document === 'undefined') return;
  const key = `hangar-style-${id}`;
  if (document.getElementById(key)) return;
  const el = document.createElement('style');
  el.id = key;
  el.textContent = css;
  document.head.appendChild(el);
}

/** Design tokens and the components' styles. Contrast ratios meet WCAG AA. */
export const BASE_CSS = `
:root {
  --h-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --h-fg: #1b2330;
  --h-muted: #4a5568;
  --h-bg: #ffffff;
  --h-surface: #f4f6f9;
  --h-border: #c9d1dc;
  --h-accent: #0b5cad;
  --h-accent-fg: #ffffff;
  --h-danger: #b3261e;
  --h-danger-bg: #fdecea;
  --h-info-bg: #e8f1fb;
  --h-radius: 6px;
}
.h-btn { font: inherit; font-weight: 600; border-radius: var(--h-radius); border: 1px solid var(--h-accent);
  background: var(--h-accent); color: var(--h-accent-fg); cursor: pointer; padding: 0 14px; display: inline-flex;
  align-items: center; justify-content: center; gap: 6px; box-sizing: border-box; }
.h-btn:disabled { opacity: .6; cursor: not-allowed; }
.h-btn:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.h-btn--secondary { background: var(--h-bg); color: var(--h-accent); }
.h-btn--link { background: none; border-color: transparent; color: var(--h-accent); text-decoration: underline; padding: 0 4px; }
.h-btn--small { height: 24px; font-size: 12px; }
.h-btn--medium { height: 32px; font-size: 14px; }
.h-btn--large { height: 40px; font-size: 16px; }
.h-section { border: 1px solid var(--h-border); border-radius: var(--h-radius); margin: 0 0 16px; background: var(--h-bg); }
.h-section__header { display: flex; align-items: center; justify-content: space-between; gap: 12px; padding: 0 12px; background: var(--h-surface); border-radius: var(--h-radius) var(--h-radius) 0 0; }
.h-section__title { margin: 0; font-size: 18px; }
.h-section__toggle { font: inherit; font-size: 18px; font-weight: 700; background: none; border: 0; color: var(--h-fg); padding: 10px 0; cursor: pointer; display: flex; gap: 8px; align-items: center; width: 100%; text-align: left; }
.h-section__toggle:focus-visible { outline: 3px solid #f0a500; }
.h-section__note { color: var(--h-muted); font-size: 13px; margin: 0; white-space: nowrap; }
.h-section__body { padding: 12px; }
.h-field { display: flex; flex-direction: column; gap: 4px; margin: 0 0 12px; }
.h-field label { font-weight: 600; }
.h-field input, .h-field select { font: inherit; height: 32px; padding: 0 8px; border: 1px solid var(--h-border); border-radius: var(--h-radius); color: var(--h-fg); background: var(--h-bg); }
.h-field--error input, .h-field--error select { border-color: var(--h-danger); }
.h-field__errors { margin: 0; padding: 0; list-style: none; color: var(--h-danger); font-size: 13px; }
.h-check { display: flex; gap: 8px; align-items: flex-start; margin: 0 0 8px; }
.h-banner { overflow: hidden; transition: max-height 300ms ease, opacity 300ms ease; max-height: 400px; opacity: 1; }
.h-banner--closing { max-height: 0; opacity: 0; }
.h-banner__inner { display: flex; justify-content: space-between; align-items: flex-start; gap: 12px; padding: 10px 12px; border-radius: var(--h-radius); background: var(--h-info-bg); margin: 0 0 16px; }
.h-banner--error .h-banner__inner { background: var(--h-danger-bg); }
.h-modal__backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.45); display: flex; align-items: center; justify-content: center; z-index: 1000; }
.h-modal { background: var(--h-bg); color: var(--h-fg); border-radius: var(--h-radius); max-width: 560px; width: calc(100% - 32px); max-height: 90vh; overflow: auto; padding: 16px 20px; box-shadow: 0 8px 32px rgba(0,0,0,.3); }
.h-modal__header { display: flex; justify-content: space-between; align-items: center; gap: 12px; }
.h-modal__title { margin: 0; font-size: 20px; }
.h-dialog { border: 0; border-radius: var(--h-radius); max-width: 560px; width: calc(100% - 32px); padding: 16px 20px; color: var(--h-fg); box-shadow: 0 8px 32px rgba(0,0,0,.3); }
.h-dialog::backdrop { background: rgba(0,0,0,.45); }
.h-dialog__footer { display: flex; gap: 8px; justify-content: flex-end; flex-wrap: wrap; margin-top: 16px; }
.h-state { padding: 24px; text-align: center; }
.h-state--error { background: var(--h-danger-bg); border-radius: var(--h-radius); }
.h-state__message { margin: 0 0 12px; font-weight: 600; }
.h-spinner { display: inline-block; width: 20px; height: 20px; border: 3px solid var(--h-border); border-top-color: var(--h-accent); border-radius: 50%; animation: h-spin 0.8s linear infinite; vertical-align: middle; margin-right: 8px; }
@keyframes h-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .h-spinner { animation: none; } .h-banner { transition: none; } }
.h-visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

export function ensureBaseStyles(): void {
  injectStyles('base', BASE_CSS);
}
