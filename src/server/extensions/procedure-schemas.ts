import { z } from 'zod';
import { MAX_TRIGGER_CHARS, type Procedure, procedureStatusSchema } from '../../core/schemas/procedure.js';
import { agentIdField } from './agent-schemas.js';

const trigger = z.string().min(1).max(MAX_TRIGGER_CHARS);
const fields = {
  name: z.string().trim().min(1).max(200),
  /** Regular expressions (case-insensitive) tried first against the user's message. */
  triggers: z.array(trigger).max(20),
  /** Example phrasings, matched by embedding similarity when no trigger matches. */
  examples: z.array(z.string().trim().min(1).max(1_000)).max(20),
  steps: z.array(z.string().trim().min(1).max(2_000)).min(1).max(50),
};

/** A proposal: always stored as `pending`; only approve (admin) makes it part of contexts. */
export const createProcedureBodySchema = z.strictObject({
  name: fields.name,
  triggers: fields.triggers.optional(),
  examples: fields.examples.optional(),
  steps: fields.steps,
});

/**
 * Changes become a new version under the same id; the status changes only by approve/reject, but
 * a content change by a caller who may not approve (not admin) returns a decided procedure to
 * pending.
 */
export const updateProcedureBodySchema = z.strictObject({
  name: fields.name.optional(),
  triggers: fields.triggers.optional(),
  examples: fields.examples.optional(),
  steps: fields.steps.optional(),
});

export const procedurePathSchema = z.object({
  agent_id: agentIdField,
  procedure_id: z.string().min(1).max(128),
});
export const listProceduresQuerySchema = z.object({ status: procedureStatusSchema.optional() });

export const procedureBodySchema = z.object({
  id: z.string(),
  agent_id: z.string(),
  name: z.string(),
  triggers: z.array(z.string()),
  examples: z.array(z.string()),
  steps: z.array(z.string()),
  status: procedureStatusSchema,
  version: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const toProcedureBody = (procedure: Procedure): z.output<typeof procedureBodySchema> => ({
  id: procedure.id,
  agent_id: procedure.agentId,
  name: procedure.name,
  triggers: procedure.triggers,
  examples: procedure.examples,
  steps: procedure.steps,
  status: procedure.status,
  version: procedure.version,
  created_at: procedure.createdAt,
  updated_at: procedure.updatedAt,
});
