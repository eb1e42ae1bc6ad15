import { injectStyles } from '@hangar/ui';

export function ensureEligibilityStyles(): void {
  injectStyles(
    'buy-eligibility',
    `
.el { max-width: 640px; }
.el-form { display: grid; gap: 10px; justify-items: start; margin-top: 12px; }
.el-form input[type=email], .el-form input[type=text], .el-form input[type=password], .el-form input[inputmode] { font: inherit; padding: 8px; min-height: 40px; width: min(100%, 420px); box-sizing: border-box; }
.el-check { display: flex; gap: 8px; align-items: flex-start; }
.el-button { font: inherit; font-weight: 700; min-height: 40px; padding: 8px 22px; border-radius: 4px; border: 0; background: #0d6efd; color: #fff; cursor: pointer; }
.el-button:disabled { background: #9aa7b4; cursor: not-allowed; }
.el-button:focus-visible, .el-link:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.el-link { background: none; border: 0; color: #0b5cad; text-decoration: underline; font: inherit; cursor: pointer; padding: 0; }
.el-error { color: #b00020; }
.el-warning { color: #7a4b00; background: #fff4dc; padding: 8px 12px; border-radius: 4px; }
.el-success { color: #0b5d1e; background: #e3f6e8; padding: 8px 12px; border-radius: 4px; }
`,
  );
}
