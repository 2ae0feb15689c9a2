import { z } from 'zod';
import { jsonObjectSchema } from '../../core/schemas/json.js';
import { memoryTypeSchema, memoryWriterSchema } from '../../core/schemas/memory-record.js';
import { messageRoleSchema } from '../../core/schemas/message.js';
import { sessionKeySchema } from '../../core/schemas/session.js';
import type { TransferLine } from './transfer-line.js';

// The stored shapes have no input schema of their own: these check what the importer relies on
// (ids, keys, types) and keep every other field as written, so nothing is lost on the way.
const storedMessageSchema = z.looseObject({
  id: z.string().min(1).max(128),
  seq: z.number().int().positive(),
  role: messageRoleSchema,
  content: z.string(),
  createdAt: z.string(),
  tokenCount: z.number().int().nonnegative(),
  tokenEncoding: z.string(),
});

const sessionStateSchema = sessionKeySchema.extend({
  data: jsonObjectSchema.nullable(),
  context: z.string().nullable(),
  memories: z.array(z.looseObject({ id: z.string(), text: z.string() })),
  longTermMemoryStrategy: z.looseObject({ strategy: z.string() }),
  workingSet: z.object({ pinned: z.array(z.string()), removed: z.array(z.string()) }),
  ttlSeconds: z.number().int().positive().nullable(),
  createdAt: z.string(),
  summarized: z.object({ throughSeq: z.number().int().nonnegative() }).loose(),
});

const memoryRecordSchema = z.looseObject({
  id: z.string().min(1).max(128),
  text: z.string().min(1),
  memoryType: memoryTypeSchema,
  supersedes: z.string().nullable(),
  supersededBy: z.string().nullable(),
  createdAt: z.string(),
  validFrom: z.string(),
  memoryHash: z.string(),
  // Format 1 (before memories kept their id across edits) had one version per record.
  version: z.number().int().positive().default(1),
  writtenBy: memoryWriterSchema.default('api'),
});

/** One line of an export file, validated before anything is written. */
export const transferLineSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('engram-export'),
    formatVersion: z.number().int().positive(),
    tenantId: z.string().min(1).max(256),
    exportedAt: z.string(),
    engramVersion: z.string(),
  }),
  z.object({ type: z.literal('agent'), id: z.string().min(1).max(256), value: jsonObjectSchema }),
  z.object({
    type: z.literal('session'),
    session: sessionStateSchema,
    messages: z.array(storedMessageSchema),
    // Files written before end marks travelled have none: the session was never ended, or is
    // ended again after the restore.
    ended: z
      .object({
        sessionCreatedAt: z.string(),
        throughSeq: z.number().int().nonnegative(),
        episodeId: z.string().nullable(),
        procedureId: z.string().nullable(),
        endedAt: z.string(),
      })
      .optional(),
  }),
  z.object({
    type: z.literal('memory'),
    kind: z.enum(['memory', 'knowledge', 'procedure', 'episode']),
    memory: memoryRecordSchema,
  }),
]) as unknown as z.ZodType<TransferLine>;
