import { z } from 'zod';

/** Settings of the background write path (summaries, promotion, extraction), with their defaults. */
export const writePathSettingsSchema = z.strictObject({
  /** Summarize once the unsummarized messages pass this share of the context window (AMS: 0.7). */
  summaryThreshold: z.number().gt(0).max(1).default(0.7),
  /** Share of the context window kept verbatim after a summary. */
  summaryKeepRecent: z.number().gt(0).max(1).default(0.3),
  /** Context window (tokens) the summary policy is sized for. Default: the engram `model`'s window. */
  contextWindow: z.number().int().min(256).max(100_000_000).optional(),
  /** How long extraction waits after a write, so one job covers a burst of writes. Default 30 s. */
  extractionDebounceMs: z.number().int().min(0).max(86_400_000).default(30_000),
  /** Messages sent to the model per extraction call. */
  extractionBatchMessages: z.number().int().min(1).max(1_000).default(50),
  /**
   * Index every user, assistant and system message into long-term memory as a `message` record (a
   * background job), and rebuild an expired session from them on read. Off by default (AMS too).
   */
  indexMessages: z.boolean().default(false),
  /**
   * Days finished jobs, extraction cursors and session end marks are kept (0: forever). A cursor or
   * mark whose session still exists is kept regardless (retention-sweeper.ts). Default 30.
   */
  retentionDays: z.number().min(0).max(36_500).default(30),
  /** How often writes whose jobs could not be enqueued are tried again (0: never). Default 30 s. */
  catchUpIntervalMs: z.number().int().min(0).max(86_400_000).default(30_000),
});
export type WritePathSettings = z.output<typeof writePathSettingsSchema>;
export type WritePathSettingsInput = z.input<typeof writePathSettingsSchema>;
