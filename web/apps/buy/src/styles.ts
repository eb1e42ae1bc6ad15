import { injectStyles } from '@hangar/ui';

export function ensureBuyStyles(): void {
  injectStyles(
    'buy',
    `
.buy { max-width: 880px; margin: 0 auto; }
.buy-crumbs ol { list-style: none; display: flex; gap: 8px; padding: 0; margin: 0 0 8px; font-size: 14px; }
.buy-crumbs li + li::before { content: '›'; margin-right: 8px; color: var(--h-muted); }
.buy-crumbs a { color: var(--h-accent); }
.buy-head { display: flex; justify-content: space-between; align-items: flex-end; gap: 16px; flex-wrap: wrap; margin-bottom: 12px; }
.buy-head h1 { margin: 0; }
.buy-currency .h-field { margin: 0; min-width: 140px; }
.buy-hint { color: var(--h-muted); margin: 0 0 8px; }
.buy-options { border: 0; margin: 0; padding: 0; }
.buy-option { display: grid; grid-template-columns: auto 1fr auto; gap: 10px; align-items: start; padding: 10px; border: 1px solid var(--h-border); border-radius: var(--h-radius); margin-bottom: 8px; }
.buy-option--selected { border-color: var(--h-accent); box-shadow: 0 0 0 1px var(--h-accent); }
.buy-option--included { background: var(--h-surface); }
.buy-option--unavailable { background: var(--h-surface); }
.buy-option__note { color: #1e6b34; font-size: 14px; font-weight: 600; }
.buy-option input { margin-top: 4px; width: 18px; height: 18px; }
.buy-option label { display: flex; flex-direction: column; gap: 2px; cursor: pointer; }
.buy-option__title { font-weight: 600; }
.buy-option__desc { color: var(--h-muted); font-size: 14px; }
.buy-option__price { font-weight: 700; white-space: nowrap; }
`,
  );
}
