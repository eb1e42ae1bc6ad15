import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { CHROMIUM_FLAGS } from '../support/chromium';

const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// scripts/test-k8s.sh: the node's Ingress (Traefik's NodePort, plain HTTP) and, in front of
// it, a TLS terminator standing for the cloud load balancer (self-signed certificate). Chromium
// reaches the store's and the fields' hosts there, as DNS names pointing at the load balancer
// would: https for the store (its URL and the card fields' allowed parent), and the fields'
// origin as the chart announces it without ingress TLS (http://pay...), which Chromium is told
// to treat as secure, as it would be behind the load balancer's certificate.
const ingress = process.env.HANGAR_K8S_INGRESS ?? '127.0.0.1:30080';
const lb = process.env.HANGAR_K8S_LB ?? '127.0.0.1:30443';
const store = 'store.hangar-ci.ie';
const fields = 'pay.hangar-ci.ie';

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
    baseURL: `https://${store}`,
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        ...CHROMIUM_FLAGS,
        `--host-resolver-rules=MAP ${store}:80 ${ingress}, MAP ${fields}:80 ${ingress}, MAP ${store}:443 ${lb}, MAP ${fields}:443 ${lb}`,
        `--unsafely-treat-insecure-origin-as-secure=http://${fields}`,
      ],
    },
  },
  projects: [{ name: 'chromium' }],
});
