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
.mk-site { position: relative; z-index: 20; background: var(--h-bg); border-bottom: 1px solid var(--h-border); margin: -16px -16px 16px; padding: 0 16px; }
.mk-site.sticky-ready { transition: transform .25s ease; }
.mk-site.sticky-show { position: sticky; top: 0; box-shadow: 0 2px 8px rgba(0,0,0,.15); }
.mk-site__bar { display: flex; align-items: center; gap: 8px; min-height: 48px; }
.mk-site__nav { flex: 1; }
.mk-dds { list-style: none; display: flex; gap: 4px; margin: 0; padding: 0; }
.mk-dd { position: relative; }
.mk-dd__button, .mk-site__menu, .mk-user__logout { background: none; border: 0; font: inherit; color: var(--h-fg); padding: 10px 10px; cursor: pointer; min-height: 40px; }
.mk-dd__button::after { content: ' ▾'; font-size: 12px; }
.mk-dd__button[aria-expanded=true] { color: var(--h-accent); }
.mk-dd__list { position: absolute; top: 100%; left: 0; min-width: 220px; list-style: none; margin: 0; padding: 6px 0; background: var(--h-surface, #fff); border: 1px solid var(--h-border); border-radius: var(--h-radius); box-shadow: 0 6px 18px rgba(0,0,0,.15); z-index: 30; }
.mk-dd__list--right { left: auto; right: 0; }
.mk-dd__list a, .mk-user__logout { display: block; width: 100%; text-align: left; padding: 8px 14px; color: var(--h-fg); text-decoration: none; box-sizing: border-box; }
.mk-dd__list a:hover, .mk-dd__list a:focus-visible, .mk-user__logout:hover { background: var(--h-accent); color: var(--h-accent-fg); }
.mk-dd__button:focus-visible, .mk-site__menu:focus-visible, .mk-user a:focus-visible, .mk-user__logout:focus-visible, .mk-slider button:focus-visible, .mk-tabs [role=tab]:focus-visible, .mk-zoom__button:focus-visible, .mk-features button:focus-visible, .mk-info:focus-visible, .mk-info__nav button:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.mk-user { position: relative; }
.mk-user__login { color: var(--h-accent); font-weight: 600; padding: 10px; display: inline-block; }
.mk-user__name { display: inline-block; max-width: 180px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
.mk-site__menu { display: none; border: 1px solid var(--h-border); border-radius: var(--h-radius); }
.mk-sitemap { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 8px 16px; padding: 8px 0 16px; }
.mk-sitemap h2 { font-size: 15px; margin: 8px 0 4px; }
.mk-sitemap ul { list-style: none; margin: 0; padding: 0; }
.mk-sitemap a { display: block; padding: 6px 0; color: var(--h-accent); }
@media (max-width: 880px) {
  .mk-site__nav { display: none; }
  .mk-site__menu { display: inline-block; margin-left: auto; }
}
.mk-hero { position: relative; overflow: hidden; }
.mk-video { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; opacity: 0; transition: opacity 1s ease; z-index: -1; }
.mk-video--visible { opacity: .35; }
.mk-slider { border: 1px solid var(--h-border); border-radius: var(--h-radius); padding: 16px; margin: 16px 0; background: var(--h-surface, #fff); }
.mk-slide h2 { margin: 0 0 6px; font-size: 22px; }
.mk-slide p { margin: 0; }
.mk-slider__controls { display: flex; gap: 8px; margin-top: 12px; }
.mk-slider__controls button, .mk-info__nav button { font: inherit; min-width: 40px; min-height: 40px; border: 1px solid var(--h-border); border-radius: var(--h-radius); background: var(--h-bg); cursor: pointer; }
.mk-tabs [role=tablist] { display: flex; flex-wrap: wrap; gap: 4px; border-bottom: 1px solid var(--h-border); }
.mk-tabs [role=tab] { font: inherit; background: none; border: 0; border-bottom: 3px solid transparent; padding: 8px 12px; cursor: pointer; min-height: 40px; }
.mk-tabs [role=tab][aria-selected=true] { border-bottom-color: var(--h-accent); font-weight: 700; }
.mk-tabs [role=tabpanel] { padding: 12px 0; }
.mk-gallery { display: flex; flex-wrap: wrap; gap: 16px; }
.mk-zoom { margin: 0; max-width: 100%; }
.mk-zoom__button { padding: 0; border: 1px solid var(--h-border); background: none; cursor: zoom-in; max-width: 100%; }
.mk-zoom__button img { display: block; max-width: 100%; height: auto; }
.mk-zoom__full { width: min(80vw, 900px); max-width: 100%; height: auto; }
.mk-features { list-style: none; padding: 0; }
.mk-features h3 { margin: 4px 0; font-size: 17px; }
.mk-features button { font: inherit; font-weight: 600; background: none; border: 0; padding: 6px 0; cursor: pointer; color: var(--h-accent); min-height: 40px; }
.mk-features button::before { content: '+ '; }
.mk-features button[aria-expanded=true]::before { content: '− '; }
.mk-info { font: inherit; font-size: 12px; font-weight: 700; width: 24px; height: 24px; border-radius: 50%; border: 1px solid var(--h-accent); color: var(--h-accent); background: none; cursor: pointer; padding: 0; }
.mk-info__nav { display: flex; justify-content: space-between; align-items: center; gap: 8px; margin-top: 12px; }
@media (max-width: 600px) {
  .mk-table { table-layout: fixed; font-size: 14px; }
  .mk-table th, .mk-table td { padding: 8px 4px; overflow-wrap: anywhere; hyphens: auto; }
  .mk-table tbody th { width: 28%; }
  .mk-table thead th .mk-plan-price { font-size: 15px; }
  .mk-buy { padding: 4px 8px; }
}
.mk-buy { display: inline-block; margin-top: 6px; padding: 4px 12px; border-radius: var(--h-radius); background: var(--h-accent); color: var(--h-accent-fg); text-decoration: none; font-weight: 600; }
`,
  );
}
