import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { CHROMIUM_FLAGS } from './support/chromium';

const slowdown = Math.max(1, Number(process.env.HANGAR_E2E_SLOWDOWN) || 1);
const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Browser tests against the real stack: scripts/web-e2e.sh starts the edge
 * (`go run ./cmd/hangar-dev`) and sets HANGAR_BASE_URL (and, for the processes project,
 * HANGAR_PROCESSES_URL). Debian's Chromium, never a downloaded browser.
 */
export default defineConfig({
  testDir: './tests',
  outputDir: resolve(webRoot, 'test-results/e2e'),
  fullyParallel: false,
  workers: 1,
  // No retries, in CI or not: a test that passes only on its second try is a flake to fix, not to hide.
  retries: 0,
  // A shared machine under load renders slower: HANGAR_E2E_SLOWDOWN=3 triples both limits.
  timeout: 30_000 * slowdown,
  expect: { timeout: 10_000 * slowdown },
  reporter: [['list'], ['json', { outputFile: resolve(webRoot, 'test-results/e2e-report.json') }]],
  use: {
    baseURL: process.env.HANGAR_BASE_URL ?? 'http://127.0.0.1:18080',
    viewport: { width: 1280, height: 800 },
    screenshot: 'on',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_FLAGS,
    },
  },
  projects: [
    { name: 'chromium' },
    // Faults a single-process stack cannot have (a checkout replica killed inside a
    // submit): scripts/web-e2e.sh's second stack, hangar-dev in multi-process mode with two
    // replicas per service, on HANGAR_PROCESSES_URL. Without it (a stack given by
    // HANGAR_BASE_URL) the project is not defined, so its specs are not run.
    ...(process.env.HANGAR_PROCESSES_URL
      ? [{ name: 'processes', testDir: './processes', use: { baseURL: process.env.HANGAR_PROCESSES_URL } }]
      : []),
  ],
});
