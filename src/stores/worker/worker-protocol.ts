import type { TransferredError } from './transferred-error.js';

/** The drivers a store thread can open, with the options each takes (no functions: they cannot cross). */
export interface WorkerDrivers {
  sqlite: { path: string; vectorExtension?: boolean };
  memory: Record<string, never>;
}
export type WorkerDriverName = keyof WorkerDrivers;

/** How the thread opens one store. */
export interface WorkerStoreStart<Driver extends WorkerDriverName = WorkerDriverName> {
  driver: Driver;
  options: WorkerDrivers[Driver];
  /** True when every call carries the caller's clock reading (`now`), for a caller-supplied clock. */
  forwardedClock: boolean;
}

/** The parts of an EngramStore that hold methods: the session store itself and its three sub-stores. */
export const storeParts = ['sessions', 'memories', 'documents', 'jobs'] as const;
export type StorePart = (typeof storeParts)[number];

/** A store's shape, the answer to `open`: its data properties and method names. */
export interface StoreShape {
  driver: string;
  capabilities: unknown;
  memoryCapabilities: unknown;
  methods: Record<StorePart, string[]>;
}

/** Caller → store thread. `store` numbers the stores one thread holds. */
export type RequestMessage =
  | { type: 'open'; id: number; store: number; start: WorkerStoreStart }
  /** Run `part.method(...args)`; `now` is the caller's clock in ms when forwarded. */
  | {
      type: 'call';
      id: number;
      store: number;
      part: StorePart;
      method: string;
      args: unknown[];
      now?: number;
    };

/** Store thread → caller, for the request numbered `id`. */
export type ReplyMessage =
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: TransferredError };
