-- Discovery's bookkeeping of a server (when a discovery was asked for, when the next one is due, which worker runs
-- one now and until when, why the attempt under way failed while it is tried again) moves out of the server's row
-- into a table of its own. The change feed then tells a change to a server from discovery's bookkeeping by the table
-- written, not by comparing the whole row less a list of column names: every change to a server row is a change
-- of the server, every change to its discovery row is bookkeeping (which the tool catalog skips, and which the
-- kept REST answers, that show the schedule and the request, still hear of).
CREATE TABLE "server_discovery" (
    "server_id" UUID NOT NULL,
    "requested_at" TIMESTAMPTZ(3),
    "next_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "retry_reason" TEXT,
    CONSTRAINT "server_discovery_pkey" PRIMARY KEY ("server_id")
);
ALTER TABLE "server_discovery" ADD CONSTRAINT "server_discovery_server_id_fkey"
    FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "server_discovery" ("server_id", "requested_at", "next_at", "lease_owner", "lease_until")
SELECT "id", "discovery_requested_at", "next_discovery_at", "discovery_lease_owner", "discovery_lease_until" FROM "servers";

-- The scheduler takes due servers in next_at order; the sweep finds expired leases by lease_until.
CREATE INDEX "server_discovery_next_at_idx" ON "server_discovery"("next_at");
CREATE INDEX "server_discovery_lease_until_idx" ON "server_discovery"("lease_until");

DROP INDEX "servers_status_next_discovery_at_idx";
DROP INDEX "servers_discovery_lease_until_idx";
-- The sweep's DISCOVERING servers are found by status.
CREATE INDEX "servers_status_idx" ON "servers"("status");
ALTER TABLE "servers" DROP COLUMN "discovery_requested_at", DROP COLUMN "next_discovery_at",
    DROP COLUMN "discovery_lease_owner", DROP COLUMN "discovery_lease_until";

-- Every server has its discovery row, whatever inserts the server (the API, the platform's sources, a test or a
-- seed writing rows directly): made in the inserting statement, holding nothing yet.
CREATE FUNCTION "server_discovery_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "server_discovery" ("server_id") SELECT "id" FROM "created_servers";
    RETURN NULL;
END
$$;
CREATE TRIGGER "servers_discovery_rows" AFTER INSERT ON "servers"
    REFERENCING NEW TABLE AS "created_servers" FOR EACH STATEMENT EXECUTE FUNCTION "server_discovery_rows"();

-- A change of a server row is a change of the server: no column is left out of the comparison any more.
CREATE OR REPLACE FUNCTION "server_changes_from_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed "servers" := COALESCE(NEW, OLD);
BEGIN
    INSERT INTO "server_changes" ("server_id", "tenant_id", "txid")
    VALUES (changed."id", changed."tenant_id", (pg_current_xact_id()::text)::bigint);
    PERFORM pg_notify('server_changes', '');
    RETURN NULL;
END
$$;

-- A change of a discovery row is bookkeeping. Its row is made and removed with the server's, whose own change
-- is logged then: only updates are logged here, once per changed server, with the owner read by primary key.
CREATE FUNCTION "server_changes_from_server_discovery"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM "changed_discovery") THEN
        RETURN NULL;
    END IF;
    INSERT INTO "server_changes" ("server_id", "tenant_id", "txid", "bookkeeping")
    SELECT c."server_id", s."tenant_id", (pg_current_xact_id()::text)::bigint, true
      FROM "changed_discovery" c
      CROSS JOIN LATERAL (SELECT "tenant_id" FROM "servers" WHERE "id" = c."server_id") s;
    PERFORM pg_notify('server_changes', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER "server_discovery_server_changes" AFTER UPDATE ON "server_discovery"
    REFERENCING NEW TABLE AS "changed_discovery" FOR EACH STATEMENT EXECUTE FUNCTION "server_changes_from_server_discovery"();
