import type { Migration } from './migrations.js';
import { rehashOwnedMemories } from './rehash-owned-memories.js';

/** Changes from version 10 on: change logs, stable memory ids, partial indexes, coalesced jobs, hashes. */
export const migrationsFromV10: readonly Migration[] = [
  {
    version: 10,
    name: 'change log of every memory row',
    sql: `
      -- The in-process text index (sqlite-text-cache.ts) follows every memory, with or without a
      -- vector: log inserts, deletes and changes of the text too (the vector cache re-reads a
      -- logged row without a vector as "nothing to hold", so the extra entries cost it nothing).
      CREATE TRIGGER memories_logged_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (new.pk);
      END;
      CREATE TRIGGER memories_logged_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (old.pk);
      END;
      DROP TRIGGER memories_logged_update;
      CREATE TRIGGER memories_logged_update AFTER UPDATE OF tenant_id, id, text, namespace, user_id,
        session_id, agent_id, document_id, memory_type, topics, entities, event_date, created_at, pinned,
        valid_to
      ON memories BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (new.pk);
      END;
    `,
  },
  {
    version: 11,
    name: 'sessions by last update, across tenants',
    sql: `
      -- listIdleSessions: the inactivity sweep walks sessions of every tenant by updated_at (pk,
      -- the rowid, is implicitly the index's last column and breaks ties).
      CREATE INDEX sessions_by_update ON sessions (updated_at);
    `,
  },
  {
    version: 12,
    name: 'stable memory ids: versions in place, prior versions in memory_versions',
    sql: `
      -- A memory's id names it for its whole life: an edit updates its row in place (version + 1)
      -- and copies the prior version here, so the search indexes (FTS, vectors, caches) only ever
      -- hold current rows. written_by: user | agent | llm | api | system.
      ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE memories ADD COLUMN written_by TEXT NOT NULL DEFAULT 'api';
      CREATE TABLE memory_versions (
        memory_pk INTEGER NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        text TEXT NOT NULL,
        memory_type TEXT NOT NULL,
        namespace TEXT,
        user_id TEXT,
        session_id TEXT,
        agent_id TEXT,
        document_id TEXT,
        source TEXT,
        topics TEXT NOT NULL,
        entities TEXT NOT NULL,
        event_date INTEGER,
        updated_at INTEGER NOT NULL,
        salience REAL NOT NULL,
        confidence REAL NOT NULL,
        pinned INTEGER NOT NULL,
        metadata TEXT NOT NULL,
        memory_hash TEXT NOT NULL,
        valid_from INTEGER NOT NULL,
        valid_to INTEGER NOT NULL,
        written_by TEXT NOT NULL,
        PRIMARY KEY (memory_pk, version)
      ) STRICT, WITHOUT ROWID;

      -- Version chains written before this migration (separate rows linked by supersedes, each
      -- edit a new id) become the history of their current row, which keeps its id: version n for
      -- a chain of n rows. The older rows stay as they were (closed, superseded_by set), so the
      -- ids a client holds still lead to the current one. Broken chains (a deleted middle version)
      -- stop at the gap; 1,000 links at most.
      INSERT INTO memory_versions
      WITH RECURSIVE chain (head_pk, pk, depth) AS (
        SELECT pk, pk, 0 FROM memories WHERE valid_to IS NULL AND supersedes IS NOT NULL
        UNION ALL
        SELECT chain.head_pk, older.pk, chain.depth + 1
        FROM chain
        JOIN memories newer ON newer.pk = chain.pk
        JOIN memories older ON older.tenant_id = newer.tenant_id AND older.id = newer.supersedes
        WHERE chain.depth < 1000
      ),
      lengths (head_pk, links) AS (SELECT head_pk, max(depth) FROM chain GROUP BY head_pk)
      SELECT chain.head_pk, lengths.links - chain.depth + 1, m.text, m.memory_type, m.namespace,
        m.user_id, m.session_id, m.agent_id, m.document_id, m.source, m.topics, m.entities,
        m.event_date, m.updated_at, m.salience, m.confidence, m.pinned, m.metadata, m.memory_hash,
        m.valid_from, coalesce(m.valid_to, m.valid_from), 'api'
      FROM chain JOIN lengths ON lengths.head_pk = chain.head_pk JOIN memories m ON m.pk = chain.pk
      WHERE chain.depth > 0;
      UPDATE memories SET version = 1 + (SELECT count(*) FROM memory_versions v WHERE v.memory_pk = memories.pk)
      WHERE valid_to IS NULL AND supersedes IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: 'change log of in-place memory versions',
    sql: `
      -- An edit now rewrites a memory's row in place (version + 1), also when only its metadata,
      -- salience or confidence change: log every new version, so caches validated by the change log
      -- (text and vector caches, the procedure cache's revision) see it.
      DROP TRIGGER memories_logged_update;
      CREATE TRIGGER memories_logged_update AFTER UPDATE OF tenant_id, id, text, namespace, user_id,
        session_id, agent_id, document_id, memory_type, topics, entities, event_date, created_at, pinned,
        valid_to, version
      ON memories BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (new.pk);
      END;
    `,
  },
  {
    version: 14,
    name: 'memories by agent and memory type',
    sql: `
      -- The procedure library and the knowledge base list one agent's records of one type (every
      -- turn, on a cache miss): without this index SQLite walks every current memory of the tenant.
      -- Partial: most memories (a user's facts) have no agent and cost this index nothing.
      CREATE INDEX memories_by_agent ON memories (tenant_id, agent_id, memory_type, valid_to, created_at, id)
        WHERE agent_id IS NOT NULL;
    `,
  },
  {
    version: 15,
    name: 'namespace index only for records with a namespace',
    sql: `
      -- Every insert wrote an entry here, also for the many records without a namespace, which no
      -- namespace equality can select through it (namespace = ? implies one is set).
      DROP INDEX memories_by_namespace;
      CREATE INDEX memories_by_namespace ON memories (tenant_id, namespace, valid_to, created_at, id)
        WHERE namespace IS NOT NULL;
    `,
  },
  {
    version: 16,
    name: 'coalesced, fairly claimed and pruned jobs; stale documents',
    sql: `
      -- At most one pending job per (tenant, coalesce key): an enqueue with the key of a pending
      -- job folds into it (job-store.ts). Not UNIQUE: the store keeps the rule in its transactions.
      ALTER TABLE jobs ADD COLUMN coalesce_key TEXT;
      CREATE INDEX jobs_pending_by_coalesce_key ON jobs (tenant_id, coalesce_key)
        WHERE coalesce_key IS NOT NULL AND status = 'pending';
      -- Fair claims: the tenant served least recently first, then its longest-due job.
      CREATE INDEX jobs_due_by_tenant ON jobs (tenant_id, available_at) WHERE available_at IS NOT NULL;
      CREATE TABLE job_turns (tenant_id TEXT PRIMARY KEY, turn INTEGER NOT NULL) STRICT;
      CREATE INDEX job_turns_by_turn ON job_turns (turn, tenant_id);
      INSERT INTO job_turns (tenant_id, turn) SELECT DISTINCT tenant_id, 0 FROM jobs;
      -- Retention: finished jobs by completion time, documents of a collection by last update.
      CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
      CREATE INDEX documents_by_update ON documents (collection, updated_at);
    `,
  },
  {
    version: 17,
    name: 'dedup hashes scoped to the owner and a procedure meaning',
    // memory_hash now covers agent_id, document_id and a procedure's name, triggers, examples and
    // steps (src/core/memory-hash.ts): stored hashes of such rows are recomputed, so a create after
    // the upgrade is never deduplicated against another agent's record or another procedure.
    sql: '',
    run: (database) => {
      rehashOwnedMemories(database);
    },
  },
];
