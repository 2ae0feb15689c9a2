import { assertKnownSchema } from '../schema-version.js';
import { changeLogMigration } from './change-log-migration.js';
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
  {
    version: 3,
    sql: `
-- An append in one round trip: lock (or create) the session row, check the expected version,
-- insert the messages after last_seq and move the counters, all in the one statement that calls
-- this. Contract errors leave with their own SQLSTATE (EG409: version conflict, DETAIL the stored
-- version or 'null'; EG400: a message id already in the session, DETAIL the id), which the driver
-- turns back into VersionConflictError and ValidationError.
CREATE FUNCTION engram_append_messages(
  p_key text, p_tenant text, p_namespace text, p_user text, p_session text, p_now bigint,
  p_ttl bigint, p_expected bigint, p_strategy jsonb, p_working_set jsonb, p_incarnation bigint,
  p_ids text[], p_roles text[], p_contents text[], p_names text[], p_tool_calls text[],
  p_tool_call_ids text[], p_created text[], p_tokens bigint[], p_encodings text[]
) RETURNS SETOF sessions LANGUAGE plpgsql AS $fn$
DECLARE
  s sessions;
  existed boolean;
  written bigint;
  missing text;
BEGIN
  SELECT * INTO s FROM sessions WHERE session_key = p_key FOR UPDATE;
  existed := FOUND;
  IF existed AND s.expires_at IS NOT NULL AND s.expires_at <= p_now THEN
    DELETE FROM sessions WHERE pk = s.pk;
    existed := false;
  END IF;
  IF NOT existed THEN
    -- A new session starts at version 0 and is advanced below with the others.
    INSERT INTO sessions (session_key, tenant_id, namespace, user_id, session_id, data, context, memories,
      strategy, ttl_seconds, version, created_at, updated_at, expires_at, message_count, token_count, last_seq,
      working_set, summarized_through_seq, summarized_messages, summarized_tokens, incarnation)
    VALUES (p_key, p_tenant, p_namespace, p_user, p_session, NULL, NULL, '[]', p_strategy, p_ttl, 0, p_now,
      p_now, NULL, 0, 0, 0, p_working_set, 0, 0, 0, p_incarnation)
    ON CONFLICT (session_key) DO NOTHING RETURNING * INTO s;
    IF NOT FOUND THEN
      -- Another writer created it meanwhile: ON CONFLICT waited for its commit; lock its row.
      SELECT * INTO s FROM sessions WHERE session_key = p_key FOR UPDATE;
      existed := true;
    END IF;
  END IF;
  IF p_expected IS NOT NULL AND ((p_expected = 0 AND existed) OR (p_expected <> 0 AND (NOT existed OR s.version <> p_expected))) THEN
    RAISE EXCEPTION 'version conflict' USING ERRCODE = 'EG409',
      DETAIL = CASE WHEN existed THEN s.version::text ELSE 'null' END;
  END IF;
  INSERT INTO messages (session_pk, seq, id, role, content, name, tool_calls, tool_call_id, created_at,
    token_count, token_encoding)
  SELECT s.pk, s.last_seq + ordinality, id, role, content, name, tool_calls::jsonb, tool_call_id, created_at,
    token_count, token_encoding
  FROM unnest(p_ids, p_roles, p_contents, p_names, p_tool_calls, p_tool_call_ids, p_created, p_tokens,
    p_encodings) WITH ORDINALITY
    AS m(id, role, content, name, tool_calls, tool_call_id, created_at, token_count, token_encoding, ordinality)
  ON CONFLICT (session_pk, id) DO NOTHING;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written < cardinality(p_ids) THEN
    SELECT id INTO missing FROM unnest(p_ids) AS wanted(id)
      WHERE EXISTS (SELECT 1 FROM messages WHERE session_pk = s.pk AND messages.id = wanted.id
        AND messages.seq <= s.last_seq)
      LIMIT 1;
    RAISE EXCEPTION 'duplicate message id' USING ERRCODE = 'EG400', DETAIL = coalesce(missing, '');
  END IF;
  RETURN QUERY UPDATE sessions SET version = version + 1, updated_at = p_now,
      expires_at = CASE WHEN ttl_seconds IS NULL THEN NULL ELSE p_now + ttl_seconds * 1000 END,
      message_count = message_count + written,
      token_count = token_count + (SELECT coalesce(sum(t), 0) FROM unnest(p_tokens) AS t),
      last_seq = last_seq + written
    WHERE pk = s.pk RETURNING *;
END
$fn$;
`,
  },
  {
    version: 4,
    sql: `
-- At most one pending job per (tenant, coalesce key), enforced by the index so that servers
-- enqueueing at once cannot both add one: the loser folds into the winner's job.
ALTER TABLE jobs ADD COLUMN coalesce_key text COLLATE "C";
CREATE UNIQUE INDEX jobs_pending_by_coalesce_key ON jobs (tenant_id, coalesce_key)
  WHERE coalesce_key IS NOT NULL AND status = 'pending';
-- Fair claims: each tenant's longest-due job, from the tenant served least recently (turn from a
-- sequence, so concurrent claims never share one; 0 = never served).
CREATE INDEX jobs_due_by_tenant ON jobs (tenant_id, available_at, pk) WHERE available_at IS NOT NULL;
CREATE SEQUENCE job_turn_seq;
CREATE TABLE job_turns (tenant_id text COLLATE "C" PRIMARY KEY, turn bigint NOT NULL);
INSERT INTO job_turns (tenant_id, turn) SELECT DISTINCT tenant_id, 0 FROM jobs;
CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX documents_by_update ON documents (collection, updated_at);
-- The memory revision of a tenant: bumped (from a sequence, so a value never comes back) in the
-- transaction of every write of its records or vectors, so caches on any server see the change.
CREATE SEQUENCE memory_revision_seq;
CREATE TABLE memory_revisions (tenant_id text COLLATE "C" PRIMARY KEY, revision bigint NOT NULL);
`,
  },
  {
    version: 5,
    sql: `
-- The procedure library and the knowledge base list one agent's records of one type on every turn
-- that misses their cache: without this index that is a scan of the tenant's memories. Partial:
-- most memories (a user's facts) have no agent and cost this index nothing.
CREATE INDEX memories_by_agent ON memories (tenant_id, agent_id, memory_type, valid_to, created_at, id)
  WHERE agent_id IS NOT NULL;
`,
  },
  {
    version: 6,
    sql: `
-- New vectors are written outside the HNSW graph (indexed = false, "the tail") and moved into it
-- in the background, so a write does not pay for the graph insertion; searches read the tail of
-- their tenant exactly. The graphs now index only "indexed" rows: the old ones (over every row of
-- their dimension count) are dropped and rebuilt in bulk, in the background, after the next write.
ALTER TABLE memory_embeddings ADD COLUMN indexed boolean NOT NULL DEFAULT true;
CREATE INDEX memory_embeddings_tail ON memory_embeddings (tenant_id, model) WHERE NOT indexed;
DO $drop$
DECLARE old record;
BEGIN
  FOR old IN SELECT indexname FROM pg_indexes
    WHERE schemaname = current_schema() AND indexname LIKE 'memory_embeddings_hnsw_%'
  LOOP
    EXECUTE format('DROP INDEX %I', old.indexname);
  END LOOP;
END
$drop$;
`,
  },
  {
    version: 7,
    sql: `
-- The episode source (and every search of one user's records of given types) filters on user,
-- type and current version: with only (tenant_id, user_id) a user's 1,000 episodes among 100,000
-- memories were found by reading all 100,000 rows, twice a turn (the bounded count and the exact
-- scan). Partial: superseded versions never match these searches.
CREATE INDEX memories_by_user_type ON memories (tenant_id, user_id, memory_type) WHERE valid_to IS NULL;
`,
  },
  changeLogMigration,
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
    // Waiting for another server's migration, or one slow step (an index over a large table), may
    // take longer than a request's statement_timeout: not the limit here. A lock still held after
    // ten minutes fails the start instead of hanging it.
    await client.query("SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = '10min'");
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
    assertKnownSchema(Math.max(0, ...done), MIGRATIONS);
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
