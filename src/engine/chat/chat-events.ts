/**
 * An append-only log of a turn's events that any number of readers iterate from the start. The
 * producer never waits for readers: a reader that stops (or never starts) does not stop the turn.
 */
export interface EventLog<T> extends AsyncIterable<T> {
  push(event: T): void;
  /** No more events: readers finish after the last one. */
  end(): void;
  /** Readers throw `error` after the events pushed before it. */
  fail(error: unknown): void;
}

export function createEventLog<T>(): EventLog<T> {
  const events: T[] = [];
  let state: { ended: false } | { ended: true; failure?: { error: unknown } } = { ended: false };
  let waiting: (() => void)[] = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resolve of woken) resolve();
  };
  return {
    push(event) {
      if (state.ended) return;
      events.push(event);
      wake();
    },
    end() {
      if (state.ended) return;
      state = { ended: true };
      wake();
    },
    fail(error) {
      if (state.ended) return;
      state = { ended: true, failure: { error } };
      wake();
    },
    async *[Symbol.asyncIterator]() {
      for (let next = 0; ; ) {
        if (next < events.length) {
          yield events[next++] as T;
          continue;
        }
        if (state.ended) {
          if (state.failure) throw state.failure.error;
          return;
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
}
