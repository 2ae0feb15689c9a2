import type { Database } from 'better-sqlite3';

/** One schema change. Versions are increasing (gaps allowed); a released migration is never edited. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The schema, oldest change first. Timestamps are epoch milliseconds except message `created_at`. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions and messages',
    sql: `
      CREATE TABLE sessions (
        pk INTEGER PRIMARY KEY,
        -- JSON array [tenant, namespace, user, session]: the unique identity of a session. A UNIQUE
        -- over the nullable columns would let two rows with a NULL namespace coexist (NULLs are
        -- distinct in SQL); the JSON form is injective, tells NULL from '' and 'null', and needs
        -- no separator that an id could contain.
        session_key TEXT NOT NULL UNIQUE,
        tenant_id TEXT NOT NULL,
        namespace TEXT,
        user_id TEXT,
        session_id TEXT NOT NULL,
        data TEXT,
        context TEXT,
        memories TEXT NOT NULL,
        strategy TEXT NOT NULL,
        ttl_seconds INTEGER,
        version INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        expires_at INTEGER,
        message_count INTEGER NOT NULL,
        token_count INTEGER NOT NULL,
        last_seq INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_by_recency ON sessions (tenant_id, updated_at DESC);
      CREATE INDEX sessions_by_expiry ON sessions (expires_at) WHERE expires_at IS NOT NULL;

      -- A rowid table (not WITHOUT ROWID): message content can be large, and rowid tables keep
      -- big rows out of the primary-key b-tree.
      CREATE TABLE messages (
        session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        name TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        created_at TEXT NOT NULL,
        token_count INTEGER NOT NULL,
        token_encoding TEXT NOT NULL,
        PRIMARY KEY (session_pk, seq),
        UNIQUE (session_pk, id)
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'long-term memories, embeddings and full-text index',
    sql: `
      -- One row per version of a memory. Ids are unique per tenant; versions are separate rows
      -- linked by supersedes / superseded_by, and valid_to is NULL while a version is current.
      CREATE TABLE memories (
        pk INTEGER PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        id TEXT NOT NULL,
        namespace TEXT,
        user_id TEXT,
        session_id TEXT,
        agent_id TEXT,
        document_id TEXT,
        source TEXT,
        text TEXT NOT NULL,
        memory_type TEXT NOT NULL,
        topics TEXT NOT NULL, -- JSON array of strings
        entities TEXT NOT NULL, -- JSON array of strings
        event_date INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        last_accessed INTEGER NOT NULL,
        access_count INTEGER NOT NULL,
        salience REAL NOT NULL,
        confidence REAL NOT NULL,
        pinned INTEGER NOT NULL, -- 0 or 1
        supersedes TEXT,
        superseded_by TEXT,
        valid_from INTEGER NOT NULL,
        valid_to INTEGER,
        memory_hash TEXT NOT NULL,
        persisted_at INTEGER NOT NULL,
        metadata TEXT NOT NULL, -- JSON object
        UNIQUE (tenant_id, id)
      ) STRICT;
      -- The common scopes of listing and search (a user's or a namespace's current memories),
      -- ending in created_at and id so that they also serve the listing order, and cover the
      -- pk and id a search needs without reading the row.
      CREATE INDEX memories_by_user ON memories (tenant_id, user_id, valid_to, created_at, id);
      CREATE INDEX memories_by_namespace ON memories (tenant_id, namespace, valid_to, created_at, id);
      CREATE INDEX memories_by_created ON memories (tenant_id, valid_to, created_at, id);
      CREATE INDEX memories_current_by_hash ON memories (tenant_id, memory_hash) WHERE valid_to IS NULL;

      -- At most one embedding per memory: a new model replaces the old vector. Vectors are
      -- little-endian float32 BLOBs, the format sqlite-vec reads.
      CREATE TABLE memory_embeddings (
        memory_pk INTEGER PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
        model TEXT NOT NULL,
        vector BLOB NOT NULL
      ) STRICT;

      -- The dimensions of each embedding model per tenant, fixed by its first vector.
      CREATE TABLE memory_vector_spaces (
        tenant_id TEXT NOT NULL,
        model TEXT NOT NULL,
        dimensions INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, model)
      ) STRICT, WITHOUT ROWID;

      -- BM25 over memory text: an external-content FTS5 index on memories(text), kept in sync by
      -- the triggers below inside the writing transaction. porter + unicode61 (diacritics removed)
      -- matches the in-memory analyzer closely; stopwords are dropped from queries, not the index.
      CREATE VIRTUAL TABLE memories_fts USING fts5(
        text,
        content = 'memories',
        content_rowid = 'pk',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, text) VALUES (new.pk, new.text);
      END;
      CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.pk, old.text);
      END;
      CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.pk, old.text);
        INSERT INTO memories_fts (rowid, text) VALUES (new.pk, new.text);
      END;
    `,
  },
  {
    version: 3,
    name: 'change log of vector rows',
    sql: `
      -- Which memories' vector rows changed, in commit order, so that a process holding in-memory
      -- vector indexes (sqlite-vector-cache.ts) catches up with other connections' writes by
      -- re-reading only those rows. Writers prune it to the newest entries; AUTOINCREMENT keeps seq
      -- increasing across pruning, so a reader can tell when entries it needed are gone.
      CREATE TABLE memory_vector_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_pk INTEGER NOT NULL
      ) STRICT;
      CREATE TRIGGER memory_embeddings_logged_insert AFTER INSERT ON memory_embeddings BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (new.memory_pk);
      END;
      CREATE TRIGGER memory_embeddings_logged_update AFTER UPDATE ON memory_embeddings BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (new.memory_pk);
      END;
      -- Fires for the cascade from a deleted memory too.
      CREATE TRIGGER memory_embeddings_logged_delete AFTER DELETE ON memory_embeddings BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (old.memory_pk);
      END;
      -- The columns a filter reads, except last_accessed, which every access updates and no
      -- cache holds (filters on it run in SQL).
      CREATE TRIGGER memories_logged_update AFTER UPDATE OF tenant_id, id, namespace, user_id, session_id,
        agent_id, document_id, memory_type, topics, entities, event_date, created_at, pinned, valid_to
      ON memories WHEN EXISTS (SELECT 1 FROM memory_embeddings WHERE memory_pk = new.pk) BEGIN
        INSERT INTO memory_vector_changes (memory_pk) VALUES (new.pk);
      END;
    `,
  },
  {
    version: 4,
    name: 'per-session working-set pins and removals',
    sql: `
      ALTER TABLE sessions ADD COLUMN working_set TEXT NOT NULL DEFAULT '{"pinned":[],"removed":[]}';
    `,
  },
  {
    version: 5,
    name: 'keyed documents (agents, API keys, traces)',
    sql: `
      CREATE TABLE documents (
        tenant_id TEXT NOT NULL,
        collection TEXT NOT NULL,
        id TEXT NOT NULL,
        value TEXT NOT NULL,
        version INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant_id, collection, id)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 6,
    name: 'session summary mark',
    sql: `
      ALTER TABLE sessions ADD COLUMN summarized_through_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN summarized_messages INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN summarized_tokens INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 7,
    name: 'durable background jobs',
    sql: `
      CREATE TABLE jobs (
        pk INTEGER PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        id TEXT NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL, -- JSON object
        status TEXT NOT NULL, -- pending | running | succeeded | failed
        idempotency_key TEXT,
        attempts INTEGER NOT NULL,
        max_attempts INTEGER NOT NULL,
        -- When the job can next be claimed: the run time while pending, the lease expiry while
        -- running, NULL once finished. One column for both makes a claim one index range scan, and
        -- a crashed worker's job (running, lease in the past) comes back by the same path.
        available_at INTEGER,
        worker_id TEXT,
        result TEXT, -- JSON object
        error TEXT, -- JSON {message, code}
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        started_at INTEGER,
        completed_at INTEGER,
        UNIQUE (tenant_id, id)
      ) STRICT;
      CREATE UNIQUE INDEX jobs_by_idempotency_key ON jobs (tenant_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
      CREATE INDEX jobs_due ON jobs (available_at) WHERE available_at IS NOT NULL;
      -- Leases only, so finding expired ones never walks a backlog of pending jobs.
      CREATE INDEX jobs_leases ON jobs (available_at) WHERE status = 'running';
      CREATE INDEX jobs_by_status ON jobs (tenant_id, status, id);
    `,
  },
  {
    version: 8,
    name: 'memories in session order',
    sql: `
      -- sessionNeighbors: the turns before and after a memory in its session.
      CREATE INDEX memories_by_session ON memories (tenant_id, session_id, created_at, id)
        WHERE session_id IS NOT NULL;
    `,
  },
  {
    version: 9,
    name: 'session incarnations',
    sql: `
      -- A random number drawn when a session row is inserted. With version it names one state of a
      -- session even across a delete and re-creation (which restarts version at 1 and may reuse
      -- pk): the working-memory response cache validates its entries with it. Rows from before
      -- this migration share 0, and a re-created row draws a fresh number.
      ALTER TABLE sessions ADD COLUMN incarnation INTEGER NOT NULL DEFAULT 0;
    `,
  },
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
];

/**
 * Brings the schema up to date and returns how many migrations ran. Runs in one IMMEDIATE
 * transaction, so two processes opening the same file at once cannot both apply a migration.
 */
export function applyMigrations(database: Database, all: readonly Migration[] = migrations): number {
  const run = database.transaction((): number => {
    database.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const current = database.prepare('SELECT max(version) AS version FROM schema_migrations').get() as {
      version: number | null;
    };
    const pending = all.filter((migration) => migration.version > (current.version ?? 0));
    const record = database.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    for (const migration of pending) {
      database.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    }
    return pending.length;
  });
  return run.immediate();
}
