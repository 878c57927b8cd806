-- A virtual server's own changes join the one change feed: made, renamed or described, its members replaced (which
-- decides its tools and their prefixes), deleted. Each is logged with the virtual server's owner in the writer's
-- transaction and wakes the readers on the channel "server_changes", as a server's change does, so that every
-- replica's open /mcp/v/{id} streams hear of it without reading anything between changes. A row of the log names
-- a server or a virtual server, never both.
ALTER TABLE "server_changes" ALTER COLUMN "server_id" DROP NOT NULL;
ALTER TABLE "server_changes" ADD COLUMN "virtual_server_id" UUID;
ALTER TABLE "server_changes" ADD CONSTRAINT "server_changes_one_subject" CHECK (("server_id" IS NULL) <> ("virtual_server_id" IS NULL));

CREATE FUNCTION "server_changes_from_virtual_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed "virtual_servers" := COALESCE(NEW, OLD);
BEGIN
    INSERT INTO "server_changes" ("virtual_server_id", "tenant_id", "txid")
    VALUES (changed."id", changed."tenant_id", (pg_current_xact_id()::text)::bigint);
    PERFORM pg_notify('server_changes', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER "virtual_servers_server_changes" AFTER INSERT OR UPDATE OR DELETE ON "virtual_servers"
    FOR EACH ROW EXECUTE FUNCTION "server_changes_from_virtual_servers"();

-- Members, once per statement and virtual server, with the owner read by primary key. Members removed with their
-- virtual server are not logged again (its own deletion is); members removed with a deleted server are (the
-- selection changed).
CREATE FUNCTION "server_changes_from_virtual_server_members"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM "changed_members") THEN
        RETURN NULL;
    END IF;
    INSERT INTO "server_changes" ("virtual_server_id", "tenant_id", "txid")
    SELECT c."virtual_server_id", v."tenant_id", (pg_current_xact_id()::text)::bigint
      FROM (SELECT DISTINCT "virtual_server_id" FROM "changed_members") c
      CROSS JOIN LATERAL (SELECT "tenant_id" FROM "virtual_servers" WHERE "id" = c."virtual_server_id") v;
    PERFORM pg_notify('server_changes', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER "virtual_server_members_server_changes_insert" AFTER INSERT ON "virtual_server_members"
    REFERENCING NEW TABLE AS "changed_members" FOR EACH STATEMENT EXECUTE FUNCTION "server_changes_from_virtual_server_members"();
CREATE TRIGGER "virtual_server_members_server_changes_update" AFTER UPDATE ON "virtual_server_members"
    REFERENCING NEW TABLE AS "changed_members" FOR EACH STATEMENT EXECUTE FUNCTION "server_changes_from_virtual_server_members"();
CREATE TRIGGER "virtual_server_members_server_changes_delete" AFTER DELETE ON "virtual_server_members"
    REFERENCING OLD TABLE AS "changed_members" FOR EACH STATEMENT EXECUTE FUNCTION "server_changes_from_virtual_server_members"();
