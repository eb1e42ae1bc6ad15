#!/usr/bin/env node
// Assembles ONE static tree from the apps' production builds:
//   dist/site/                      the shell (index.html, assets/)
//   dist/site/remotes/<name>/       each remote (remoteEntry.js, assets/)
//   dist/site/index.<remote>.html   index.html naming the boot files of the remote that
//                                   renders the page (tools/preloads.mjs)
//   dist/site/config.json           runtime config: where the shell finds the remotes, the
//                                   feature flags (HANGAR_FEATURES, default one-off-purchases),
//                                   notices (HANGAR_NOTICE_<PAGE>) and outside links
//                                   (HANGAR_APP_STORE_URL, HANGAR_SALES_EMAIL and the legal
//                                   pages HANGAR_TERMS_URL, HANGAR_PRIVACY_URL,
//                                   HANGAR_REFUND_POLICY_URL: required
//                                   outside HANGAR_DEV_MODE=true, tools/site-links.mjs)
// The edge (`make dev`, WEB_DIST_DIR) and the Ingress serve it from one origin,
// so the config holds relative URLs. HANGAR_REMOTE_BASE (e.g. a CDN prefix)
// overrides the location of the remotes without rebuilding.
import { cp, mkdir, rm, writeFile, access, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { siteLinks } from './site-links.mjs';
import { preloadTags, remoteBoot, withPreloads } from './preloads.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const apps = join(root, 'dist/apps');
const site = join(root, 'dist/site');
const REMOTES = ['buy', 'gift', 'oneoff', 'allocation', 'marketing', 'account'];

async function mustExist(p, what) {
  try {
    await access(p);
  } catch {
    throw new Error(`assemble-site: missing ${what} (${p}); build first`);
  }
}

await mustExist(join(apps, 'shell/index.html'), 'shell build');
for (const r of REMOTES) await mustExist(join(apps, r, 'remoteEntry.js'), `${r} build`);
const manifestOf = async (app) => {
  const file = join(apps, app, '.vite/manifest.json');
  await mustExist(file, `${app} build manifest`);
  return JSON.parse(await readFile(file, 'utf8'));
};

const tmp = `${site}.tmp`;
await rm(tmp, { recursive: true, force: true });
await mkdir(tmp, { recursive: true });
await cp(join(apps, 'shell'), tmp, { recursive: true });
for (const r of REMOTES) {
  await cp(join(apps, r), join(tmp, 'remotes', r), { recursive: true });
}

const base = (process.env.HANGAR_REMOTE_BASE ?? '/remotes').replace(/\/$/, '');

// The boot files of each remote's pages, named in their HTML (tools/preloads.mjs):
// index.<remote>.html is index.html with them, served for the pages that remote renders (the
// edge, internal/edge; the chart's web server: deploy/helm/README.md). The build manifests
// are read here and not published.
const indexHtml = await readFile(join(tmp, 'index.html'), 'utf8');
for (const r of REMOTES) {
  const tags = preloadTags(remoteBoot(await manifestOf(r)), `${base}/${r}`);
  await writeFile(join(tmp, `index.${r}.html`), withPreloads(indexHtml, tags));
}
for (const app of ['shell', ...REMOTES]) {
  await rm(join(tmp, app === 'shell' ? '' : `remotes/${app}`, '.vite'), { recursive: true, force: true });
}
// Feature flags of this deployment (the pages' global flag map; a flag not listed is off).
// HANGAR_FEATURES is a comma list; one-off purchases are on unless it says otherwise.
const features = Object.fromEntries(
  (process.env.HANGAR_FEATURES ?? 'one-off-purchases')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '')
    .map((f) => [f, true]),
);
// Notices: the text of a page's closable notification banner, from HANGAR_NOTICE_<PAGE>
// (e.g. HANGAR_NOTICE_BUY; set it empty for no banner). /buy has a default.
const notices = {
  buy: 'Plans are billed yearly. Tax or VAT is calculated at checkout; an account balance or a gift certificate pays the total after tax.',
  ...Object.fromEntries(
    Object.entries(process.env)
      .filter(([k]) => k.startsWith('HANGAR_NOTICE_'))
      .map(([k, v]) => [k.slice('HANGAR_NOTICE_'.length).toLowerCase(), (v ?? '').trim()]),
  ),
};
// Outside links: the app's App Store listing and the sales address, required outside
// development mode (tools/site-links.mjs): without them the site is not assembled.
const links = siteLinks(process.env);
const config = { remotes: Object.fromEntries(REMOTES.map((r) => [r, `${base}/${r}/remoteEntry.js`])), features, notices, links };
await writeFile(join(tmp, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);

// Precompressed variants beside every text file (app.js.br, app.js.gz): the edge
// (internal/edge) and the Ingress's server send the one the browser accepts, with
// Content-Encoding, and spend no CPU per request on it. Written after the files, so
// each variant is at least as new as its file (the edge ignores an older one).
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.json', '.svg', '.map', '.txt', '.xml']);
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
let raw = 0;
let br = 0;
async function precompress(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      await precompress(p);
      continue;
    }
    if (!COMPRESSIBLE.has(extname(e.name))) continue;
    const body = await readFile(p);
    if (body.length < 256) continue; // below a packet, no gain
    const [b, g] = await Promise.all([
      brotli(body, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
        },
      }),
      gzipped(body, { level: zlibConstants.Z_BEST_COMPRESSION }),
    ]);
    raw += body.length;
    br += b.length;
    await writeFile(`${p}.br`, b);
    await writeFile(`${p}.gz`, g);
  }
}
await precompress(tmp);

// Swap in atomically enough for a dev server reading the directory. The timestamps are
// kept, so no variant ends up older than its file.
await rm(site, { recursive: true, force: true });
await cp(tmp, site, { recursive: true, preserveTimestamps: true });
await rm(tmp, { recursive: true, force: true });

async function count(dir) {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    n += e.isDirectory() ? await count(join(dir, e.name)) : 1;
  }
  return n;
}
const files = await count(site);
const { size } = await stat(join(site, 'index.html'));
console.log(
  `assemble-site: ${site} (${files} files; index.html ${size} B; remotes at ${base}/<name>/; ` +
    `text ${(raw / 1024).toFixed(0)} KiB, brotli ${(br / 1024).toFixed(0)} KiB)`,
);
