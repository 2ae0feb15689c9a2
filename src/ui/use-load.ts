import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /**
   * Whether `data` answers the present `key`: false while another key's answer is still shown
   * (the next one loading). An action on `data` waits for it (it would act on the previous item).
   */
  current: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `key` changes (and on `reload`); an answer that arrives after a newer request
 * started is dropped. `key` null: nothing to load yet. The previous answer stays in `data` while
 * the next loads (no flicker); `current` says whether it is the present key's.
 */
export function useLoad<T>(key: string | null, load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; key?: string }>({
    loading: false,
  });
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const run = useCallback(() => {
    if (key === null) return;
    const call = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    loader.current().then(
      (data) => call === latest.current && setState({ data, loading: false, key }),
      (error: unknown) => call === latest.current && setState({ error, loading: false, key }),
    );
  }, [key]);
  useEffect(run, [run]);
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    current: state.data !== undefined && key !== null && state.key === key,
    reload: run,
  };
}

/** Calls `tick` every `ms` while `enabled` (live views poll: same origin, no second channel). */
export function useInterval(tick: () => void, ms: number, enabled: boolean): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms, enabled]);
}
