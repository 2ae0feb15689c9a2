import { z } from 'zod';
import { NotFoundError, parseWith } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { LlmProvider } from '../../providers/llm/llm-provider.js';
import type { EngramStore } from '../../stores/engram-store.js';
import type { Job } from '../../stores/job-store.js';
import type { AgentRegistry } from '../access/agent-registry.js';
import type { TraceLog } from '../context/trace-log.js';
import type { JobContext, JobRunner } from '../jobs/job-runner.js';
import type { EpisodeLog } from '../long-term/episode-log.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import type { ProcedureLibrary } from '../long-term/procedure-library.js';
import { type SessionRef, toSessionKey } from '../sessions/session-ref.js';
import { commitSessionEnd } from './commit-session-end.js';
import { captureProcedure } from './llm/capture-procedure.js';
import { writeEpisode } from './llm/write-episode.js';
import { endedThrough, readEndMark, type StagedEnd, stageEnd } from './session-end-marks.js';
import type { EpisodeWriter, ProcedureCapturer, ProcedureProposal } from './session-end-writers.js';

/** Job type of ending a session: one episode (and maybe one pending procedure) per end. */
export const END_SESSION_JOB = 'end-session';

/** The newest messages an episode is written from (older ones reach it through the summary). */
const MAX_EPISODE_MESSAGES = 500;

const payloadSchema = z.object({
  namespace: z.string().nullable(),
  userId: z.string().nullable(),
  sessionId: z.string().min(1),
  sessionCreatedAt: z.string(),
  throughSeq: z.number().int().positive(),
  agentId: z.string().min(1).max(256).nullable(),
});
type EndSessionPayload = z.infer<typeof payloadSchema>;

const endOptionsSchema = z.object({ agentId: z.string().min(1).max(256).optional() });

/** What ending a session did: the job that writes its episode, or why there is none. */
export interface SessionEndResult {
  /** The `end-session` job (a repeated end returns the same one); null when nothing was left to end. */
  job: Job | null;
  /** The last message seq the end covers. */
  throughSeq: number;
}

/** `engram.sessions.end`. */
export interface SessionEnding {
  /**
   * Ends the session now: enqueues one durable `end-session` job for its messages so far (never
   * runs it inline). Ending again before new messages arrive returns the same job. `agentId`
   * names the agent whose procedure the capture proposes (default: the agent of the session's
   * latest assembled context). NotFoundError when the session does not exist.
   */
  end(ref: SessionRef, options?: { agentId?: string }): Promise<SessionEndResult>;
}

/** What the end-session job needs. */
export interface SessionEndDependencies {
  store: EngramStore;
  episodes: EpisodeLog;
  procedures: ProcedureLibrary;
  memories: LongTermMemory;
  traces: TraceLog;
  llm: LlmProvider | null;
  /** While false (the LLM's circuit is open), end-session jobs wait unclaimed (docs/jobs.md). */
  llmReady?: () => boolean;
  /** Default: `writeEpisode` (the model, or the extractive episode when `llm` is null). */
  writeEpisode?: EpisodeWriter;
  /** Default: `captureProcedure` (runs only with an LLM). */
  captureProcedure?: ProcedureCapturer;
  clock: () => Date;
  /** Why a step was skipped (no user, no LLM, …). Default: console.info. */
  log?: (message: string) => void;
}

/** Enqueues the end of a session at `throughSeq`; the key makes a repeated end the same job. */
export function enqueueSessionEnd(
  jobs: JobRunner,
  key: SessionKey,
  session: { createdAt: string; lastSeq: number },
  agentId: string | null,
): Promise<Job> {
  const payload: EndSessionPayload = {
    namespace: key.namespace,
    userId: key.userId,
    sessionId: key.sessionId,
    sessionCreatedAt: session.createdAt,
    throughSeq: session.lastSeq,
    agentId,
  };
  const identity = JSON.stringify([key.namespace, key.userId, key.sessionId, session.createdAt]);
  return jobs.enqueue(key.tenantId, END_SESSION_JOB, payload, {
    idempotencyKey: `${END_SESSION_JOB}:${identity}:${session.lastSeq}`,
  });
}

/**
 * Creates `sessions.end` over the store and the job runner. `agents` resolves the agent an end
 * names (NotFoundError for an unknown one), so no procedure is captured for an agent that does not
 * exist, where no route could list, approve or delete it.
 */
export function createSessionEnding(
  store: EngramStore,
  jobs: JobRunner,
  agents: Pick<AgentRegistry, 'resolve'>,
): SessionEnding {
  return {
    async end(ref, options = {}) {
      const key = toSessionKey(ref);
      const { agentId } = parseWith(endOptionsSchema, options, 'end options');
      if (agentId !== undefined) await agents.resolve(key.tenantId, agentId);
      const session = await store.getSession(key);
      if (!session) throw new NotFoundError('Session', key.sessionId);
      if (session.lastSeq === 0) return { job: null, throughSeq: 0 };
      // Already ended through lastSeq: the same key returns that end's job.
      const job = await enqueueSessionEnd(jobs, key, session, agentId ?? null);
      return { job, throughSeq: session.lastSeq };
    },
  };
}

/** Registers the `end-session` handler on the runner. */
export function registerSessionEndHandlers(jobs: JobRunner, dependencies: SessionEndDependencies): void {
  jobs.register(
    END_SESSION_JOB,
    (payload, context) =>
      endSession(
        dependencies,
        context.job.tenantId,
        parseWith(payloadSchema, payload, 'end-session payload'),
        context,
      ),
    dependencies.llmReady ? { isReady: dependencies.llmReady } : {},
  );
}

/**
 * The job: replays an end a dead attempt staged, then reads the messages the end covers, writes
 * the episode text (and a procedure proposal) and stages them in the mark document before writing
 * anything, then stores the episode, the pending procedure and the end mark (commit-session-end.ts).
 * The mark is a compare-and-set: when another end got there first the attempt fails (a retry
 * starts from the new mark).
 */
async function endSession(
  dependencies: SessionEndDependencies,
  tenantId: string,
  payload: EndSessionPayload,
  context: Pick<JobContext, 'signal' | 'confirmLease'>,
): Promise<JsonObject> {
  const { store } = dependencies;
  const { signal } = context;
  const log = dependencies.log ?? ((message: string) => console.info(`engram: ${message}`));
  const committing = { ...dependencies, documents: store.documents, log };
  const key: SessionKey = { tenantId, ...payload };
  const session = await store.getSession(key);
  if (!session || session.createdAt !== payload.sessionCreatedAt) return { skipped: 'session is gone' };
  let stored = await readEndMark(store.documents, key, session.createdAt);
  if (stored.staged) {
    // An attempt died between its writes: its answer is written again (dedup finds what it wrote),
    // not asked of the model anew, whose new wording would make a second episode.
    await context.confirmLease();
    const replayed = await commitSessionEnd(
      committing,
      key,
      session.createdAt,
      stored.staged,
      stored.version,
    );
    if (stored.staged.throughSeq >= payload.throughSeq) return replayed;
    stored = await readEndMark(store.documents, key, session.createdAt);
  }
  const from = endedThrough(stored);
  if (from >= payload.throughSeq) return { skipped: 'already ended', throughSeq: from };

  // Messages the summary covers reach the episode through the summary, if it covers any new ones.
  const summary = session.summarized.throughSeq > from ? session.context : null;
  const messages = (
    await store.readMessages(key, {
      order: 'newest-first',
      afterSeq: Math.max(from, session.summarized.throughSeq),
      beforeSeq: payload.throughSeq + 1,
      limit: MAX_EPISODE_MESSAGES,
    })
  ).reverse();
  const [first] = await store.readMessages(key, {
    order: 'oldest-first',
    afterSeq: from,
    beforeSeq: payload.throughSeq + 1,
    limit: 1,
  });
  if (!first) return { skipped: 'no messages to end', throughSeq: payload.throughSeq };
  // All of them summarized: the last one still dates the episode's end.
  const [newest] =
    messages.length > 0
      ? []
      : await store.readMessages(key, {
          order: 'newest-first',
          beforeSeq: payload.throughSeq + 1,
          limit: 1,
        });
  const last = messages.at(-1) ?? newest ?? first;

  const agentId = payload.agentId ?? (await latestAgent(dependencies.traces, key));
  const episodeText =
    key.userId === null
      ? null
      : await (dependencies.writeEpisode ?? writeEpisode)(dependencies.llm, { messages, summary, signal });
  if (key.userId === null) log(`session ${key.sessionId} has no user: no episode (episodes are per user)`);
  const { proposal, skipped } = await proposeProcedure(dependencies, messages, agentId, signal);
  if (skipped) log(`procedure capture skipped for session ${key.sessionId}: ${skipped}`);
  signal.throwIfAborted();

  const staged: StagedEnd = {
    fromSeq: from + 1,
    throughSeq: payload.throughSeq,
    agentId,
    episode: episodeText && {
      summary: episodeText.summary,
      keyFacts: episodeText.keyFacts,
      startedAt: first.createdAt,
      endedAt: last.createdAt,
    },
    proposal: proposal as JsonObject | null,
    procedureSkipped: skipped,
  };
  // The model may have taken long: a worker that lost the job meanwhile must not write too.
  await context.confirmLease();
  // Nothing to write but the mark: no staging needed to make a retry write the same.
  const version =
    staged.episode || staged.proposal
      ? await stageEnd(store.documents, key, stored, session.createdAt, staged)
      : stored.version;
  return commitSessionEnd(committing, key, session.createdAt, staged, version);
}

/** The capture's proposal, or why there is none (no LLM, no agent, …). */
async function proposeProcedure(
  dependencies: SessionEndDependencies,
  messages: StoredMessage[],
  agentId: string | null,
  signal: AbortSignal,
): Promise<{ proposal: ProcedureProposal | null; skipped: string | null }> {
  const { llm } = dependencies;
  const capture = dependencies.captureProcedure ?? captureProcedure;
  const skip = (reason: string) => ({ proposal: null, skipped: reason });
  if (!llm) return skip('no LLM is configured');
  if (!agentId) return skip('no agent is known for the session');
  if (messages.length === 0) return skip('no unsummarized messages');
  return { proposal: await capture(llm, { messages, agentId, signal }), skipped: null };
}

/** The agent of the session's latest assembled context, if one was traced. */
async function latestAgent(traces: TraceLog, key: SessionKey): Promise<string | null> {
  const { traces: [latest] = [] } = await traces.list(key, { limit: 1 });
  return latest?.agentId ?? null;
}
