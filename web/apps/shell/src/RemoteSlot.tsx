import { Component, Suspense, createContext, lazy, useContext, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { ErrorState, LoadingState, type RemoteModuleProps } from '@hangar/ui';
import { RemoteLoadError, type RemoteComponent, type RemoteLoader } from './remotes';
import { REMOTE_LABELS, ownsSiteNav } from './routes';
import { MainNav } from './MainNav';
import type { RemoteName } from './runtime-config';

export const RemoteLoaderContext = createContext<RemoteLoader | null>(null);

interface BoundaryProps {
  remote: RemoteName;
  onRetry: () => void;
  children: ReactNode;
}

/** Keeps a failing remote from taking the shell down; says what failed and offers Retry. */
class RemoteBoundary extends Component<BoundaryProps, { error: Error | null }> {
  state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  componentDidCatch(error: Error) {
    console.error(`hangar: ${error.message}`);
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const label = REMOTE_LABELS[this.props.remote];
    const loadFailed = error instanceof RemoteLoadError;
    return (
      <div data-remote-error={this.props.remote}>
        <ErrorState
          message={loadFailed ? `Sorry, the ${label} could not be loaded.` : `Sorry, something went wrong on the ${label}.`}
          detail={loadFailed ? 'Check your connection and try again.' : 'Please try again.'}
          onRetry={this.props.onRetry}
        />
        {/* The page that failed was to bring the site's navigation: the shell's stands in. */}
        {ownsSiteNav(this.props.remote) && <MainNav />}
      </div>
    );
  }
}

const lazyCache = new Map<string, ComponentType<RemoteModuleProps>>();

function lazyRemote(loader: RemoteLoader, remote: RemoteName, attempt: number): ComponentType<RemoteModuleProps> {
  const key = `${remote}#${attempt}`;
  let c = lazyCache.get(key);
  if (!c) {
    const loading = loader(remote, attempt);
    // A failed attempt must not be reused: drop it once it settles with an error.
    loading.catch(() => lazyCache.delete(key));
    c = lazy(() => loading.then((m: RemoteComponent) => ({ default: m })));
    lazyCache.set(key, c);
  }
  return c;
}

export interface RemoteSlotProps extends RemoteModuleProps {
  remote: RemoteName;
}

/** A remote's module with a loading state and an error boundary around it. */
export function RemoteSlot({ remote, ...props }: RemoteSlotProps) {
  const loader = useContext(RemoteLoaderContext);
  if (!loader) throw new Error('RemoteSlot needs a RemoteLoaderContext');
  const [attempt, setAttempt] = useState(0);
  const Remote = useMemo(() => lazyRemote(loader, remote, attempt), [loader, remote, attempt]);
  return (
    <RemoteBoundary key={`${remote}#${attempt}`} remote={remote} onRetry={() => setAttempt((n) => n + 1)}>
      <Suspense fallback={<LoadingState label={`Loading the ${REMOTE_LABELS[remote]}…`} />}>
        <Remote {...props} />
      </Suspense>
    </RemoteBoundary>
  );
}

/** For tests: forget lazily created components. */
export function resetRemoteCache(): void {
  lazyCache.clear();
}
