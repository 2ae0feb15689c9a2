/** What became of one item of a long command. */
export interface ItemOutcome {
  status: 'created' | 'deduplicated' | 'skipped' | 'failed';
  item: string;
  reason?: string;
}

/** Counts of a long command's outcomes, with the reasons of skips and failures. */
export interface RunSummary {
  created: number;
  deduplicated: number;
  skipped: number;
  failed: number;
  /** Why items were skipped or deduplicated (`skipped empty`), and how often. */
  reasons: Map<string, number>;
  /** The first failures, item and reason (`failed` counts them all). */
  failures: { item: string; reason: string }[];
}

/** Failures listed by name in a summary; the rest are counted. */
const LISTED_FAILURES = 20;

export function createRunSummary(): RunSummary {
  return { created: 0, deduplicated: 0, skipped: 0, failed: 0, reasons: new Map(), failures: [] };
}

export function recordOutcome(summary: RunSummary, outcome: ItemOutcome): void {
  summary[outcome.status]++;
  const reason = outcome.reason ?? 'no reason given';
  if (outcome.status === 'skipped' || outcome.status === 'deduplicated') {
    const key = `${outcome.status} ${reason}`;
    summary.reasons.set(key, (summary.reasons.get(key) ?? 0) + 1);
  }
  if (outcome.status === 'failed' && summary.failures.length < LISTED_FAILURES) {
    summary.failures.push({ item: outcome.item, reason });
  }
}

/** The summary printed at the end: counts on one line, then skip reasons and failures. */
export function formatSummary(title: string, summary: RunSummary): string {
  const lines = [
    `${title}: ${summary.created} created, ${summary.deduplicated} deduplicated, ${summary.skipped} skipped, ${summary.failed} failed`,
  ];
  for (const [key, count] of summary.reasons) {
    const [status, ...reason] = key.split(' ');
    lines.push(`  ${status} ${count}: ${reason.join(' ')}`);
  }
  for (const { item, reason } of summary.failures) lines.push(`  failed ${item}: ${reason}`);
  if (summary.failed > summary.failures.length) {
    lines.push(`  … and ${summary.failed - summary.failures.length} more failures`);
  }
  return `${lines.join('\n')}\n`;
}
