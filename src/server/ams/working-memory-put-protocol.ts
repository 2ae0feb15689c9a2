import type { Encoding } from '../../core/tokens/model-registry.js';
import type { EncodedMessages } from '../../engine/sessions/prepare-session-write.js';
import type { SessionWrite } from '../../stores/session-store.js';
import type { ContextUsage } from './fit-context-window.js';

/** A large PUT body for the worker (`working-memory-put-worker.ts`) to read and prepare. */
export interface PutJob {
  id: number;
  /** The body as received, in segments (moved to the worker, and back with a refusal). */
  segments: Uint8Array[];
  contentType: string | undefined;
  /** The engine's encoding and time (`SessionOperations.preparation()`). */
  encoding: Encoding;
  now: number;
  /** The model window the client named, for the answer's usage; null when it named none. */
  window: number | null;
}

/** The worker's answer: the write ready for `putPrepared` and its echo, or the bytes back. */
export type PutJobResult =
  | {
      id: number;
      ok: true;
      namespace: string | null | undefined;
      userId: string | null | undefined;
      /** Some message came without `created_at` (the answer carries a deprecation warning). */
      undated: boolean;
      write: Omit<SessionWrite, 'messages'>;
      messages: EncodedMessages;
      usage: ContextUsage | null;
      /** The answer's `messages` items, serialized (`serializeListItems`). */
      echo: Uint8Array[];
    }
  | {
      id: number;
      /** Anything but a body that reads, validates and prepares without fault: the request thread reads it itself, for the exact error. */
      ok: false;
      segments: Uint8Array[];
    };
