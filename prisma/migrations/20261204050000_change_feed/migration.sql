-- One change feed for every reader of the registry's changes (the tool catalog, the kept answers, list_changed
-- notifications): the table is the durable log, and a notification on the channel "server_changes" (no payload,
-- so one per transaction) wakes the readers when a transaction that wrote to it commits. It replaces the catalog's
-- change table polled every second and the "registry_changes" notifications that carried the change itself.
-- Every change to a server row or to a server's tools is logged with the server's owner; "bookkeeping" says that
-- only discovery bookkeeping moved (the lease, the schedule, the time of the request), which the tool catalog skips.
ALTER TABLE "catalog_changes" RENAME TO "server_changes";
ALTER TABLE "server_changes" RENAME CONSTRAINT "catalog_changes_pkey" TO "server_changes_pkey";
ALTER SEQUENCE "catalog_changes_id_seq" RENAME TO "server_changes_id_seq";
ALTER INDEX "catalog_changes_txid_idx" RENAME TO "server_changes_txid_idx";
ALTER INDEX "catalog_changes_at_idx" RENAME TO "server_changes_at_idx";
ALTER TABLE "server_changes" ADD COLUMN "tenant_id" UUID, ADD COLUMN "bookkeeping" BOOLEAN NOT NULL DEFAULT false;

ALTER TRIGGER "tools_catalog_insert" ON "tools" RENAME TO "tools_server_changes_insert";
ALTER TRIGGER "tools_catalog_update" ON "tools" RENAME TO "tools_server_changes_update";
ALTER TRIGGER "tools_catalog_delete" ON "tools" RENAME TO "tools_server_changes_delete";
ALTER TRIGGER "servers_catalog_change" ON "servers" RENAME TO "servers_server_changes";
ALTER TRIGGER "tool_overrides_catalog_insert" ON "tool_overrides" RENAME TO "tool_overrides_server_changes_insert";
ALTER TRIGGER "tool_overrides_catalog_update" ON "tool_overrides" RENAME TO "tool_overrides_server_changes_update";
ALTER TRIGGER "tool_overrides_catalog_delete" ON "tool_overrides" RENAME TO "tool_overrides_server_changes_delete";
ALTER FUNCTION "catalog_changes_from_tools"() RENAME TO "server_changes_from_tools";
ALTER FUNCTION "catalog_changes_from_servers"() RENAME TO "server_changes_from_servers";

-- For tools and tool overrides alike. The tenant is read by primary key, once per changed server. Tools whose server is gone were deleted with it,
-- and the server's own deletion is logged (with its tenant): they are not logged again.
CREATE OR REPLACE FUNCTION "server_changes_from_tools"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM "changed_tools") THEN
        RETURN NULL;
    END IF;
    INSERT INTO "server_changes" ("server_id", "tenant_id", "txid")
    SELECT c."server_id", s."tenant_id", (pg_current_xact_id()::text)::bigint
      FROM (SELECT DISTINCT "server_id" FROM "changed_tools") c
      CROSS JOIN LATERAL (SELECT "tenant_id" FROM "servers" WHERE "id" = c."server_id") s;
    PERFORM pg_notify('server_changes', '');
    RETURN NULL;
END
$$;

-- A change of status is never bookkeeping; otherwise the whole row is compared less the bookkeeping columns (the
-- lease, the schedule, the time of the request, the reason a queued or retried discovery shows, the time of the write).
CREATE OR REPLACE FUNCTION "server_changes_from_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed "servers" := COALESCE(NEW, OLD);
    kept CONSTANT TEXT[] := ARRAY['discovery_lease_owner', 'discovery_lease_until', 'next_discovery_at', 'discovery_requested_at', 'status_reason', 'updated_at'];
BEGIN
    INSERT INTO "server_changes" ("server_id", "tenant_id", "txid", "bookkeeping")
    VALUES (changed."id", changed."tenant_id", (pg_current_xact_id()::text)::bigint,
            TG_OP = 'UPDATE' AND OLD."status" IS NOT DISTINCT FROM NEW."status" AND (to_jsonb(OLD) - kept) = (to_jsonb(NEW) - kept));
    PERFORM pg_notify('server_changes', '');
    RETURN NULL;
END
$$;
