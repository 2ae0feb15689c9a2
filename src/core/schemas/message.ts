import { z } from 'zod';

/** Roles a stored message may have. Anything else is rejected at the boundary. */
export const messageRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export type MessageRole = z.infer<typeof messageRoleSchema>;

/** Upper bound on one message's content, so one write cannot exhaust memory (about 1 MiB of text). */
export const MAX_MESSAGE_CHARS = 1_000_000;

/** An OpenAI-style function tool call made by an assistant message. */
export const toolCallSchema = z.object({
  id: z.string().min(1).max(256),
  type: z.literal('function').default('function'),
  function: z.object({
    name: z.string().min(1).max(256),
    arguments: z.string().max(MAX_MESSAGE_CHARS),
  }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** ISO-8601 date-time with an offset (e.g. `2026-01-02T03:04:05.000Z`). */
export const isoDateTimeSchema = z.iso.datetime({ offset: true });

/**
 * A message as a caller writes it. `id` and `createdAt` are filled in when absent.
 * Content must be non-blank, except for an assistant message that carries tool calls. A `tool`
 * message answers the call named by `toolCallId`; without one (AMS messages carry no call id) it
 * is kept as an unlinked tool result, which the provider formats give the model as text.
 */
export const messageInputSchema = z
  .object({
    id: z.string().min(1).max(128).optional(),
    role: messageRoleSchema,
    content: z.string().max(MAX_MESSAGE_CHARS),
    name: z.string().min(1).max(128).optional(),
    toolCalls: z.array(toolCallSchema).min(1).max(128).optional(),
    toolCallId: z.string().min(1).max(256).optional(),
    createdAt: isoDateTimeSchema.optional(),
  })
  .superRefine((message, context) => {
    const blank = message.content.trim().length === 0;
    if (blank && !(message.role === 'assistant' && message.toolCalls)) {
      context.addIssue({ code: 'custom', path: ['content'], message: 'Message content cannot be empty' });
    }
    if (message.toolCalls && message.role !== 'assistant') {
      context.addIssue({
        code: 'custom',
        path: ['toolCalls'],
        message: 'Only assistant messages carry toolCalls',
      });
    }
    if (message.toolCallId && message.role !== 'tool') {
      context.addIssue({
        code: 'custom',
        path: ['toolCallId'],
        message: 'Only tool messages carry toolCallId',
      });
    }
  });
export type MessageInput = z.input<typeof messageInputSchema>;

/**
 * A message as stored. `tokenCount` is the content's token count in `tokenEncoding`, counted once
 * at write time so that assembly never re-tokenizes history. `seq` orders messages in a session.
 */
export interface StoredMessage {
  id: string;
  seq: number;
  role: MessageRole;
  content: string;
  name?: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  createdAt: string;
  tokenCount: number;
  tokenEncoding: string;
}

/** A message ready to be stored: everything but the `seq` the store assigns. */
export type NewMessage = Omit<StoredMessage, 'seq'>;
