import { injectStyles } from '@hangar/ui';

export function ensureMarketingStyles(): void {
  injectStyles(
    'marketing',
    `
.mk { max-width: 960px; margin: 0 auto; }
.mk-hero { padding: 24px 0 8px; }
.mk-hero h1 { font-size: 34px; margin: 0 0 8px; }
.mk-hero p { font-size: 18px; color: var(--h-muted); margin: 0; }
.mk-cards { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 16px; margin: 24px 0; }
.mk-card { border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 16px; background: var(--h-surface); }
.mk-card h2 { font-size: 18px; margin: 0 0 6px; }
.mk-card a { color: var(--h-accent); font-weight: 600; }
.mk-card p { margin: 0 0 8px; }
.mk-table-wrap { border: 1px solid var(--h-border); border-radius: var(--h-radius); }
.mk-table { width: 100%; border-collapse: separate; border-spacing: 0; }
.mk-table th, .mk-table td { padding: 10px 12px; border-bottom: 1px solid var(--h-border); text-align: left; vertical-align: top; }
.mk-table thead th { position: sticky; top: 0; z-index: 2; background: var(--h-bg); border-bottom: 2px solid var(--h-accent); }
.mk-table thead th .mk-plan-price { display: block; font-size: 20px; }
.mk-table tbody th { font-weight: 600; width: 34%; }
.mk-yes { color: #1e6b34; font-weight: 700; }
.mk-no { color: var(--h-fg); }
.mk-note { color: var(--h-muted); }
.mk-buy { display: inline-block; margin-top: 6px; padding: 4px 12px; border-radius: var(--h-radius); background: var(--h-accent); color: var(--h-accent-fg); text-decoration: none; font-weight: 600; }
`,
  );
}
