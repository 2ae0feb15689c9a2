/** Options of {@link WriteBehind}. */
export interface WriteBehindOptions<Item> {
  /** Writes one batch (at most `batchSize` items, oldest first). A failure is reported; the batch is dropped. */
  write: (batch: Item[]) => Promise<void>;
  onError: (error: unknown) => void;
  /** Items waiting at most; past it new items are dropped and counted (`dropped`). Default 10,000. */
  capacity?: number;
  /** Items per write. Default 500. */
  batchSize?: number;
  /** Longest an item waits before its batch is written, in milliseconds. Default 1,000. */
  delayMs?: number;
}

/**
 * A bounded queue of writes done off the request path, in batches: a request only pushes (no I/O,
 * no fsync), and a timer (or a full batch) writes what is queued in one call. For diagnostics
 * and statistics that may be lost in a crash (at most `delayMs` of them) but must never slow a
 * turn; `flush` and `close` write everything queued, so a clean shutdown loses nothing.
 */
export class WriteBehind<Item> {
  private queue: Item[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The flush under way (flushes run one at a time, in order). */
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private droppedCount = 0;
  private readonly capacity: number;
  private readonly batchSize: number;
  private readonly delayMs: number;

  constructor(private readonly options: WriteBehindOptions<Item>) {
    this.capacity = options.capacity ?? 10_000;
    this.batchSize = options.batchSize ?? 500;
    this.delayMs = options.delayMs ?? 1_000;
  }

  /** Items waiting to be written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Items refused because the queue was full (or closed). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queues an item; false when it was dropped (queue full or closed). Never waits. */
  push(item: Item): boolean {
    if (this.closed || this.queue.length >= this.capacity) {
      this.droppedCount += 1;
      return false;
    }
    this.queue.push(item);
    if (this.queue.length >= this.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
    return true;
  }

  /** Writes everything queued so far; resolves when it is written (failures go to `onError`). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.running = this.running.then(async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.batchSize);
        try {
          await this.options.write(batch);
        } catch (error) {
          this.options.onError(error);
        }
      }
    });
    return this.running;
  }

  /** Writes what is queued and refuses further items. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
