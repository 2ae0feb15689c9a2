import type { StoredMessage } from '../core/schemas/message.js';
import type { SessionKey } from '../core/schemas/session.js';
import type { SessionStore } from '../stores/session-store.js';

export interface HistoryTail {
  /** Oldest first. */
  messages: StoredMessage[];
  olderNotRead: number;
}

const PAGE_SIZE = 128;

/**
 * Reads the newest messages, page by page, only as far back as could matter: until their cost
 * exceeds `maxTokens` (nothing older can fit) or, with a turn window, until one more user message
 * than the window is seen. Cost is proportional to what fits, not to the session's length.
 */
export async function readHistoryTail(
  store: SessionStore,
  key: SessionKey,
  totalMessages: number,
  maxTokens: number,
  costOf: (message: StoredMessage) => number,
  turnWindow: number | null,
): Promise<HistoryTail> {
  const newestFirst: StoredMessage[] = [];
  let tokens = 0;
  let userMessages = 0;
  let beforeSeq: number | undefined;
  while (true) {
    const page = await store.readMessages(key, {
      order: 'newest-first',
      limit: PAGE_SIZE,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    for (const message of page) {
      newestFirst.push(message);
      tokens += costOf(message);
      if (message.role === 'user') userMessages++;
      if (tokens > maxTokens || (turnWindow !== null && userMessages > turnWindow)) {
        return {
          messages: newestFirst.reverse(),
          olderNotRead: Math.max(0, totalMessages - newestFirst.length),
        };
      }
    }
    if (page.length < PAGE_SIZE) break;
    beforeSeq = page.at(-1)?.seq;
  }
  return { messages: newestFirst.reverse(), olderNotRead: 0 };
}
