import { injectStyles } from '@hangar/ui';

export function ensureSalesModeStyles(): void {
  injectStyles(
    'buy-sales-mode',
    `
.sm { max-width: 640px; }
.sm-form { display: grid; gap: 10px; justify-items: start; }
.sm-form select { font: inherit; padding: 8px; min-height: 40px; max-width: 100%; }
.sm-button { font: inherit; font-weight: 700; min-height: 40px; padding: 8px 22px; border-radius: 4px; border: 0; background: #0d6efd; color: #fff; cursor: pointer; }
.sm-button:disabled { background: #9aa7b4; cursor: not-allowed; }
.sm-button--secondary { background: #fff; color: #0d2a4a; border: 2px solid #0d2a4a; }
.sm-button:focus-visible, .sm-link:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.sm-clock { font-size: 28px; font-variant-numeric: tabular-nums; }
.sm-error { color: #b00020; }
.sm-note { color: #5a6570; }
.sm-link { background: none; border: 0; color: #0b5cad; text-decoration: underline; font: inherit; cursor: pointer; padding: 0; }
`,
  );
}
