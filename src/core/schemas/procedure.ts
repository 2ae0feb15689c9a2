import { z } from 'zod';

/** Longest trigger pattern accepted. */
export const MAX_TRIGGER_CHARS = 300;

/**
 * A trigger's shape; whether RE2 accepts it is checked by the procedure library
 * (compileLinearPattern), which answers 422 `unsupported_pattern` naming the construct.
 */
const triggerSchema = z.string().min(1).max(MAX_TRIGGER_CHARS);

export const procedureStatusSchema = z.enum(['pending', 'approved', 'rejected']);
export type ProcedureStatus = z.infer<typeof procedureStatusSchema>;

/** A procedure as a caller (or the capture job) proposes it. New procedures start pending. */
export const procedureInputSchema = z.object({
  agentId: z.string().min(1).max(256),
  name: z.string().trim().min(1).max(200),
  /** Regular expressions (case-insensitive, RE2 syntax: linear time) tried first against the user's message. */
  triggers: z.array(triggerSchema).max(20).default([]),
  /** Example phrasings, matched by embedding similarity when no trigger matches. */
  examples: z.array(z.string().trim().min(1).max(1_000)).max(20).default([]),
  steps: z.array(z.string().trim().min(1).max(2_000)).min(1).max(50),
  status: procedureStatusSchema.default('pending'),
});
export type ProcedureInput = z.input<typeof procedureInputSchema>;

export const procedureEditSchema = procedureInputSchema.omit({ agentId: true }).partial().strict();
export type ProcedureEdit = z.input<typeof procedureEditSchema>;

/** A stored procedure (one version of it). */
export interface Procedure {
  id: string;
  agentId: string;
  name: string;
  triggers: string[];
  examples: string[];
  steps: string[];
  status: ProcedureStatus;
  version: number;
  createdAt: string;
  updatedAt: string;
}
