import type { MessageRole, ToolCall } from '../schemas/message.js';
import type { SectionName } from './context-trace.js';

/** A message of an assembled context, provider-neutral; formatters turn it into API shapes. */
export interface ContextMessage {
  role: MessageRole;
  content: string;
  section: SectionName;
  /** The stored message id, for history messages. */
  id?: string;
  name?: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
}
