import type { EngramStore } from './engram-store.js';

/** Receives the duration of one store call: `part.method` (e.g. `memories.searchText`) and its outcome. */
export type StoreObserver = (operation: string, seconds: number, ok: boolean) => void;

const PARTS = ['memories', 'documents', 'jobs'] as const;

/** Wraps every promise-returning method of `target` so `observe` sees its duration. */
function timed<T extends object>(target: T, part: string, observe: StoreObserver): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrapped.get(property);
      if (!wrapper) {
        const operation = `${part}.${property}`;
        wrapper = (...args: unknown[]) => {
          const started = performance.now();
          const result = (value as (...parameters: unknown[]) => unknown).apply(object, args);
          if (!(result instanceof Promise)) return result;
          const seconds = () => (performance.now() - started) / 1_000;
          return result.then(
            (resolved) => {
              observe(operation, seconds(), true);
              return resolved;
            },
            (error: unknown) => {
              observe(operation, seconds(), false);
              throw error;
            },
          );
        };
        wrapped.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

/**
 * The same store, with every call timed: for the server's `engram_store_duration_seconds`
 * histogram. Session calls are named `sessions.<method>`, the others by their part
 * (`memories.*`, `documents.*`, `jobs.*`). Results and errors pass through unchanged.
 */
export function instrumentStore(store: EngramStore, observe: StoreObserver): EngramStore {
  const parts = Object.fromEntries(PARTS.map((part) => [part, timed(store[part], part, observe)]));
  const sessions = timed(store, 'sessions', observe);
  return new Proxy(sessions, {
    get(object, property, receiver) {
      if (typeof property === 'string' && property in parts) return parts[property];
      return Reflect.get(object, property, receiver);
    },
  });
}
