import { injectStyles } from '@hangar/ui';

export function ensureShellStyles(): void {
  injectStyles(
    'shell',
    `
body { margin: 0; font-family: var(--h-font); color: var(--h-fg); background: var(--h-bg); line-height: 1.45; }
.shell-skip { position: absolute; left: -9999px; top: 0; background: #fff; color: var(--h-accent); padding: 8px 12px; z-index: 100; }
.shell-skip:focus { left: 8px; top: 8px; }
.shell-header { background: #0d2a4a; color: #fff; }
.shell-header__inner { max-width: 1100px; margin: 0 auto; padding: 10px 16px; display: flex; align-items: center; justify-content: space-between; gap: 16px; flex-wrap: wrap; }
.shell-brand { color: #fff; font-weight: 800; font-size: 22px; text-decoration: none; letter-spacing: .5px; }
.shell-nav { list-style: none; display: flex; gap: 4px 18px; margin: 0; padding: 0; flex-wrap: wrap; }
.shell-nav a { color: #fff; text-decoration: none; padding: 6px 0; border-bottom: 2px solid transparent; }
.shell-nav a:hover, .shell-nav a.active { border-bottom-color: #7cc4ff; }
.shell-nav a:focus-visible, .shell-brand:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.shell-main { max-width: 1100px; margin: 0 auto; padding: 16px; min-height: 60vh; }
.shell-main:focus { outline: none; }
.shell-footer { border-top: 1px solid var(--h-border); color: var(--h-muted); font-size: 14px; }
.shell-footer p { max-width: 1100px; margin: 0 auto; padding: 16px; }
.shell-cookies { position: fixed; left: 0; right: 0; bottom: 0; z-index: 90; background: #0d2a4a; color: #fff; display: flex; align-items: center; justify-content: center; gap: 12px 24px; flex-wrap: wrap; padding: 12px 16px; box-shadow: 0 -2px 8px rgba(0,0,0,.25); }
.shell-cookies p { margin: 0; max-width: 760px; font-size: 14px; }
.shell-cookies a { color: #9fd3ff; }
.shell-cookies__close { background: #fff; color: #0d2a4a; border: 0; border-radius: 4px; padding: 8px 18px; font: inherit; font-weight: 700; cursor: pointer; min-height: 40px; }
.shell-cookies a:focus-visible, .shell-cookies__close:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.shell-sales { background: #f0a500; color: #1b1300; display: flex; flex-wrap: wrap; gap: 4px 16px; justify-content: center; align-items: center; padding: 8px 16px; font-size: 15px; }
.shell-sales a { color: #1b1300; font-weight: 700; }
`,
  );
}
