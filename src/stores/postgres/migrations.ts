import { type PostgresDatabase, quoteIdentifier } from './postgres-database.js';

/**
 * The schema, as numbered steps applied in order, each once. Timestamps are epoch milliseconds
 * (bigint) as in the SQLite driver, so ISO text round-trips to the millisecond; ids and keys use the
 * "C" collation, so ordering is by code point as the contract says.
 */
const MIGRATIONS: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE sessions (
  pk bigserial PRIMARY KEY,
  session_key text COLLATE "C" NOT NULL UNIQUE,
  tenant_id text COLLATE "C" NOT NULL,
  namespace text COLLATE "C",
  user_id text COLLATE "C",
  session_id text COLLATE "C" NOT NULL,
  data jsonb,
  context text,
  memories jsonb NOT NULL,
  strategy jsonb NOT NULL,
  ttl_seconds bigint,
  version bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint,
  message_count bigint NOT NULL,
  token_count bigint NOT NULL,
  last_seq bigint NOT NULL,
  working_set jsonb NOT NULL,
  summarized_through_seq bigint NOT NULL,
  summarized_messages bigint NOT NULL,
  summarized_tokens bigint NOT NULL,
  incarnation bigint NOT NULL
);
CREATE INDEX sessions_by_tenant ON sessions (tenant_id, updated_at DESC);
CREATE INDEX sessions_by_update ON sessions (updated_at, pk);
CREATE INDEX sessions_by_expiry ON sessions (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE messages (
  session_pk bigint NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
  seq bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  role text NOT NULL,
  content text NOT NULL,
  name text,
  tool_calls jsonb,
  tool_call_id text,
  created_at text NOT NULL,
  token_count bigint NOT NULL,
  token_encoding text NOT NULL,
  PRIMARY KEY (session_pk, seq),
  UNIQUE (session_pk, id)
);

CREATE TABLE documents (
  tenant_id text COLLATE "C" NOT NULL,
  collection text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  value jsonb NOT NULL,
  version bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, collection, id)
);

CREATE TABLE jobs (
  pk bigserial PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL,
  idempotency_key text COLLATE "C",
  attempts integer NOT NULL,
  max_attempts integer NOT NULL,
  available_at bigint,
  worker_id text,
  result jsonb,
  error jsonb,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  started_at bigint,
  completed_at bigint,
  UNIQUE (tenant_id, id)
);
CREATE UNIQUE INDEX jobs_by_key ON jobs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_due ON jobs (available_at, pk) WHERE available_at IS NOT NULL;
`,
  },
  {
    version: 2,
    sql: `
CREATE TABLE memories (
  pk bigserial PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  namespace text COLLATE "C",
  user_id text COLLATE "C",
  session_id text COLLATE "C",
  agent_id text COLLATE "C",
  document_id text COLLATE "C",
  source text,
  text text NOT NULL,
  memory_type text COLLATE "C" NOT NULL,
  topics text[] COLLATE "C" NOT NULL,
  entities text[] COLLATE "C" NOT NULL,
  event_date bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  last_accessed bigint NOT NULL,
  access_count bigint NOT NULL,
  salience double precision NOT NULL,
  confidence double precision NOT NULL,
  pinned boolean NOT NULL,
  supersedes text COLLATE "C",
  superseded_by text COLLATE "C",
  valid_from bigint NOT NULL,
  valid_to bigint,
  memory_hash text NOT NULL,
  persisted_at bigint NOT NULL,
  metadata jsonb NOT NULL,
  version bigint NOT NULL,
  written_by text NOT NULL,
  text_search tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
  UNIQUE (tenant_id, id)
);
CREATE INDEX memories_by_hash ON memories (tenant_id, memory_hash) WHERE valid_to IS NULL;
CREATE INDEX memories_by_created ON memories (tenant_id, created_at, id);
CREATE INDEX memories_by_access ON memories (tenant_id, last_accessed, id);
CREATE INDEX memories_by_session ON memories (tenant_id, session_id, created_at, id) WHERE session_id IS NOT NULL;
CREATE INDEX memories_by_user ON memories (tenant_id, user_id);
CREATE INDEX memories_text ON memories USING gin (text_search);
CREATE INDEX memories_topics ON memories USING gin (topics);

CREATE TABLE memory_embeddings (
  memory_pk bigint PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
  tenant_id text COLLATE "C" NOT NULL,
  model text COLLATE "C" NOT NULL,
  dimensions integer NOT NULL,
  norm double precision NOT NULL,
  vector real[] NOT NULL
);
CREATE INDEX memory_embeddings_by_model ON memory_embeddings (tenant_id, model);

-- A memory's id names it for its whole life: an edit updates its row in place (version + 1) and
-- copies the prior version here, so the search indexes only ever hold current rows.
CREATE TABLE memory_versions (
  memory_pk bigint NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
  version bigint NOT NULL,
  text text NOT NULL,
  memory_type text NOT NULL,
  namespace text,
  user_id text,
  session_id text,
  agent_id text,
  document_id text,
  source text,
  topics text[] NOT NULL,
  entities text[] NOT NULL,
  event_date bigint,
  updated_at bigint NOT NULL,
  salience double precision NOT NULL,
  confidence double precision NOT NULL,
  pinned boolean NOT NULL,
  metadata jsonb NOT NULL,
  memory_hash text NOT NULL,
  valid_from bigint NOT NULL,
  valid_to bigint NOT NULL,
  written_by text NOT NULL,
  PRIMARY KEY (memory_pk, version)
);

CREATE TABLE memory_vector_spaces (
  tenant_id text COLLATE "C" NOT NULL,
  model text COLLATE "C" NOT NULL,
  dimensions integer NOT NULL,
  PRIMARY KEY (tenant_id, model)
);
`,
  },
];

/** The advisory lock key of one schema's migrations: servers migrating other schemas do not wait. */
const lockKey = (schema: string) => `engram-migrations:${schema}`;

/**
 * Brings the schema up to date in one transaction under a transaction-level advisory lock, so
 * that ten servers starting at once migrate once: the first applies every missing step, the
 * others wait for its commit and then find nothing left to do. Resolves the versions applied here.
 */
export async function applyMigrations(database: PostgresDatabase): Promise<number[]> {
  return database.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey(database.schema)]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(database.schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(database.schema)}.engram_migrations (
        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const rows = await client.query<{ version: number }>(
      `SELECT version FROM ${quoteIdentifier(database.schema)}.engram_migrations`,
    );
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(
        `INSERT INTO ${quoteIdentifier(database.schema)}.engram_migrations (version) VALUES ($1)`,
        [migration.version],
      );
      applied.push(migration.version);
    }
    return applied;
  });
}
