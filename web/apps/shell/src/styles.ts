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
`,
  );
}
