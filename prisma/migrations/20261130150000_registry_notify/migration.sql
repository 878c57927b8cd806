-- Every change to a server row (any column, bookkeeping included) and to a server's tools is also announced
-- on the channel "registry_changes" when its transaction commits, so that each API replica can drop the
-- answers it keeps for that server at once. The payload is "<server id> <tenant id, '-' for the platform,
-- '?' when unknown>". The catalog change feed above stays the durable record; a replica that loses its
-- listening connection drops every kept answer and keeps none until it listens again.
CREATE OR REPLACE FUNCTION "catalog_changes_from_tools"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "catalog_changes" ("server_id", "txid")
    SELECT DISTINCT "server_id", (pg_current_xact_id()::text)::bigint FROM "changed_tools";
    PERFORM pg_notify('registry_changes', c."server_id"::text || ' ' || COALESCE(s."tenant_id"::text, CASE WHEN s."id" IS NULL THEN '?' ELSE '-' END))
       FROM (SELECT DISTINCT "server_id" FROM "changed_tools") c
       LEFT JOIN "servers" s ON s."id" = c."server_id";
    RETURN NULL;
END
$$;

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
    IF TG_OP = 'UPDATE' AND (to_jsonb(OLD) - bookkeeping) = (to_jsonb(NEW) - bookkeeping) THEN
        RETURN NULL;
    END IF;
    INSERT INTO "catalog_changes" ("server_id", "txid") VALUES (NEW."id", (pg_current_xact_id()::text)::bigint);
    RETURN NULL;
END
$$;
