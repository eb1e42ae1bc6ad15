// The files a page needs before it can paint, named in its HTML so the browser fetches them
// at once instead of one level at a time.
//
// Why: the shell and each remote load through Module Federation, and each step names the next
// only when it runs: index.html -> the shell's entry -> its shared React (loadShare chunks) ->
// bootstrap -> the route's remoteEntry.js -> its runtime glue -> the exposed module -> its
// shared-dependency chunk. On a slow phone network each step is a round trip: /buy's plans
// painted after about ten sequential requests (Lighthouse: LCP 3.3 s at FCP 1.8 s). Vite
// preloads only the shell entry's static imports; a remote's boot files are what this adds.
//
// The lists come from the remote's Vite build manifest (`build.manifest`, dist/apps/<remote>/
// .vite/manifest.json): a chunk's static `imports` are always needed; of the `dynamicImports`
// only remoteEntry.js's are followed (the exposed module and the shared-dependency map), never
// a page's own lazy chunks (the coverage map), nor what a remote loads only when it runs alone
// (its own React, hostInit).

/** A manifest's key for the chunk whose output file is `file`. */
function keyOfFile(manifest, file) {
  return Object.keys(manifest).find((k) => manifest[k].file === file);
}

/**
 * The boot files of one app, in the order they are needed: starting at `roots` (manifest
 * keys), every static import, and the dynamic imports `follow(key)` accepts, with their CSS.
 */
function closure(manifest, roots, follow) {
  const js = [];
  const css = [];
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key) || !manifest[key]) return;
    seen.add(key);
    const chunk = manifest[key];
    for (const imp of chunk.imports ?? []) visit(imp);
    js.push(chunk.file);
    for (const c of chunk.css ?? []) if (!css.includes(c)) css.push(c);
    for (const dyn of chunk.dynamicImports ?? []) if (follow(dyn)) visit(dyn);
  };
  for (const r of roots) visit(r);
  return { js, css };
}

/**
 * A remote's boot files: its remoteEntry.js, the runtime glue it imports, its shared-dependency
 * map and the exposed module with its stylesheet, as paths relative to the remote's folder.
 */
export function remoteBoot(manifest) {
  const entry = keyOfFile(manifest, 'remoteEntry.js');
  if (!entry) throw new Error('preloads: the remote manifest has no remoteEntry.js');
  const exposed = new Set(manifest[entry].dynamicImports ?? []);
  return closure(manifest, [entry], (dyn) => exposed.has(dyn));
}

/**
 * `<link>` tags preloading a remote's boot files (paths relative to `base`, which ends without
 * a slash) at low priority: the shell's own files, which the first paint waits for, keep the
 * bandwidth (with them at high priority the first paint came later: Lighthouse FCP 1.8 s ->
 * 2.0-2.7 s), and the remote's arrive while the shell boots instead of one step after another.
 * A preload is used only by a request of the same credentials mode: modules are fetched with
 * CORS (`crossorigin`); the federation runtime adds a remote's stylesheet without it.
 */
export function preloadTags({ js, css }, base) {
  const tags = [];
  for (const f of css) tags.push(`<link rel="preload" as="style" fetchpriority="low" href="${base}/${f}">`);
  for (const f of js) tags.push(`<link rel="modulepreload" fetchpriority="low" crossorigin href="${base}/${f}">`);
  return tags;
}

/**
 * index.html with `tags` before </head>, leaving out a file the HTML already names (Vite's own
 * preloads of the entry's static imports).
 */
export function withPreloads(html, tags) {
  const fresh = tags.filter((t) => {
    const href = /href="([^"]+)"/.exec(t)[1];
    return !html.includes(`"${href}"`);
  });
  if (!html.includes('</head>')) throw new Error('preloads: index.html has no </head>');
  return html.replace('</head>', `${fresh.map((t) => `  ${t}\n`).join('')}</head>`);
}
