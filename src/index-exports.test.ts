import { describe, expect, it } from 'vitest';
import * as engram from './index.js';

/** Types an application names when it writes options, handlers or custom parts (audited). */
type Named = [
  engram.CircuitBreakerOptions,
  engram.InsertResult,
  engram.Job,
  engram.JobRunnerOptions,
  engram.JobStatus,
  engram.KnowledgeHit,
  engram.MemoryExtractionRequest,
  engram.MemoryExtractor,
  engram.ProcedureEdit,
  engram.SessionEndResult,
  engram.SessionEnding,
  engram.SqliteStoreOptions,
  engram.SummaryViews,
  engram.TokenCounter,
  engram.TraceScoreComponents,
  engram.WorkingSetChanges,
  engram.WritePath,
  engram.WritePathSettingsInput,
];

describe("the package's exports", () => {
  it('name every type an application writes against (a missing one fails the typecheck)', () => {
    const names: Named | null = null;
    expect(names).toBeNull();
  });

  it('include the error classes a caller tells apart, and a token counter for assembleContext', async () => {
    for (const name of [
      'UnsupportedPatternError',
      'ProcedureLimitError',
      'OwnedMemoryError',
      'JobLeaseLostError',
    ]) {
      expect(typeof (engram as Record<string, unknown>)[name], name).toBe('function');
    }
    const counter = await engram.loadTokenCounter('o200k_base');
    expect(counter.count('hello world')).toBe(2);
  });
});
