// Builds the coverage map's outlines from Natural Earth (npm world-atlas, 1:110m): one
// committed GeoJSON Feature per catalogue region (countries merged along shared borders,
// so the map draws each region's coast and outer border, not its internal ones), and the
// world's land for the background. The region -> countries mapping is data: regions.json.
//
//   node services/catalog/data/map/generate.mjs          (needs `npm ci` in web/)
//   node services/catalog/data/map/generate.mjs --check  (fails when the files drift)
//
// Coordinates are rounded to 0.1 degree (about 11 km): the map is 300 px high, so a finer
// grid only costs bytes.
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../../../../web/package.json'));
const topojson = require('topojson-client');
const { geoArea } = await import(require.resolve('d3-geo'));
const world = require('world-atlas/countries-110m.json');
const land110 = require('world-atlas/land-110m.json');

const check = process.argv.includes('--check');
const regions = JSON.parse(readFileSync(join(here, 'regions.json'), 'utf8'));
const geoms = world.objects.countries.geometries;
const byName = new Map(geoms.map((g) => [g.properties.name, g]));

const round = (n) => Math.round(n * 10) / 10;

// Rounding can collapse a small island or flip a ring's winding; d3-geo reads a ring wound
// the wrong way as "everything but this", so such rings are reversed, and degenerate ones dropped.
function clean(geometry) {
  const polys = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const out = [];
  for (const poly of polys) {
    const rings = [];
    for (const ring of poly) {
      const r = [];
      for (const [x, y] of ring) {
        const p = [round(x), round(y)];
        const last = r[r.length - 1];
        if (!last || last[0] !== p[0] || last[1] !== p[1]) r.push(p);
      }
      if (r.length < 4) continue;
      rings.push(r);
    }
    if (rings.length === 0) continue;
    if (geoArea({ type: 'Polygon', coordinates: [rings[0]] }) > 2 * Math.PI) rings[0].reverse();
    out.push(rings);
  }
  return { type: 'MultiPolygon', coordinates: out };
}

const files = {};
const used = new Set();
for (const [key, r] of Object.entries(regions)) {
  if (key.startsWith('_')) continue;
  const members = r.countries.map((n) => {
    const g = byName.get(n);
    if (!g) throw new Error(`region ${key}: no country named ${JSON.stringify(n)} in world-atlas countries-110m`);
    used.add(n);
    return g;
  });
  const geometry = clean(topojson.merge(world, members));
  files[`${key}.json`] = { type: 'Feature', id: key, properties: { name: r.name }, geometry };
}
const land = topojson.feature(land110, land110.objects.land);
files['land.json'] = { type: 'Feature', id: 'land', properties: { name: 'Land' }, geometry: clean(land.features ? land.features[0].geometry : land.geometry) };

const unused = [...byName.keys()].filter((n) => !used.has(n));
if (unused.length && !check) console.error(`not in any region: ${unused.join(', ')}`);

const outDir = join(here, 'outlines');
mkdirSync(outDir, { recursive: true });
let drift = false;
for (const [name, feature] of Object.entries(files)) {
  const text = JSON.stringify(feature) + '\n';
  const path = join(outDir, name);
  if (check) {
    let old = '';
    try { old = readFileSync(path, 'utf8'); } catch { /* missing */ }
    if (old !== text) { console.error(`${path} is stale: run node services/catalog/data/map/generate.mjs`); drift = true; }
  } else {
    writeFileSync(path, text);
  }
}
if (check) {
  for (const f of readdirSync(outDir)) if (!files[f]) { console.error(`${join(outDir, f)} is not generated from regions.json`); drift = true; }
  if (drift) process.exit(1);
}
