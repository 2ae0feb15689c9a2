import type { EngramStore } from './engram-store.js';

/** Receives the duration of one store call: `part.method` (e.g. `memories.searchText`) and its outcome. */
export type StoreObserver = (operation: string, seconds: number, ok: boolean) => void;

const PARTS = ['memories', 'documents', 'jobs'] as const;

/** Names of the methods of `target`, own and inherited (up to, not including, Object.prototype). */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (
    let level = target;
    level !== null && level !== Object.prototype;
    level = Object.getPrototypeOf(level)
  ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function')
        names.add(name);
    }
  }
  return [...names];
}

/**
 * `target` with every method that returns a promise timed. The wrapper inherits from `target`,
 * so other properties read through to it; the wrapped methods are made once, not per call.
 */
function timed<T extends object>(target: T, part: string, observe: StoreObserver): T {
  const wrapper = Object.create(target) as Record<string, unknown>;
  for (const name of methodNames(target)) {
    const method = (target as Record<string, (...parameters: unknown[]) => unknown>)[name] as (
      ...parameters: unknown[]
    ) => unknown;
    const operation = `${part}.${name}`;
    wrapper[name] = (...args: unknown[]) => {
      const started = performance.now();
      const result = method.apply(target, args);
      if (!(result instanceof Promise)) return result;
      return result.then(
        (resolved) => {
          observe(operation, (performance.now() - started) / 1_000, true);
          return resolved;
        },
        (error: unknown) => {
          observe(operation, (performance.now() - started) / 1_000, false);
          throw error;
        },
      );
    };
  }
  return wrapper as T;
}

/**
 * The same store, with every call timed: for the server's `engram_store_duration_seconds`
 * histogram. Session calls are named `sessions.<method>`, the others by their part
 * (`memories.*`, `documents.*`, `jobs.*`). Results and errors pass through unchanged.
 */
export function instrumentStore(store: EngramStore, observe: StoreObserver): EngramStore {
  const sessions = timed(store, 'sessions', observe) as EngramStore & Record<string, unknown>;
  for (const part of PARTS) {
    Object.defineProperty(sessions, part, { value: timed(store[part], part, observe), enumerable: true });
  }
  return sessions;
}
