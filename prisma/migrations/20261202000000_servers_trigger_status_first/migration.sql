-- A change of a server's status is a catalog change whatever else changed with it, so the servers trigger
-- decides on the status first and compares the whole row (to_jsonb of both versions, bookkeeping removed) only
-- when the status stayed. Every discovery changes the status twice (claimed: DISCOVERING; recorded: CONNECTED
-- or ERROR), and each of those writes skipped the two row-to-JSON conversions. The outcome is the same as before.
CREATE OR REPLACE FUNCTION "catalog_changes_from_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bookkeeping CONSTANT TEXT[] := ARRAY['discovery_lease_owner', 'discovery_lease_until', 'next_discovery_at',
        'discovery_requested_at', 'status_reason', 'updated_at'];
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('registry_changes', OLD."id"::text || ' ' || COALESCE(OLD."tenant_id"::text, '-'));
        INSERT INTO "catalog_changes" ("server_id", "txid") VALUES (OLD."id", (pg_current_xact_id()::text)::bigint);
        RETURN NULL;
    END IF;
    PERFORM pg_notify('registry_changes', NEW."id"::text || ' ' || COALESCE(NEW."tenant_id"::text, '-'));
    IF TG_OP = 'UPDATE' AND OLD."status" IS NOT DISTINCT FROM NEW."status"
       AND (to_jsonb(OLD) - bookkeeping) = (to_jsonb(NEW) - bookkeeping) THEN
        RETURN NULL;
    END IF;
    INSERT INTO "catalog_changes" ("server_id", "txid") VALUES (NEW."id", (pg_current_xact_id()::text)::bigint);
    RETURN NULL;
END
$$;
