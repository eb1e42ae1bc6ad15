// node --test tools/ (scripts/web-test.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preloadTags, remoteBoot, withPreloads } from './preloads.mjs';

// The shape of a remote's Vite manifest (dist/apps/buy/.vite/manifest.json, trimmed).
const buy = {
  'virtual:mf-REMOTE_ENTRY_ID:buy': { file: 'remoteEntry.js', isEntry: true, imports: ['_dist.js', '_helpers.js'], dynamicImports: ['src/remote-module.tsx', 'virtual:mf-localSharedImportMap:buy'] },
  '_dist.js': { file: 'assets/dist-1.js', imports: ['_utils.js'] },
  '_helpers.js': { file: 'assets/helpers-1.js', imports: ['_utils.js'] },
  '_utils.js': { file: 'assets/utils-1.js' },
  'src/remote-module.tsx': { file: 'assets/remote-module-a.js', isEntry: true, imports: ['_remote-module.js'] },
  '_remote-module.js': { file: 'assets/remote-module-b.js', imports: ['_loadShare.js'], dynamicImports: ['src/sections/CoverageMap.tsx'], css: ['assets/remote-module-c.css'] },
  '_loadShare.js': { file: 'assets/loadShare-1.js', imports: ['_runtime.js'], dynamicImports: ['virtual:mf:prebuild_react'] },
  '_runtime.js': { file: 'assets/rolldown-runtime-1.js' },
  'virtual:mf-localSharedImportMap:buy': { file: 'assets/localSharedImportMap-1.js', isDynamicEntry: true, imports: ['_dist.js'], dynamicImports: ['virtual:mf:prebuild_react'] },
  'virtual:mf:prebuild_react': { file: 'assets/prebuild-react-1.js', isDynamicEntry: true, imports: ['_react.js'] },
  '_react.js': { file: 'assets/react-1.js' },
  'src/sections/CoverageMap.tsx': { file: 'assets/CoverageMap-1.js', isDynamicEntry: true, imports: ['_remote-module.js'] },
  'virtual:mf:hostInit': { file: 'assets/hostInit-1.js', isEntry: true, imports: ['_helpers.js'] },
};

test('a remote boots from remoteEntry.js, its glue, the shared map and the exposed module, nothing lazy', () => {
  const { js, css } = remoteBoot(buy);
  assert.deepEqual(js.sort(), [
    'assets/dist-1.js',
    'assets/helpers-1.js',
    'assets/loadShare-1.js',
    'assets/localSharedImportMap-1.js',
    'assets/remote-module-a.js',
    'assets/remote-module-b.js',
    'assets/rolldown-runtime-1.js',
    'assets/utils-1.js',
    'remoteEntry.js',
  ]);
  assert.deepEqual(css, ['assets/remote-module-c.css']);
  // The coverage map loads when the Regions section opens; React is the shell's; hostInit runs only standalone.
  for (const lazy of ['assets/CoverageMap-1.js', 'assets/prebuild-react-1.js', 'assets/react-1.js', 'assets/hostInit-1.js']) assert.ok(!js.includes(lazy), lazy);
});

test('a build without remoteEntry.js is refused, not assembled without its preloads', () => {
  assert.throws(() => remoteBoot({ 'index.html': { file: 'assets/index.js', isEntry: true } }), /no remoteEntry\.js/);
});

test('the tags preload at low priority, with the credentials mode of the request that uses them', () => {
  const tags = preloadTags({ js: ['remoteEntry.js'], css: ['assets/x.css'] }, '/remotes/buy');
  assert.deepEqual(tags, [
    '<link rel="preload" as="style" fetchpriority="low" href="/remotes/buy/assets/x.css">',
    '<link rel="modulepreload" fetchpriority="low" crossorigin href="/remotes/buy/remoteEntry.js">',
  ]);
});

test('the tags go before </head>, once per file', () => {
  const html = '<html><head><script type="module" src="/remotes/buy/remoteEntry.js"></script></head><body></body></html>';
  const out = withPreloads(html, preloadTags({ js: ['remoteEntry.js', 'assets/a.js'], css: [] }, '/remotes/buy'));
  assert.equal((out.match(/remoteEntry\.js/g) ?? []).length, 1);
  assert.match(out, /<link rel="modulepreload" fetchpriority="low" crossorigin href="\/remotes\/buy\/assets\/a\.js">\n<\/head>/);
  assert.throws(() => withPreloads('<html><body></body></html>', []), /no <\/head>/);
});
