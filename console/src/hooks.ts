import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Loaded<T> = { data: T | undefined; error: unknown; loading: boolean; reload: () => void };

/**
 * Data for a page: loaded when `deps` change, its error kept for the page to explain, reloadable.
 * A load started earlier is abandoned (aborted) when a newer one starts or the page goes away.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error: unknown) => !controller.signal.aborted && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => controller.abort();
    // The caller lists what the load depends on.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** The record a detail page shows, loaded by its id (again when the id changes), its envelope unwrapped. */
export function useRecord<T>(id: string, load: (id: string, signal: AbortSignal) => Promise<{ data: T }>): Loaded<T> {
  return useLoad((signal) => load(id, signal).then((r) => r.data), [id]);
}

/** Calls `fn` every `ms` while `active`, e.g. to follow an analysis until it finishes. */
export function useInterval(fn: () => void, ms: number, active: boolean): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}

/** An action a button starts: busy while it runs, its error kept for the form to show. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        return await action(...args);
      } catch (err) {
        setError(err);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, busy, error, clearError: () => setError(undefined) };
}
