/** Accumulates turn- and session-level recall per LoCoMo category. */
export interface RecallTable {
  add(
    category: number,
    evidence: readonly string[],
    ranked: readonly string[],
    sessionOf: Map<string, number>,
  ): void;
  /** Rows per category 1-4, "1-4" overall, then 5 apart. */
  rows(method: string): (string | number)[][];
  /** Mean turn recall@10 in % of a category ("1", …, "1-4", "5"), and how many questions it has. */
  recallAt10(key: string): { recall: number; questions: number };
}

interface Totals {
  questions: number;
  recall: Record<5 | 10 | 20, number>;
  microFound: number;
  microTotal: number;
  session: Record<1 | 3, number>;
}

const empty = (): Totals => ({
  questions: 0,
  recall: { 5: 0, 10: 0, 20: 0 },
  microFound: 0,
  microTotal: 0,
  session: { 1: 0, 3: 0 },
});

export function createRecallTable(): RecallTable {
  const byCategory = new Map<string, Totals>();
  const bucket = (key: string) => {
    let totals = byCategory.get(key);
    if (!totals) {
      totals = empty();
      byCategory.set(key, totals);
    }
    return totals;
  };
  const percent = (value: number, total: number) =>
    total === 0 ? '-' : `${((100 * value) / total).toFixed(1)}%`;
  return {
    add(category, evidence, ranked, sessionOf) {
      const keys = category === 5 ? ['5'] : [String(category), '1-4'];
      const evidenceSessions = new Set(evidence.map((id) => sessionOf.get(id)));
      const rankedSessions = [...new Set(ranked.map((id) => sessionOf.get(id)))];
      for (const key of keys) {
        const totals = bucket(key);
        totals.questions++;
        for (const k of [5, 10, 20] as const) {
          const top = new Set(ranked.slice(0, k));
          totals.recall[k] += evidence.filter((id) => top.has(id)).length / evidence.length;
        }
        const top10 = new Set(ranked.slice(0, 10));
        totals.microFound += evidence.filter((id) => top10.has(id)).length;
        totals.microTotal += evidence.length;
        for (const k of [1, 3] as const) {
          const top = new Set(rankedSessions.slice(0, k));
          totals.session[k] +=
            [...evidenceSessions].filter((session) => top.has(session)).length / evidenceSessions.size;
        }
      }
    },
    recallAt10(key) {
      const totals = byCategory.get(key);
      if (!totals || totals.questions === 0) return { recall: 0, questions: 0 };
      return { recall: (100 * totals.recall[10]) / totals.questions, questions: totals.questions };
    },
    rows(method) {
      return ['1', '2', '3', '4', '1-4', '5'].flatMap((key) => {
        const totals = byCategory.get(key);
        if (!totals) return [];
        const count = totals.questions;
        return [
          [
            method,
            key,
            count,
            percent(totals.recall[5], count),
            percent(totals.recall[10], count),
            percent(totals.recall[20], count),
            percent(totals.microFound, totals.microTotal),
            percent(totals.session[1], count),
            percent(totals.session[3], count),
          ],
        ];
      });
    },
  };
}
