import type { JsonObject } from '../../core/schemas/json.js';
import type { MessageInput, StoredMessage } from '../../core/schemas/message.js';
import type {
  PendingMemory,
  PendingMemoryInput,
  SessionInput,
  SessionState,
} from '../../core/schemas/session.js';
import { newId } from '../../engine/new-id.js';
import { formatAmsDateTime } from './ams-datetime.js';
import { AmsHttpError } from './ams-http-error.js';
import type { ContextUsage } from './fit-context-window.js';
import type { AmsMemoryItem, AmsMessage, AmsWorkingMemoryBody } from './working-memory-schemas.js';

/**
 * An AMS message as engram's message input (engram validates it again and fills id and time).
 * Written as plain literals: an object built from conditional spreads took about 200 bytes more,
 * 20 MB for the 100,000 messages of a large PUT, all of it copied by the garbage collector.
 */
export function toMessageInput(message: AmsMessage): MessageInput {
  const { id, role, content, created_at: createdAt } = message;
  if (createdAt) return id ? { id, role, content, createdAt } : { role, content, createdAt };
  return id ? { id, role, content } : { role, content };
}

/**
 * One message of a PUT body. The empty-content 400 names the message, as AMS does: by its id, or
 * by the id it would have been given (engram gives a message without one an id when it prepares
 * it, so that the route's copy of 100,000 messages does not carry them).
 */
export function toPutMessageInput(message: AmsMessage): MessageInput {
  if (message.content.trim().length === 0) {
    throw new AmsHttpError(400, `Message content cannot be empty (message ID: ${message.id ?? newId()})`);
  }
  return toMessageInput(message);
}

function toPendingMemory(memory: AmsMemoryItem): PendingMemoryInput {
  return {
    ...(memory.id ? { id: memory.id } : {}),
    text: memory.text,
    memoryType: memory.memory_type,
    topics: memory.topics ?? [],
    entities: memory.entities ?? [],
    namespace: memory.namespace ?? null,
    userId: memory.user_id ?? null,
    sessionId: memory.session_id ?? null,
    eventDate: memory.event_date ?? null,
    persistedAt: memory.persisted_at ?? null,
    ...(memory.created_at ? { createdAt: memory.created_at } : {}),
    metadata: (memory.metadata ?? {}) as JsonObject,
  };
}

/**
 * The PUT body as engram's session input, its messages already mapped (`toPutMessageInput`).
 * `tokens`, `last_accessed` and `updated_at` are not kept.
 */
export function toSessionInput(
  body: Omit<AmsWorkingMemoryBody, 'messages'>,
  messages: MessageInput[],
): SessionInput {
  return {
    messages,
    memories: body.memories.map(toPendingMemory),
    data: body.data as JsonObject | null,
    context: body.context,
    ttlSeconds: body.ttl_seconds,
    longTermMemoryStrategy: body.long_term_memory_strategy as SessionInput['longTermMemoryStrategy'],
    ...(body.created_at ? { createdAt: body.created_at } : {}),
  };
}

/** A stored message in AMS form; engram keeps no `persisted_at` or extraction flag for messages. */
export function toAmsMessage(message: StoredMessage) {
  return {
    role: message.role,
    content: message.content,
    id: message.id,
    created_at: formatAmsDateTime(message.createdAt),
    persisted_at: null,
    discrete_memory_extracted: 'f',
  };
}

/** A working-memory item as a full 21-field MemoryRecord; fields engram does not keep get AMS defaults. */
function toAmsMemory(memory: PendingMemory, strategy: SessionState['longTermMemoryStrategy']) {
  const createdAt = formatAmsDateTime(memory.createdAt);
  return {
    id: memory.id,
    text: memory.text,
    session_id: memory.sessionId,
    user_id: memory.userId,
    namespace: memory.namespace,
    last_accessed: createdAt,
    created_at: createdAt,
    updated_at: createdAt,
    pinned: false,
    access_count: 0,
    topics: memory.topics,
    entities: memory.entities,
    memory_hash: null,
    discrete_memory_extracted: 'f',
    memory_type: memory.memoryType,
    persisted_at: memory.persistedAt === null ? null : formatAmsDateTime(memory.persistedAt),
    extracted_from: null,
    event_date: memory.eventDate === null ? null : formatAmsDateTime(memory.eventDate),
    extraction_strategy: strategy.strategy,
    extraction_strategy_config: strategy.config,
    metadata: memory.metadata,
  };
}

/** How to render a session: GET truncates times to whole seconds and shows null data as `{}`. */
export interface ResponseStyle {
  wholeSeconds: boolean;
  nullDataAsEmpty: boolean;
  /** engram's `include_summarized`: each message says whether the running summary covers it. */
  markSummarized?: boolean;
}

/**
 * How the answer's messages are written: as AMS messages, each marked `summarized` (whether the
 * running summary covers it) when the style asks for it.
 */
export function amsMessageOf(
  state: SessionState,
  style: Pick<ResponseStyle, 'markSummarized'>,
): (message: StoredMessage) => ReturnType<typeof toAmsMessage> & { summarized?: boolean } {
  if (!style.markSummarized) return toAmsMessage;
  const throughSeq = state.summarized.throughSeq;
  return (message) => ({ ...toAmsMessage(message), summarized: message.seq <= throughSeq });
}

/** WorkingMemoryResponse (§2.5): every declared field present, `null` where unset. */
export function toWorkingMemoryResponse(
  state: SessionState,
  messages: StoredMessage[],
  usage: ContextUsage | null,
  style: ResponseStyle,
) {
  const time = (iso: string) => formatAmsDateTime(iso, style.wholeSeconds);
  return {
    messages: messages.map(amsMessageOf(state, style)),
    memories: state.memories.map((memory) => toAmsMemory(memory, state.longTermMemoryStrategy)),
    data: state.data ?? (style.nullDataAsEmpty ? {} : null),
    context: state.context,
    user_id: state.userId,
    tokens: state.tokenCount,
    session_id: state.sessionId,
    namespace: state.namespace,
    long_term_memory_strategy: state.longTermMemoryStrategy,
    ttl_seconds: state.ttlSeconds,
    last_accessed: time(state.updatedAt),
    created_at: time(state.createdAt),
    updated_at: time(state.updatedAt),
    context_percentage_total_used: usage?.totalUsed ?? null,
    context_percentage_until_summarization: usage?.untilSummarization ?? null,
  };
}
