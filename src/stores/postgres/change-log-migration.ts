/**
 * Migration 8 of the PostgreSQL schema: the change log that each server's in-process text index
 * follows (`postgres-text-cache.ts`), written by triggers on `memories` so that every writer is
 * logged. Kept apart from `migrations.ts` for its size.
 */
export const changeLogMigration = {
  version: 8,
  sql: `
-- The change log each server's in-process text index follows (postgres-text-cache.ts): every
-- statement that changes memory rows (any writer: an engram server of any version, or SQL by
-- hand) logs their pks at a new revision of their tenant, from triggers, in its transaction.
-- The revision is drawn after the tenant's memory_revisions row is locked, and the lock is held
-- to commit, so a tenant's revisions grow in commit order: a reader that sees revision r sees
-- every entry up to r. Updates that change only access statistics are not logged. Entries past a
-- retention are pruned; log_floor is the newest revision pruned for the tenant, so an index that
-- has not applied it is built again rather than left stale.
CREATE TABLE memory_changes (
  tenant_id text COLLATE "C" NOT NULL,
  revision bigint NOT NULL,
  memory_pk bigint NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, revision, memory_pk)
);
CREATE INDEX memory_changes_by_time ON memory_changes USING brin (changed_at);
ALTER TABLE memory_revisions ADD COLUMN log_floor bigint NOT NULL DEFAULT 0;
-- Logs rows of any tenants at one new revision per tenant (see above).
-- Both functions keep the schema's search path: a trigger also runs for writers whose own path
-- does not name it (an operator's session, say).
CREATE FUNCTION engram_log_memory_rows(tenants text[], pks bigint[]) RETURNS void LANGUAGE sql
SET search_path FROM CURRENT AS $log$
  WITH changed AS (SELECT * FROM unnest(tenants, pks) AS c(tenant_id, pk)),
  moved AS (
    INSERT INTO memory_revisions (tenant_id, revision)
    SELECT t.tenant_id, nextval('memory_revision_seq') FROM (SELECT DISTINCT tenant_id FROM changed) AS t
    ON CONFLICT (tenant_id) DO UPDATE SET revision = nextval('memory_revision_seq')
    RETURNING tenant_id, revision
  )
  INSERT INTO memory_changes (tenant_id, revision, memory_pk)
  SELECT DISTINCT c.tenant_id, moved.revision, c.pk FROM changed c JOIN moved USING (tenant_id);
$log$;
CREATE FUNCTION engram_log_memory_changes() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $log$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM engram_log_memory_rows(array_agg(tenant_id), array_agg(pk)) FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM engram_log_memory_rows(array_agg(tenant_id), array_agg(pk)) FROM old_rows;
  ELSE
    PERFORM engram_log_memory_rows(array_agg(n.tenant_id), array_agg(n.pk))
    FROM new_rows n JOIN old_rows o ON o.pk = n.pk
    WHERE (n.tenant_id, n.id, n.text, n.valid_to, n.namespace, n.user_id, n.session_id, n.agent_id,
        n.document_id, n.memory_type, n.topics, n.entities, n.event_date, n.created_at, n.pinned)
      IS DISTINCT FROM (o.tenant_id, o.id, o.text, o.valid_to, o.namespace, o.user_id, o.session_id,
        o.agent_id, o.document_id, o.memory_type, o.topics, o.entities, o.event_date, o.created_at,
        o.pinned);
  END IF;
  RETURN NULL;
END
$log$;
CREATE TRIGGER memories_logged_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_log_memory_changes();
CREATE TRIGGER memories_logged_update AFTER UPDATE ON memories
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_log_memory_changes();
CREATE TRIGGER memories_logged_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_log_memory_changes();
`,
};
