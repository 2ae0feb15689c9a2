/**
 * engram: working memory for LLM agents. Start with `createEngram()`.
 * @packageDocumentation
 */
export {
  type AssembledContext,
  assembleContext,
  countContextTokens,
} from './core/assembly/assemble-context.js';
export type { ContextMessage } from './core/assembly/context-message.js';
export type {
  ContextTrace,
  ItemReason,
  SectionName,
  SectionTrace,
  TraceItem,
  TraceScoreComponents,
} from './core/assembly/context-trace.js';
export type {
  MemoryItem,
  MemorySource,
  RetrievalRequest,
  RetrievalSection,
  SourceReport,
} from './core/assembly/memory-source.js';
export { type AnthropicContext, toAnthropicMessages } from './core/assembly/to-anthropic-messages.js';
export { type OpenAIMessage, toOpenAIMessages } from './core/assembly/to-openai-messages.js';
export * from './core/errors.js';
export { UnsupportedPatternError } from './core/patterns/linear-pattern.js';
export type { WorkingSet, WorkingSetItem, WorkingSetOptions } from './core/ranking/rank-working-set.js';
export type {
  Agent,
  AgentInput,
  MemoryConfig,
  MemoryConfigInput,
  PruningStrategy,
} from './core/schemas/agent.js';
export type { JsonObject, JsonValue } from './core/schemas/json.js';
export type {
  MemoryFilterInput,
  MemoryRecord,
  MemoryRecordEdit,
  MemoryRecordInput,
  MemoryType,
  MemoryVersion,
  MemoryWriter,
} from './core/schemas/memory-record.js';
export type { MessageInput, MessageRole, StoredMessage, ToolCall } from './core/schemas/message.js';
export type { Procedure, ProcedureEdit, ProcedureInput, ProcedureStatus } from './core/schemas/procedure.js';
export type { SessionInput, SessionKey, SessionState, SessionSummary } from './core/schemas/session.js';
export { type ModelInfo, resolveModel } from './core/tokens/model-registry.js';
// assembleContext and countContextTokens take a counter: this is how one is made.
export { loadTokenCounter, type TokenCounter } from './core/tokens/token-counter.js';
export type {
  AgentCreateInput,
  AgentEdit,
  AgentRegistry,
  StoredAgent,
} from './engine/access/agent-registry.js';
export type { ApiKey, ApiKeys, CreateApiKeyInput } from './engine/access/api-keys.js';
export type { ChatEvent, ChatResult, ChatTurn, ChatTurnRequest } from './engine/chat/chat-turn.js';
export type { StoredTrace, TraceLog, TraceRecord } from './engine/context/trace-log.js';
export type {
  EnqueueOptions,
  JobContext,
  JobHandler,
  JobRunner,
  JobRunnerOptions,
} from './engine/jobs/job-runner.js';
export type { TaskProgressLog } from './engine/jobs/task-progress.js';
export type { Episode, EpisodeInput, EpisodeLog } from './engine/long-term/episode-log.js';
export type {
  DocumentInput,
  IngestOptions,
  IngestProgress,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeHit,
} from './engine/long-term/knowledge-base.js';
export { MAX_DOCUMENT_CHARS } from './engine/long-term/knowledge-base.js';
export {
  BACKGROUND_DOCUMENT_CHARS,
  INGEST_DOCUMENT_JOB,
  type KnowledgeService,
} from './engine/long-term/knowledge-ingest-job.js';
export type {
  CreateOptions,
  EditOptions,
  LongTermMemory,
  WorkingSetRequest,
} from './engine/long-term/long-term-memory.js';
export { OwnedMemoryError } from './engine/long-term/memory-owner.js';
export {
  type CreatedProcedure,
  type ProcedureLibrary,
  ProcedureLimitError,
  type ProcedureMatch,
  type ProcedureWriteOptions,
} from './engine/long-term/procedure-library.js';
export type { SummaryViews } from './engine/long-term/summary-views.js';
export type {
  Session,
  SessionOperations,
  SessionPatchInput,
  WorkingSetChanges,
} from './engine/sessions/session-operations.js';
export type { SessionRef } from './engine/sessions/session-ref.js';
export type { WritePath } from './engine/write-path/create-write-path.js';
export type { SessionEnding, SessionEndResult } from './engine/write-path/session-end.js';
export type {
  MemoryExtractionRequest,
  MemoryExtractor,
} from './engine/write-path/session-memory-extraction.js';
export type { WritePathSettingsInput } from './engine/write-path/write-path-settings.js';
export {
  type AssembleRequest,
  type AssembleResult,
  type ContextFormat,
  createEngram,
  type Engram,
  type EngramOptions,
  type FormattedContext,
} from './engram.js';
export {
  type EmbeddingCacheOptions,
  withEmbeddingCache,
} from './providers/embeddings/cached-embedding-provider.js';
export type { EmbeddingProvider, EmbedOptions } from './providers/embeddings/embedding-provider.js';
export {
  createOpenAIEmbeddingProvider,
  type OpenAIEmbeddingProviderOptions,
} from './providers/embeddings/openai-embedding-provider.js';
export {
  createStaticEmbeddingProvider,
  type StaticEmbeddingProviderOptions,
} from './providers/embeddings/static-embedding-provider.js';
export type { CircuitBreakerOptions } from './providers/llm/circuit-breaker.js';
export { LlmError, type LlmErrorCode } from './providers/llm/llm-error.js';
export type {
  ChatChunk,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatUsage,
  LlmProvider,
} from './providers/llm/llm-provider.js';
export {
  createOpenAIChatProvider,
  type OpenAIChatProviderOptions,
} from './providers/llm/openai-chat-provider.js';
export type { SearchHit, SearchRequest, SearchResult } from './retrieval/hybrid-search.js';
export { createServer, type EngramServer, type ServerOptions } from './server/create-server.js';
export {
  resolveServerConfig,
  type ServerConfig,
  type ServerConfigInput,
  type ServerFlags,
} from './server/server-config.js';
export { createServerMetrics, type ServerMetrics } from './server/server-metrics.js';
export type { EngramStore } from './stores/engram-store.js';
export { instrumentStore, type StoreObserver } from './stores/instrument-store.js';
export { type Job, JobLeaseLostError, type JobStatus } from './stores/job-store.js';
export { createMemoryStore } from './stores/memory/memory-store.js';
export type {
  HistoryRange,
  InsertOptions,
  InsertResult,
  MemoryHistory,
  MemoryRecordStore,
  MemoryUpdate,
  NewMemoryRecord,
  UpdateOptions,
} from './stores/memory-record-store.js';
export {
  createPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
} from './stores/postgres/postgres-store.js';
export type { SessionStore, StoreCapabilities } from './stores/session-store.js';
export { createSqliteStore, type SqliteStoreOptions } from './stores/sqlite/sqlite-store.js';
export { createStoreThread, type StoreThread } from './stores/worker/store-thread.js';
export { createWorkerStore, type WorkerStoreOptions } from './stores/worker/worker-store.js';
