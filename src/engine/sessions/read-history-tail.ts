import type { StoredMessage } from '../../core/schemas/message.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { SessionStore } from '../../stores/session-store.js';

export interface HistoryTail {
  /** Oldest first. */
  messages: StoredMessage[];
  olderNotRead: number;
}

export interface ReadHistoryTailOptions {
  store: SessionStore;
  key: SessionKey;
  /** Messages after `afterSeq`, the ones the tail may come from. */
  totalMessages: number;
  /** Older messages are covered by the session's summary; they are never read. */
  afterSeq: number;
  /** Once the messages read cost more than this, nothing older can fit. */
  maxTokens: number;
  costOf: (message: StoredMessage) => number;
  /** With a turn window: stop after seeing one more user message than the window holds. */
  turnWindow: number | null;
  /** The session's average cost per message, to size the first read. */
  averageCost: number;
}

const MIN_PAGE = 32;
const MAX_PAGE = 2_048;

/**
 * Reads the newest messages, only as far back as could matter: until their cost exceeds
 * `maxTokens` or the turn window is covered. The first page is sized from the average message
 * cost so one read usually suffices; later pages double. Cost follows what fits, not the
 * session's length.
 */
export async function readHistoryTail(options: ReadHistoryTailOptions): Promise<HistoryTail> {
  const { store, key, maxTokens, costOf, turnWindow } = options;
  const estimate = Math.ceil((maxTokens / Math.max(1, options.averageCost)) * 1.2) + 8;
  let pageSize = Math.min(MAX_PAGE, Math.max(MIN_PAGE, estimate));
  const newestFirst: StoredMessage[] = [];
  let tokens = 0;
  let userMessages = 0;
  let beforeSeq: number | undefined;
  while (true) {
    const page = await store.readMessages(key, {
      order: 'newest-first',
      limit: pageSize,
      afterSeq: options.afterSeq,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    for (const message of page) {
      newestFirst.push(message);
      tokens += costOf(message);
      if (message.role === 'user') userMessages++;
      if (tokens > maxTokens || (turnWindow !== null && userMessages > turnWindow)) {
        const olderNotRead = Math.max(0, options.totalMessages - newestFirst.length);
        return { messages: newestFirst.reverse(), olderNotRead };
      }
    }
    if (page.length < pageSize) break;
    beforeSeq = page.at(-1)?.seq;
    pageSize = Math.min(MAX_PAGE, pageSize * 2);
  }
  return { messages: newestFirst.reverse(), olderNotRead: 0 };
}
