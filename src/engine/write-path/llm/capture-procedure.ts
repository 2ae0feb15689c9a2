import { z } from 'zod';
import { parseWith } from '../../../core/errors.js';
import type { StoredMessage } from '../../../core/schemas/message.js';
import { type ProcedureInput, procedureInputSchema } from '../../../core/schemas/procedure.js';
import { completeJson } from '../../../providers/llm/complete-json.js';
import { LlmError } from '../../../providers/llm/llm-error.js';
import type { LlmProvider } from '../../../providers/llm/llm-provider.js';
import { DATA_RULE } from './extraction-prompts.js';
import { dataBlock, renderTranscript } from './render-transcript.js';
import { unsafeTriggerReason } from './safe-trigger.js';

/** What {@link captureProcedure} reads. */
export interface CaptureProcedureInput {
  /** The conversation, oldest first. */
  messages: readonly StoredMessage[];
  /** The agent the procedure is proposed for. */
  agentId: string;
  /** Aborts the model call (the job's signal). */
  signal?: AbortSignal;
}

const MAX_TRIGGERS = 5;
const MAX_EXAMPLES = 5;
const MAX_STEPS = 30;
/** Triggers the prompt asks for are shorter than the schema's limit, leaving room for refusals to be rare. */
const ASKED_TRIGGER_CHARS = 100;

const answerSchema = z.object({
  multi_step_task: z.boolean(),
  procedure: z
    .object({
      name: z.string().trim().min(1).max(200),
      triggers: z.array(z.string()).max(20).default([]),
      examples: z.array(z.string().trim().min(1).max(1_000)).min(1).max(20),
      steps: z.array(z.string().trim().min(1).max(2_000)).max(50),
    })
    .nullish(),
});

const SYSTEM_PROMPT = [
  'You review a finished conversation between a user and an assistant agent and decide whether it',
  'completed a multi-step task that the agent is likely to be asked to do again (for example: deploy a',
  'service, file an expense report, reset a customer password). Chit-chat, single answers, single tool',
  'calls and unfinished or failed tasks are not multi-step tasks.',
  'When it was one, propose a reusable procedure:',
  '- "name": a short imperative name ("Deploy a service to staging");',
  `- "triggers": up to ${MAX_TRIGGERS} case-insensitive JavaScript regular expressions that match how a user`,
  `  asks for this task, each at most ${ASKED_TRIGGER_CHARS} characters, built from literal words with \\b`,
  '  word boundaries (e.g. "\\\\bdeploy\\\\b.*\\\\bstaging\\\\b"), starting with a literal word and with a literal',
  '  word between any two repetitions; no backreferences, no nested or repeated groups;',
  `- "examples": up to ${MAX_EXAMPLES} example user requests for this task, generalized (no personal data);`,
  `- "steps": the steps in order (at most ${MAX_STEPS}), each one imperative sentence, generalized so`,
  '  they apply next time (no one-off values such as ids, names or passwords).',
  'Answer with one JSON object and nothing else:',
  '{"multi_step_task": true, "procedure": {"name": "...", "triggers": ["..."], "examples": ["..."], "steps": ["..."]}}',
  'or, when there was no such task, {"multi_step_task": false, "procedure": null}.',
  DATA_RULE,
].join('\n');

/**
 * Proposes a procedure when the conversation completed a multi-step task: name, triggers, example
 * requests and steps, for the caller to store as pending (a person approves it). Null when the model
 * says there was no multi-step task, or proposes fewer than two steps. Triggers that
 * unsafeTriggerReason refuses (too long, not compiling, backtracking-prone, matching anything) are
 * left out rather than failing the proposal: examples still match it, and a reviewer can add
 * triggers. A malformed answer rejects with the retryable LlmError `llm_output_invalid`; an invalid
 * `agentId` with a ValidationError, before any call.
 */
export async function captureProcedure(
  llm: LlmProvider,
  input: CaptureProcedureInput,
): Promise<ProcedureInput | null> {
  const agentId = parseWith(procedureInputSchema.shape.agentId, input.agentId, 'procedure agentId');
  if (input.messages.length === 0) return null;
  const { value } = await completeJson(
    llm,
    {
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: dataBlock('transcript', renderTranscript(input.messages)) },
      ],
      ...(input.signal ? { signal: input.signal } : {}),
    },
    answerSchema,
  );
  const proposed = value.procedure;
  if (!value.multi_step_task || !proposed || proposed.steps.length < 2) return null;
  const triggers = [...new Set(proposed.triggers.map((trigger) => trigger.trim()))]
    .filter((trigger) => unsafeTriggerReason(trigger) === null)
    .slice(0, MAX_TRIGGERS);
  const procedure = procedureInputSchema.safeParse({
    agentId,
    name: proposed.name,
    triggers,
    examples: [...new Set(proposed.examples)].slice(0, MAX_EXAMPLES),
    steps: proposed.steps.slice(0, MAX_STEPS),
    status: 'pending',
  });
  if (!procedure.success) {
    const problem = procedure.error.issues[0]?.message ?? 'invalid procedure';
    throw new LlmError('llm_output_invalid', `${llm.model} proposed an invalid procedure: ${problem}`, {
      details: { problem },
      cause: procedure.error,
    });
  }
  return procedure.data;
}
