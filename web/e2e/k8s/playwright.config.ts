import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { CHROMIUM_FLAGS } from '../support/chromium';

const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// scripts/test-k8s.sh: the node's Ingress (Traefik's NodePort), which Chromium reaches for
// the store's and the fields' hosts as a DNS name pointing at the load balancer would.
const ingress = process.env.HANGAR_K8S_INGRESS ?? '127.0.0.1:30080';

/** The one purchase through the real node's Ingress (scripts/test-k8s.sh only). */
export default defineConfig({
  testDir: '.',
  outputDir: resolve(webRoot, 'test-results/e2e-k8s'),
  workers: 1,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: {
    baseURL: 'http://store.hangar-ci.ie',
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [...CHROMIUM_FLAGS, `--host-resolver-rules=MAP store.hangar-ci.ie:80 ${ingress}, MAP pay.hangar-ci.ie:80 ${ingress}`],
    },
  },
  projects: [{ name: 'chromium' }],
});
