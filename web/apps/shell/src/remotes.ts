import type { ComponentType } from 'react';
import { loadRemote, registerRemotes } from '@module-federation/runtime';
import type { RemoteModuleProps } from '@hangar/ui';
import { REMOTE_NAMES, resolveEntry, type RemoteName, type RuntimeConfig } from './runtime-config';

export type RemoteComponent = ComponentType<RemoteModuleProps>;

/** Loads a remote's exposed ./Module; `attempt` > 0 is a retry after a failure. */
export type RemoteLoader = (name: RemoteName, attempt: number) => Promise<RemoteComponent>;

/** Thrown when a remote's code cannot be fetched or has no module. */
export class RemoteLoadError extends Error {
  readonly remote: RemoteName;
  constructor(remote: RemoteName, cause: unknown) {
    super(`remote "${remote}" could not be loaded: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'RemoteLoadError';
    this.remote = remote;
  }
}

/**
 * The Module Federation loader: registers the remotes from the runtime config
 * (ESM remoteEntry.js built by @module-federation/vite) and loads
 * '<remote>/Module'. A retry registers the remote again with a cache-busting
 * entry URL, since browsers may remember a failed module fetch.
 */
export function createFederationLoader(config: Promise<RuntimeConfig>, base = document.baseURI): RemoteLoader {
  let registered: Promise<RuntimeConfig> | undefined;
  const ready = () =>
    (registered ??= config.then((cfg) => {
      registerRemotes(REMOTE_NAMES.map((name) => ({ name, entry: resolveEntry(cfg.remotes[name], base), type: 'module' })));
      return cfg;
    }));

  const loaded = new Map<RemoteName, Promise<RemoteComponent>>();
  return (name, attempt) => {
    const cached = loaded.get(name);
    if (cached && attempt === 0) return cached;
    const p = ready()
      .then((cfg) => {
        if (attempt > 0) {
          const url = new URL(resolveEntry(cfg.remotes[name], base));
          url.searchParams.set('retry', String(attempt));
          registerRemotes([{ name, entry: url.href, type: 'module' }], { force: true });
        }
        return loadRemote<{ default?: RemoteComponent }>(`${name}/Module`);
      })
      .then((mod) => {
        if (!mod || typeof mod.default !== 'function') throw new Error('./Module has no default export');
        return mod.default;
      })
      .catch((err: unknown) => {
        loaded.delete(name);
        throw new RemoteLoadError(name, err);
      });
    loaded.set(name, p);
    return p;
  };
}
