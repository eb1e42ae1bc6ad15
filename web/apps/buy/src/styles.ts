import { injectStyles } from '@hangar/ui';

export function ensureBuyStyles(): void {
  injectStyles(
    'buy',
    `
.buy { max-width: 1200px; margin: 0 auto; box-sizing: border-box; }
.buy *, .buy *::before, .buy *::after { box-sizing: border-box; }
.buy-crumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: 8px; padding: 0; margin: 0 0 8px; font-size: 14px; }
.buy-crumbs li + li::before { content: '›'; margin-right: 8px; color: var(--h-muted); }
.buy-crumbs a { color: var(--h-accent); }
.buy-layout { display: grid; grid-template-columns: minmax(0, 1fr) 340px; gap: 24px; align-items: start; }
.buy-main { min-width: 0; }
@media (max-width: 879px) { .buy-layout { grid-template-columns: minmax(0, 1fr); } }
.buy-head { display: flex; justify-content: space-between; align-items: flex-end; gap: 16px; flex-wrap: wrap; margin-bottom: 12px; }
.buy-head h1 { margin: 0; }
.buy-currency .h-field { margin: 0; min-width: 140px; }
.buy-hint { color: var(--h-muted); margin: 0 0 8px; }
.buy-notice { background: var(--h-info-bg); padding: 8px 12px; border-radius: var(--h-radius); }
.buy-box, .buy-account, .buy-payment { border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 12px; margin: 0 0 16px; }
.buy-box h2, .buy-payment h2 { font-size: 18px; margin: 0 0 8px; }
.buy-account__panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 16px; }
.buy-account__panel h3 { font-size: 15px; margin: 0 0 6px; }
.buy-badge { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.buy-subblock h3 { font-size: 15px; margin: 8px 0; }
.buy-options { border: 0; margin: 0; padding: 0; min-width: 0; }
.buy-option { display: grid; grid-template-columns: auto minmax(0, 1fr) auto; gap: 10px; align-items: start; padding: 10px; border: 1px solid var(--h-border); border-radius: var(--h-radius); margin-bottom: 8px; }
.buy-option--selected { border-color: var(--h-accent); box-shadow: 0 0 0 1px var(--h-accent); }
.buy-option--disabled { background: var(--h-surface); }
.buy-option__note { color: #1e6b34; font-size: 14px; font-weight: 600; }
.buy-option input { margin-top: 4px; width: 18px; height: 18px; }
.buy-option label { display: flex; flex-direction: column; gap: 2px; cursor: pointer; min-width: 0; }
.buy-option__title { font-weight: 600; overflow-wrap: anywhere; }
.buy-option__desc { color: var(--h-muted); font-size: 14px; }
.buy-option__price { font-weight: 700; white-space: nowrap; display: flex; gap: 6px; align-items: center; }
.buy-segmented { display: flex; flex-wrap: wrap; gap: 4px; }
.buy-segmented__item { display: inline-flex; align-items: center; gap: 4px; border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 2px 8px; font-size: 14px; cursor: pointer; }
.buy-segmented__item--on { border-color: var(--h-accent); background: var(--h-info-bg); }
.buy-segmented__item input { margin: 0; width: 14px; height: 14px; }
.buy-popover { position: relative; display: inline-block; }
.buy-popover__btn { width: 22px; height: 22px; border-radius: 50%; border: 1px solid var(--h-accent); background: var(--h-bg); color: var(--h-accent); font-weight: 700; cursor: pointer; }
.buy-popover__body { position: absolute; right: 0; top: 26px; z-index: 10; width: 240px; white-space: normal; font-weight: 400; background: var(--h-bg); border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 8px; box-shadow: 0 4px 16px rgba(0,0,0,.2); }
.buy-quantity { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 8px 12px; align-items: center; max-width: 520px; }
.buy-quantity input[name=quantity] { font: inherit; height: 32px; width: 90px; padding: 0 8px; border: 1px solid var(--h-border); border-radius: var(--h-radius); }
.buy-invoice { border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 12px; background: var(--h-bg); }
.buy-invoice--sticky { position: sticky; top: 16px; }
.buy-invoice h2 { font-size: 18px; margin: 0 0 8px; }
.buy-invoice__table { width: 100%; border-collapse: collapse; font-size: 14px; }
.buy-invoice__table th { text-align: left; font-weight: 400; padding: 4px 8px 4px 0; vertical-align: top; }
.buy-invoice__table td { text-align: right; white-space: nowrap; padding: 4px 0; vertical-align: top; }
.buy-invoice__table tfoot th, .buy-invoice__table tfoot td { border-top: 1px solid var(--h-border); }
.buy-invoice__desc { display: block; }
.buy-invoice__reason { display: block; color: var(--h-muted); font-size: 12px; }
.buy-invoice__total th, .buy-invoice__total td { font-weight: 700; font-size: 16px; }
.buy-errors { background: var(--h-danger-bg); color: var(--h-danger); border-radius: var(--h-radius); padding: 8px 12px; margin: 12px 0; }
.buy-errors__title { font-weight: 700; margin: 0 0 4px; }
.buy-errors__list { margin: 0; padding-left: 18px; }
.buy-error-inline { color: var(--h-danger); }
.buy-adjustments { font-size: 13px; color: var(--h-muted); padding-left: 18px; }
.buy-purchase { width: 100%; margin-top: 12px; }
.buy-promo { display: flex; gap: 8px; align-items: flex-end; flex-wrap: wrap; }
.buy-promo .h-field { flex: 1 1 200px; margin: 0; }
.buy-codes { list-style: none; padding: 0; margin: 8px 0 0; }
.buy-tabs { display: flex; gap: 4px; border-bottom: 1px solid var(--h-border); margin-bottom: 12px; }
.buy-tabs__tab { font: inherit; background: none; border: 1px solid transparent; border-bottom: 0; padding: 6px 12px; cursor: pointer; color: var(--h-fg); border-radius: var(--h-radius) var(--h-radius) 0 0; }
.buy-tabs__tab--on { border-color: var(--h-border); background: var(--h-bg); font-weight: 700; margin-bottom: -1px; }
.buy-tabs__tab:focus-visible { outline: 3px solid #f0a500; }
.buy-hosted__frame { width: 100%; height: 300px; border: 0; }
.buy-billing { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 0 12px; }
.buy-receipt { border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 16px; max-width: 640px; }
.buy-receipt__meta { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; }
.buy-receipt__meta dt { font-weight: 600; }
.buy-receipt__meta dd { margin: 0; overflow-wrap: anywhere; }
.buy-success__actions { display: flex; gap: 8px; margin-top: 16px; flex-wrap: wrap; }
@media print { .buy-success__actions, header, nav, footer { display: none !important; } }
`,
  );
}
