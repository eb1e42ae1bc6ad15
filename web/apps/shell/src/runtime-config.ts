/**
 * Runtime configuration: the shell learns where the remotes live from
 * /config.json at start, so one build runs in every environment. In
 * production the file holds relative URLs (same origin through the edge or
 * the Ingress); the dev server answers with the remotes' dev-server URLs.
 */
export const REMOTE_NAMES = ['buy', 'gift', 'oneoff', 'allocation', 'marketing', 'account'] as const;
export type RemoteName = (typeof REMOTE_NAMES)[number];

export interface RuntimeConfig {
  remotes: Record<RemoteName, string>;
}

export const CONFIG_URL = '/config.json';

export const DEFAULT_CONFIG: RuntimeConfig = {
  remotes: Object.fromEntries(REMOTE_NAMES.map((n) => [n, `/remotes/${n}/remoteEntry.js`])) as Record<RemoteName, string>,
};

/** An entry must be a relative path or an http(s) URL. */
function validEntry(v: unknown, base: string): v is string {
  if (typeof v !== 'string' || v.trim() === '') return false;
  try {
    const u = new URL(v, base);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Merges a config document over the defaults; invalid entries keep their default. */
export function parseRuntimeConfig(doc: unknown, base = 'http://localhost/'): { config: RuntimeConfig; problems: string[] } {
  const problems: string[] = [];
  const remotes = { ...DEFAULT_CONFIG.remotes };
  const given = doc && typeof doc === 'object' ? (doc as { remotes?: unknown }).remotes : undefined;
  if (given === undefined) {
    problems.push('config has no "remotes"');
  } else if (!given || typeof given !== 'object') {
    problems.push('"remotes" is not an object');
  } else {
    for (const [name, entry] of Object.entries(given as Record<string, unknown>)) {
      if (!(REMOTE_NAMES as readonly string[]).includes(name)) {
        problems.push(`unknown remote "${name}"`);
      } else if (!validEntry(entry, base)) {
        problems.push(`remote "${name}" has an invalid entry`);
      } else {
        remotes[name as RemoteName] = entry;
      }
    }
  }
  return { config: { remotes }, problems };
}

/** Absolute URL of an entry, resolved against the page. */
export function resolveEntry(entry: string, base: string): string {
  return new URL(entry, base).href;
}

/** Fetches /config.json; falls back to the defaults (same-origin /remotes/<name>/) when it is missing or broken. */
export async function loadRuntimeConfig(fetchImpl: typeof fetch = (...a) => fetch(...a), base = document.baseURI): Promise<RuntimeConfig> {
  try {
    const res = await fetchImpl(CONFIG_URL, { cache: 'no-cache', headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`status ${res.status}`);
    const { config, problems } = parseRuntimeConfig(await res.json(), base);
    if (problems.length > 0) console.warn(`hangar: ${CONFIG_URL}: ${problems.join('; ')}`);
    return config;
  } catch (err) {
    console.warn(`hangar: ${CONFIG_URL} unavailable (${(err as Error).message}); using same-origin remotes`);
    return DEFAULT_CONFIG;
  }
}
