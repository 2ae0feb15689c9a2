import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import type { JsonObject } from '../core/schemas/json.js';
import { MAX_TTL_SECONDS } from '../core/schemas/session.js';
import { PAGE_TEXT_CHARS, takeWithinChars } from '../core/take-within-chars.js';
import { type SessionRef, toSessionKey } from '../engine/sessions/session-ref.js';
import { findUniqueSession } from '../server/ams/find-unique-session.js';
import {
  toAmsMessage,
  toMessageInput,
  toWorkingMemoryResponse,
} from '../server/ams/working-memory-mapper.js';
import { toSessionStateBody } from '../server/extensions/session-state-body.js';
import { dateTimeArgument } from './ams-filter-arguments.js';
import { defineTool, type McpContext } from './define-tool.js';

/** About the JSON of a message's fields other than its content (role, id, created_at, …). */
const MESSAGE_FIELDS_CHARS = 140;

const sessionArguments = {
  session_id: z.string().min(1).max(256).describe('The session (conversation) id'),
  user_id: z.string().max(256).nullish().describe('The user the session belongs to, if any'),
  namespace: z.string().max(256).nullish().describe('The namespace of the session, if any'),
};

const messageArgument = z.object({
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.string().min(1),
  id: z.string().min(1).max(128).optional().describe('Optional; a ULID is generated when absent'),
  created_at: dateTimeArgument().optional(),
});

/**
 * The session the arguments name: the exact (namespace, user, session) key when it exists, else
 * the one session with this id that matches the namespace and user given (as REST GET does), else
 * the exact key (a write then creates it).
 */
export async function resolveSession(
  context: McpContext,
  args: { session_id: string; user_id?: string | null | undefined; namespace?: string | null | undefined },
): Promise<{ ref: SessionRef; exists: boolean }> {
  const ref = {
    tenantId: context.tenantId,
    sessionId: args.session_id,
    userId: args.user_id ?? null,
    namespace: args.namespace ?? null,
  };
  if (await context.engram.store.getSession(toSessionKey(ref))) {
    return { ref, exists: true };
  }
  const unique = await findUniqueSession(context.engram, ref);
  return unique ? { ref: unique, exists: true } : { ref, exists: false };
}

/** get_working_memory, append_working_memory, set_working_memory_data. */
export function registerWorkingMemoryTools(server: McpServer, context: McpContext): void {
  const { engram } = context;

  defineTool(
    server,
    context,
    'get_working_memory',
    {
      description:
        'Get the working memory of a session: its messages (oldest first), context summary, data and ' +
        'pending memories. Like GET /v1/working-memory/{session_id}, but at most the newest ' +
        `${PAGE_TEXT_CHARS.toLocaleString('en-US')} characters of messages (older_messages_omitted counts ` +
        'the rest, which stay stored). An unknown session is a not_found error.',
      inputSchema: {
        ...sessionArguments,
        recent_messages_limit: z
          .number()
          .int()
          .min(1)
          .max(10_000)
          .optional()
          .describe('Only the most recent N messages'),
      },
    },
    async (args) => {
      const { ref, exists } = await resolveSession(context, args);
      const limit = args.recent_messages_limit;
      const session = exists
        ? await engram.sessions.get(ref, limit === undefined ? {} : { recentMessagesLimit: limit })
        : null;
      if (!session) throw new NotFoundError('Session', args.session_id);
      // The SDK serializes a result in one step, twice (text and structured content): the newest
      // messages within PAGE_TEXT_CHARS, their fields counted, as a session whose summary lags
      // could hold 100,000.
      const newest = takeWithinChars(
        session.messages.toReversed(),
        (message) => message.content.length + MESSAGE_FIELDS_CHARS,
        PAGE_TEXT_CHARS,
      );
      const response = toWorkingMemoryResponse(session, newest.reverse(), null, {
        wholeSeconds: true,
        nullDataAsEmpty: true,
      });
      return { ...response, older_messages_omitted: session.messages.length - newest.length };
    },
  );

  defineTool(
    server,
    context,
    'append_working_memory',
    {
      description:
        'Append messages to a session, creating it if needed. Existing messages, data and memories are ' +
        'kept: this never replaces the session. Answers the session (without messages) and the stored ' +
        `messages, at most ${PAGE_TEXT_CHARS.toLocaleString('en-US')} characters of them (messages_omitted ` +
        'counts the rest, stored too: get_working_memory reads them).',
      inputSchema: {
        ...sessionArguments,
        messages: z.array(messageArgument).min(1).max(1_000),
        ttl_seconds: z
          .number()
          .int()
          .min(1)
          .max(MAX_TTL_SECONDS)
          .nullish()
          .describe(
            'For a session this append creates: expire it this many seconds after its last write ' +
              '(null = never). An existing session keeps its own TTL.',
          ),
      },
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    async (args) => {
      const { ref } = await resolveSession(context, args);
      const { session, messages } = await engram.sessions.append(
        ref,
        args.messages.map((message) =>
          toMessageInput({ ...message, created_at: message.created_at ?? null }),
        ),
        args.ttl_seconds === undefined ? {} : { ttlSeconds: args.ttl_seconds },
      );
      // Bounded as get_working_memory's answer: the SDK serializes a result twice (text and structured
      // content), so echoing a 6 MB append answered 12 MB, past the 10 MiB an SDK stdio client reads
      // in one line (it then closes the session). The caller sent the contents; ids are what it lacks.
      const shown = takeWithinChars(
        messages,
        (message) => message.content.length + MESSAGE_FIELDS_CHARS,
        PAGE_TEXT_CHARS,
      );
      return {
        session: toSessionStateBody(session),
        messages: shown.map(toAmsMessage),
        messages_omitted: messages.length - shown.length,
      };
    },
  );

  defineTool(
    server,
    context,
    'set_working_memory_data',
    {
      description:
        "Merge JSON into a session's `data` (RFC 7386 merge patch: a key set to null is removed, objects " +
        'merge, anything else replaces). Creates the session if needed; messages are untouched.',
      inputSchema: {
        ...sessionArguments,
        data: z.record(z.string(), z.unknown()).describe('The merge patch, a JSON object'),
      },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    async (args) => {
      const { ref, exists } = await resolveSession(context, args);
      const patch = { data: args.data as JsonObject };
      if (!exists) await engram.sessions.append(ref, []);
      try {
        return toSessionStateBody(await engram.sessions.patch(ref, patch));
      } catch (error) {
        // Deleted (or expired) between the look-up and the patch: create it and patch once more.
        if (!(error instanceof NotFoundError)) throw error;
        await engram.sessions.append(ref, []);
        return toSessionStateBody(await engram.sessions.patch(ref, patch));
      }
    },
  );
}
