#!/usr/bin/env node
// A static server for the assembled site (dist/site) with the edge's SPA
// fallback, for front-end checks without the Go stack:
//   node tools/serve-site.mjs [--port 4300] [--api http://127.0.0.1:8080]
// With --api, the public API paths are proxied there; without it they fail
// (the "catalog down" case).
import { createServer, request as httpRequest } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : def;
};
const port = Number(opt('--port', process.env.PORT ?? '4300'));
const api = opt('--api', process.env.HANGAR_API_URL ?? '');
const dir = resolve(opt('--dir', join(dirname(fileURLToPath(import.meta.url)), '../dist/site')));
const API = ['/account/api/', '/buy/api/', '/pricing/api/', '/org/api/', '/freegeoip/api/', '/buy/eligibility', '/-/'];
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.woff2': 'font/woff2', '.map': 'application/json',
};

async function file(p) {
  try {
    const s = await stat(p);
    return s.isFile() ? p : undefined;
  } catch {
    return undefined;
  }
}

createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (API.some((p) => url.pathname.startsWith(p))) {
    if (!api) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'unavailable', message: 'no API behind serve-site (use --api)' }));
      return;
    }
    const target = new URL(url.pathname + url.search, api);
    const up = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', (e) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'unavailable', message: e.message }));
    });
    req.pipe(up);
    return;
  }
  const rel = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
  let p = await file(join(dir, rel));
  if (!p && !extname(rel)) p = join(dir, 'index.html'); // SPA fallback for non-file paths
  if (!p) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  const immutable = p.includes(`${join(dir)}/`) && /\/assets\//.test(p);
  res.writeHead(200, {
    'content-type': TYPES[extname(p)] ?? 'application/octet-stream',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  createReadStream(p).pipe(res);
}).listen(port, '127.0.0.1', () => console.log(`serve-site: http://127.0.0.1:${port}/ from ${dir}${api ? `, API -> ${api}` : ''}`));
