import { startTransition, useCallback, useEffect, useState } from 'react';
import { ApiError } from './http';

export type Resource<T> =
  | { status: 'loading'; data?: undefined; error?: undefined; retry: () => void }
  | { status: 'ready'; data: T; error?: undefined; retry: () => void }
  | { status: 'error'; data?: undefined; error: ApiError; retry: () => void };

/**
 * Loads once per `key` change; `retry` loads again. The call gets an
 * AbortSignal that fires when the component unmounts or the key changes.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Resource<T> {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<{ status: 'loading' | 'ready' | 'error'; data?: T; error?: ApiError }>({ status: 'loading' });
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    setState({ status: 'loading' });
    load(controller.signal).then(
      (data) => {
        // The page that the data fills is the big render; as a transition React renders it
        // in slices between which the browser stays responsive, not as one long task.
        if (!controller.signal.aborted) startTransition(() => setState({ status: 'ready', data }));
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        const error = err instanceof ApiError ? err : new ApiError(0, 'unknown', (err as Error)?.message ?? String(err));
        setState({ status: 'error', error });
      },
    );
    return () => controller.abort();
    // `load` is expected to change with `key`; callers pass a stable key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, attempt]);

  return { ...state, retry } as Resource<T>;
}
