/**
 * Request and response types of the HTTP API, derived from the zod schemas the server validates
 * and documents with (`import type`: the client carries none of the server's code). Bodies are the
 * schemas' input (defaults optional), answers their output, query strings their output types with
 * the input's optionality (the server coerces strings).
 */
import type { z } from 'zod';
import type {
  ackSchema,
  amsRecordSchema,
  compactQuerySchema,
  createMemoriesBodySchema,
  deleteQuerySchema,
  editBodySchema,
  forgetBodySchema,
  forgetQuerySchema,
  forgetResponseSchema,
  historyQuerySchema,
  memoryHistorySchema,
  optimizeQuerySchema,
  searchBodySchema,
  searchResponseSchema,
} from '../server/ams/long-term-memory-schemas.js';
import type {
  memoryPromptBodySchema,
  memoryPromptResponseSchema,
} from '../server/ams/memory-prompt-schemas.js';
import type {
  createSummaryViewBodySchema,
  partitionResultSchema,
  partitionsQuerySchema,
  runPartitionBodySchema,
  runViewBodySchema,
  summaryViewSchema,
} from '../server/ams/summary-view-schemas.js';
import type { amsTaskSchema } from '../server/ams/task-routes.js';
import type {
  sessionListResponseSchema,
  statusOkResponseSchema,
  workingMemoryResponseSchema,
} from '../server/ams/working-memory-response-schemas.js';
import type {
  amsWorkingMemoryBodySchema,
  getWorkingMemoryQuerySchema,
  listSessionsQuerySchema,
  modelQuerySchema,
  sessionScopeQuerySchema,
} from '../server/ams/working-memory-schemas.js';
import type {
  agentResponseSchema,
  createAgentBodySchema,
  listAgentsQuerySchema,
  listAgentsResponseSchema,
  updateAgentBodySchema,
} from '../server/extensions/agent-schemas.js';
import type { chatBodySchema, toDoneEvent } from '../server/extensions/chat-routes.js';
import type { contextBodySchema, contextResponseSchema } from '../server/extensions/context-routes.js';
import type { tracesQuerySchema } from '../server/extensions/inspector-routes.js';
import type { jobListResponseSchema, jobsQuerySchema } from '../server/extensions/job-routes.js';
import type {
  acceptedDocumentBodySchema,
  chunkListResponseSchema,
  chunksQuerySchema,
  knowledgeDocumentBodySchema,
  uploadDocumentBodySchema,
} from '../server/extensions/knowledge-routes.js';
import type {
  createProcedureBodySchema,
  listProceduresQuerySchema,
  procedureBodySchema,
  updateProcedureBodySchema,
} from '../server/extensions/procedure-schemas.js';
import type {
  sessionEndBodySchema,
  sessionEndResponseSchema,
} from '../server/extensions/session-end-routes.js';
import type {
  appendMessagesResponseSchema,
  sessionStateResponseSchema,
} from '../server/extensions/session-extension-response-schemas.js';
import type {
  appendMessagesBodySchema,
  sessionPatchBodySchema,
} from '../server/extensions/session-extension-schemas.js';
import type {
  sessionListQuerySchema,
  sessionSummaryListResponseSchema,
} from '../server/extensions/session-list-routes.js';
import type { traceRecordBodySchema } from '../server/extensions/trace-body.js';
import type { whoamiBodySchema } from '../server/extensions/whoami-routes.js';
import type {
  workingSetChangesBodySchema,
  workingSetCurationSchema,
  workingSetQuerySchema,
  workingSetResponseSchema,
} from '../server/extensions/working-set-routes.js';
import type { engramErrorSchema } from '../server/openapi/error-body-schemas.js';

/** A query string's parameters: the server's parsed types, optional where the server defaults them. */
export type QueryOf<S extends z.ZodType> = {
  [K in keyof z.input<S>]: unknown extends z.input<S>[K]
    ? (K extends keyof z.output<S> ? z.output<S>[K] : never) | undefined
    : z.input<S>[K];
};
type In<S extends z.ZodType> = z.input<S>;
type Out<S extends z.ZodType> = z.output<S>;

// Working memory (AMS) and engram's session extensions.
export type SessionScope = QueryOf<typeof sessionScopeQuerySchema>;
export type ListSessionsQuery = QueryOf<typeof listSessionsQuerySchema>;
export type SessionList = Out<typeof sessionListResponseSchema>;
export type GetWorkingMemoryQuery = QueryOf<typeof getWorkingMemoryQuerySchema>;
export type ModelQuery = QueryOf<typeof modelQuerySchema>;
export type WorkingMemoryBody = In<typeof amsWorkingMemoryBodySchema>;
export type WorkingMemory = Out<typeof workingMemoryResponseSchema>;
export type StatusOk = Out<typeof statusOkResponseSchema>;
export type AppendMessagesBody = In<typeof appendMessagesBodySchema>;
export type AppendMessagesResult = Out<typeof appendMessagesResponseSchema>;
export type SessionPatchBody = In<typeof sessionPatchBodySchema>;
export type SessionState = Out<typeof sessionStateResponseSchema>;
export type SessionEndBody = In<typeof sessionEndBodySchema>;
export type SessionEndResult = Out<typeof sessionEndResponseSchema>;
export type WorkingSetQuery = QueryOf<typeof workingSetQuerySchema>;
export type WorkingSet = Out<typeof workingSetResponseSchema>;
export type WorkingSetChanges = In<typeof workingSetChangesBodySchema>;
export type WorkingSetCuration = Out<typeof workingSetCurationSchema>;
export type SessionSummaryListQuery = QueryOf<typeof sessionListQuerySchema>;
/** `GET /v1/sessions`: sessions with their namespace, user, last update and size. */
export type SessionSummaryList = Out<typeof sessionSummaryListResponseSchema>;

// Long-term memory and the memory prompt (AMS).
export type CreateMemoriesBody = In<typeof createMemoriesBodySchema>;
export type Ack = Out<typeof ackSchema>;
export type SearchBody = In<typeof searchBodySchema>;
export type SearchOptions = QueryOf<typeof optimizeQuerySchema>;
export type SearchResult = Out<typeof searchResponseSchema>;
export type MemoryRecord = Out<typeof amsRecordSchema>;
export type EditMemoryBody = In<typeof editBodySchema>;
export type MemoryHistoryQuery = QueryOf<typeof historyQuerySchema>;
/** A memory's stable id and its versions, newest first. */
export type MemoryHistory = Out<typeof memoryHistorySchema>;
export type DeleteMemoriesQuery = QueryOf<typeof deleteQuerySchema>;
export type CompactQuery = QueryOf<typeof compactQuerySchema>;
export type ForgetQuery = QueryOf<typeof forgetQuerySchema>;
export type ForgetBody = In<typeof forgetBodySchema>;
export type ForgetResult = Out<typeof forgetResponseSchema>;
export type MemoryPromptBody = In<typeof memoryPromptBodySchema>;
export type MemoryPrompt = Out<typeof memoryPromptResponseSchema>;

// Tasks and summary views (AMS).
export type Task = Out<typeof amsTaskSchema>;
export type CreateSummaryViewBody = In<typeof createSummaryViewBodySchema>;
export type SummaryView = Out<typeof summaryViewSchema>;
export type RunPartitionBody = In<typeof runPartitionBodySchema>;
export type PartitionResult = Out<typeof partitionResultSchema>;
export type PartitionsQuery = QueryOf<typeof partitionsQuerySchema>;
export type RunViewBody = In<typeof runViewBodySchema>;

// Agents, knowledge, procedures, context, chat, inspector (engram's extensions).
export type ListAgentsQuery = QueryOf<typeof listAgentsQuerySchema>;
export type AgentList = Out<typeof listAgentsResponseSchema>;
export type CreateAgentBody = In<typeof createAgentBodySchema>;
export type UpdateAgentBody = In<typeof updateAgentBodySchema>;
export type Agent = Out<typeof agentResponseSchema>;
export type UploadDocumentBody = In<typeof uploadDocumentBodySchema>;
export type KnowledgeDocument = Out<typeof knowledgeDocumentBodySchema>;
/** 202: a document over 100,000 characters, ingested by a background task (`tasks.get(task_id)`). */
export type AcceptedKnowledgeDocument = Out<typeof acceptedDocumentBodySchema>;
/** An upload's answer: the stored document (201), or the task ingesting it (202, with `task_id`). */
export type KnowledgeUpload = KnowledgeDocument | AcceptedKnowledgeDocument;
export type KnowledgeChunksQuery = QueryOf<typeof chunksQuerySchema>;
export type KnowledgeChunkList = Out<typeof chunkListResponseSchema>;
export type CreateProcedureBody = In<typeof createProcedureBodySchema>;
export type UpdateProcedureBody = In<typeof updateProcedureBodySchema>;
export type ListProceduresQuery = QueryOf<typeof listProceduresQuerySchema>;
export type Procedure = Out<typeof procedureBodySchema>;
export type ContextBody = In<typeof contextBodySchema>;
export type ContextResult = Out<typeof contextResponseSchema>;
export type ChatBody = In<typeof chatBodySchema>;
export type ChatDone = ReturnType<typeof toDoneEvent>;
export type TracesQuery = QueryOf<typeof tracesQuerySchema>;
export type TraceRecord = Out<typeof traceRecordBodySchema>;
export type JobsQuery = QueryOf<typeof jobsQuerySchema>;
/** `GET /v1/jobs`: background jobs, newest first, and their true count. */
export type JobList = Out<typeof jobListResponseSchema>;
/** `GET /v1/whoami`: the caller's tenant, role and permissions. */
export type Whoami = Out<typeof whoamiBodySchema>;

/** engram's error body `{"error": {code, category, message, details?}}`. */
export type EngramErrorBody = Out<typeof engramErrorSchema>;

/** One server-sent event of `POST /v1/sessions/{id}/chat`. */
export type ChatEvent =
  | { type: 'delta'; text: string }
  | { type: 'done'; data: ChatDone }
  | { type: 'error'; error: EngramErrorBody['error'] };

/** The server's health (`GET /v1/health`) and readiness (`GET /ready`). */
export interface Health {
  now: number;
}
