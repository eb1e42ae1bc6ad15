// Build configuration shared by every app of the workspace: path aliases for the
// libraries, the Module Federation share scope, and the remote/shell/vitest
// config factories. Every app's vite.config.mts is a one-liner on top of this.
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UserConfig, Plugin, ProxyOptions } from 'vite';
import react from '@vitejs/plugin-react';
import { federation } from '@module-federation/vite';

export const workspaceRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** The remotes the shell composes, with their standalone dev-server ports. */
export const REMOTES = {
  buy: 4201,
  gift: 4202,
  oneoff: 4203,
  allocation: 4204,
  marketing: 4205,
  account: 4206,
} as const;
export type RemoteName = keyof typeof REMOTES;
export const SHELL_PORT = 4200;

const lib = (path: string) => resolve(workspaceRoot, 'libs', path);
export const aliases = [
  { find: /^@hangar\/ui$/, replacement: lib('ui/src/index.ts') },
  { find: /^@hangar\/api-client$/, replacement: lib('api-client/src/index.ts') },
  { find: /^@hangar\/api-client\/testing$/, replacement: lib('api-client/src/testing.ts') },
  { find: /^@hangar\/money$/, replacement: lib('money/src/index.ts') },
  { find: /^@hangar\/analytics$/, replacement: lib('analytics/src/index.ts') },
  { find: /^@hangar\/storefront$/, replacement: lib('storefront/src/index.ts') },
];

/**
 * One share scope for the shell and every remote: React and ReactDOM are
 * singletons, so hooks and context work across federated modules.
 */
export const sharedDeps = {
  react: { singleton: true, requiredVersion: '^19.2.0' },
  'react-dom': { singleton: true, requiredVersion: '^19.2.0' },
};

/** Public API prefixes the dev servers proxy to the local edge (make dev). */
const API_PREFIXES = ['/account/api', '/buy/api', '/pricing/api', '/org/api', '/freegeoip/api', '/buy/eligibility', '/-/'];

function apiProxy(): Record<string, ProxyOptions> {
  const target = process.env.HANGAR_API_URL ?? 'http://127.0.0.1:8080';
  return Object.fromEntries(API_PREFIXES.map((p) => [p, { target, changeOrigin: true }]));
}

/**
 * CSS Modules: every component's styles live in a `.module.css` beside it, scoped by the
 * build. Class names keep their source name as a prefix (readable in the DOM and in test
 * failures); code reads them camel-cased (`.buy-option--selected` is `s.buyOptionSelected`).
 */
export const cssModules = {
  localsConvention: 'camelCaseOnly' as const,
  generateScopedName: '[local]_[hash:base64:5]',
};

const build = (name: string): UserConfig['build'] => ({
  target: 'chrome100',
  outDir: resolve(workspaceRoot, 'dist/apps', name),
  emptyOutDir: true,
  reportCompressedSize: false,
  manifest: true,
});

/**
 * A remote: exposes exactly one lazily loaded module, `./Module`, and runs on its
 * own (index.html + src/main.tsx) on its dev port. Assets use a relative base so
 * the build can be served from any folder (the edge serves it under /remotes/<name>/).
 */
export function remoteConfig(name: RemoteName, command: 'build' | 'serve' = 'build'): UserConfig {
  const port = REMOTES[name];
  return {
    root: resolve(workspaceRoot, 'apps', name),
    // One dependency-optimizer cache per app: federation rewrites shared deps per app.
    cacheDir: resolve(workspaceRoot, 'node_modules/.vite', name),
    base: './',
    resolve: { alias: aliases },
    css: { modules: cssModules },
    server: {
      port,
      strictPort: true,
      host: '127.0.0.1',
      origin: `http://127.0.0.1:${port}`,
      cors: true,
      proxy: apiProxy(),
      fs: { allow: [workspaceRoot] },
    },
    preview: { port, strictPort: true, host: '127.0.0.1', cors: true, proxy: apiProxy() },
    build: build(name),
    plugins: [
      federation({
        name,
        filename: 'remoteEntry.js',
        exposes: { './Module': './src/remote-module.tsx' },
        shared: sharedDeps,
        dts: false,
        manifest: false,
        // The remote's CSS (its own modules and @hangar/ui's) is loaded with <link> tags
        // when the shell loads ./Module: no <style> injected from JavaScript.
        bundleAllCSS: true,
        // In the production build the federation runtime is the shell's
        // (provideExternalRuntime there): without this every remote bundled its own copy,
        // ~65 KB of JavaScript (19 KB gzipped) downloaded and evaluated again on every page
        // (docs/performance-web.md). So a built remote runs inside the shell only; the dev
        // server (`nx serve <remote>`) keeps its own runtime and still runs on its own.
        experiments: { externalRuntime: command === 'build' },
      }),
      react(),
    ],
  };
}

/**
 * Dev only: the shell's /config.json points at the remotes' dev servers. The
 * production build gets its config.json from tools/assemble-site.mjs.
 */
function devRuntimeConfig(): Plugin {
  return {
    name: 'hangar-dev-runtime-config',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use('/config.json', (_req, res) => {
        const remotes = Object.fromEntries(
          Object.entries(REMOTES).map(([n, port]) => [n, `http://127.0.0.1:${port}/remoteEntry.js`]),
        );
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ remotes, features: { 'one-off-purchases': true } }));
      });
    },
  };
}

export function shellConfig(): UserConfig {
  return {
    root: resolve(workspaceRoot, 'apps/shell'),
    cacheDir: resolve(workspaceRoot, 'node_modules/.vite/shell'),
    base: '/',
    resolve: { alias: aliases },
    css: { modules: cssModules },
    server: {
      port: SHELL_PORT,
      strictPort: true,
      host: '127.0.0.1',
      proxy: apiProxy(),
      fs: { allow: [workspaceRoot] },
    },
    preview: { port: SHELL_PORT, strictPort: true, host: '127.0.0.1', proxy: apiProxy() },
    build: build('shell'),
    plugins: [
      devRuntimeConfig(),
      // No build-time remotes: they are registered at runtime from /config.json.
      // The shell publishes its federation runtime for the remotes (externalRuntime there).
      federation({ name: 'shell', remotes: {}, shared: sharedDeps, dts: false, manifest: false, experiments: { provideExternalRuntime: true } }),
      react(),
    ],
  };
}

/** Unit tests: jsdom, the same aliases, no federation plugin. */
export function vitestConfig(projectDir: string): UserConfig & { test: Record<string, unknown> } {
  return {
    root: projectDir,
    resolve: { alias: aliases },
    css: { modules: cssModules },
    plugins: [react()],
    test: {
      // CSS Modules answer their source class names in tests (`h-btn--small`), so a test can
      // name a class without knowing the build's hash.
      css: { include: /\.module\.css$/, modules: { classNameStrategy: 'non-scoped' } },
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.{ts,mjs}'],
      setupFiles: [resolve(workspaceRoot, 'tools/vite/vitest.setup.ts')],
      restoreMocks: true,
      pool: 'threads',
      // The JSON report feeds the pass/fail summary of scripts/web-test.sh.
      reporters: ['default', 'json'],
      outputFile: { json: resolve(workspaceRoot, 'test-results/unit', `${basename(projectDir)}.json`) },
    },
  };
}
