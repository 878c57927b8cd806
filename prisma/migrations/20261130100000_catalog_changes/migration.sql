-- CreateTable
CREATE TABLE "catalog_changes" (
    "id" BIGSERIAL NOT NULL,
    "server_id" UUID NOT NULL,
    "txid" BIGINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_changes_txid_idx" ON "catalog_changes"("txid");

-- CreateIndex
CREATE INDEX "catalog_changes_at_idx" ON "catalog_changes"("at");

-- Every write that can change what the tool catalog holds appends the servers it touched, in the writer's own
-- transaction, so that each API replica can reload just those servers. "txid" is the writing transaction's
-- id: a reader that remembers the oldest transaction still running when it last looked (pg_snapshot_xmin)
-- misses no change that commits later, whatever order the ids were handed out in.
CREATE FUNCTION "catalog_changes_from_tools"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "catalog_changes" ("server_id", "txid")
    SELECT DISTINCT "server_id", (pg_current_xact_id()::text)::bigint FROM "changed_tools";
    RETURN NULL;
END
$$;

CREATE TRIGGER "tools_catalog_insert" AFTER INSERT ON "tools"
    REFERENCING NEW TABLE AS "changed_tools" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_changes_from_tools"();

CREATE TRIGGER "tools_catalog_update" AFTER UPDATE ON "tools"
    REFERENCING NEW TABLE AS "changed_tools" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_changes_from_tools"();

CREATE TRIGGER "tools_catalog_delete" AFTER DELETE ON "tools"
    REFERENCING OLD TABLE AS "changed_tools" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_changes_from_tools"();

-- A server's row matters to the catalog unless only discovery bookkeeping changed (the lease, the schedule).
CREATE FUNCTION "catalog_changes_from_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bookkeeping CONSTANT TEXT[] := ARRAY['discovery_lease_owner', 'discovery_lease_until', 'next_discovery_at',
        'discovery_requested_at', 'status_reason', 'updated_at'];
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO "catalog_changes" ("server_id", "txid") VALUES (OLD."id", (pg_current_xact_id()::text)::bigint);
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND (to_jsonb(OLD) - bookkeeping) = (to_jsonb(NEW) - bookkeeping) THEN
        RETURN NULL;
    END IF;
    INSERT INTO "catalog_changes" ("server_id", "txid") VALUES (NEW."id", (pg_current_xact_id()::text)::bigint);
    RETURN NULL;
END
$$;

CREATE TRIGGER "servers_catalog_change" AFTER INSERT OR UPDATE OR DELETE ON "servers"
    FOR EACH ROW EXECUTE FUNCTION "catalog_changes_from_servers"();
