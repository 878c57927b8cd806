-- The tools triggers looked up each changed server's tenant with a join that PostgreSQL planned as a scan of the
-- whole servers table (it cannot know how few rows a transition table holds): a discovery's write cost grew with
-- the number of servers registered. The tenant is now read by primary key, once per changed server, and a
-- statement that changed no tool (the UPDATE and DELETE triggers of most writes) returns at once.
CREATE OR REPLACE FUNCTION "catalog_changes_from_tools"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM "changed_tools") THEN
        RETURN NULL;
    END IF;
    INSERT INTO "catalog_changes" ("server_id", "txid")
    SELECT DISTINCT "server_id", (pg_current_xact_id()::text)::bigint FROM "changed_tools";
    PERFORM pg_notify('registry_changes', c."server_id"::text || ' ' ||
            COALESCE((SELECT COALESCE(s."tenant_id"::text, '-') FROM "servers" s WHERE s."id" = c."server_id"), '?'))
       FROM (SELECT DISTINCT "server_id" FROM "changed_tools") c;
    RETURN NULL;
END
$$;
