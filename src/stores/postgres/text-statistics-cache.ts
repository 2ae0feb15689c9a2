import { LruMap } from '../../core/lru-map.js';

/** Tenants, query words and lexemes per tenant remembered at most (least recently used go first). */
const TENANTS = 256;
const WORDS = 10_000;
const LEXEMES_PER_TENANT = 10_000;

/** BM25 statistics of one tenant's current memories at one memory revision. */
interface TenantStatistics {
  revision: number;
  n: number;
  avgdl: number;
  /** Document frequency by lexeme (how many current memories contain it) and its impact, once known. */
  df: Map<string, { df: number; impact: number | null }>;
}

/** What a search passes to `bm25Sql`: the statistics known for its words (revision null: none). */
export interface KnownStatistics {
  revision: number | null;
  n: number;
  avgdl: number;
  lexemes: string[];
  dfs: number[];
  /** The largest BM25 term factor (idf aside) of each lexeme among the tenant's records; null: not known yet. */
  impacts: (number | null)[];
  /** Query words whose lexemes this process has not seen yet (the search reports them). */
  unstemmed: string[];
  /** Whether every lexeme of every query word is in `lexemes` (what pruning needs to plan). */
  complete: boolean;
}

/** What a search reports: the statistics it used, all true at `revision`, and the new words' lexemes. */
export interface LearnedStatistics {
  revision: number;
  n: number;
  avgdl: number;
  lexemes: string[];
  dfs: number[];
  impacts: (number | null)[];
  stems: Record<string, string[]> | null;
}

/**
 * The BM25 statistics of each tenant (memory count, average length, each lexeme's document
 * frequency and impact), remembered with the tenant's memory revision. `bm25Sql` uses them only when the
 * revision it reads in the search's own snapshot is still that one, and computes what is missing
 * or stale in the same statement: every write on any server moves the revision, so a search ranks
 * exactly as one that recounted everything. Query words map to lexemes by PostgreSQL's stemmer,
 * learned from earlier searches (a word's lexemes do not change).
 */
export class TextStatisticsCache {
  private readonly tenants = new LruMap<string, TenantStatistics>(TENANTS);
  private readonly stems = new LruMap<string, string[]>(WORDS);

  known(tenantId: string, words: readonly string[]): KnownStatistics {
    const tenant = this.tenants.get(tenantId);
    const known: KnownStatistics = {
      revision: tenant?.revision ?? null,
      n: tenant?.n ?? 0,
      avgdl: tenant?.avgdl ?? 1,
      lexemes: [],
      dfs: [],
      impacts: [],
      unstemmed: [],
      complete: true,
    };
    for (const word of words) {
      const lexemes = this.stems.get(word);
      if (lexemes === undefined) known.unstemmed.push(word);
      for (const lexeme of lexemes ?? []) {
        const statistics = tenant?.df.get(lexeme);
        if (statistics === undefined) known.complete = false;
        if (statistics === undefined || known.lexemes.includes(lexeme)) continue;
        known.lexemes.push(lexeme);
        known.dfs.push(statistics.df);
        known.impacts.push(statistics.impact);
      }
    }
    known.complete &&= known.unstemmed.length === 0;
    return known;
  }

  learn(tenantId: string, learned: LearnedStatistics): void {
    let tenant = this.tenants.get(tenantId);
    if (tenant?.revision !== learned.revision) {
      tenant = { revision: learned.revision, n: learned.n, avgdl: learned.avgdl, df: new Map() };
      this.tenants.set(tenantId, tenant);
    }
    if (tenant.df.size + learned.lexemes.length > LEXEMES_PER_TENANT) tenant.df.clear();
    learned.lexemes.forEach((lexeme, index) => {
      const df = learned.dfs[index];
      if (df !== undefined) tenant.df.set(lexeme, { df, impact: learned.impacts[index] ?? null });
    });
    for (const [word, lexemes] of Object.entries(learned.stems ?? {})) this.stems.set(word, lexemes);
  }
}
