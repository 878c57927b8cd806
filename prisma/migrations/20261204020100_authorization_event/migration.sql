-- server.authorization_required is written when the server's authorization view turns `required` or `expired`,
-- which detection does during a discovery (the server still DISCOVERING, its status reason not yet written): the
-- event says what it is about and what to do itself, instead of quoting a status and reason of that moment.
CREATE OR REPLACE FUNCTION "server_events_from_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    wire TEXT;
    previous TEXT;
    auth TEXT := NEW."oauth_view"->>'status';
    issuer TEXT := left(NEW."oauth_view"->>'issuer', 500);
BEGIN
    IF NEW."status" IS DISTINCT FROM OLD."status" AND NEW."status" <> 'DISCOVERING' THEN
        wire := 'MCP_SERVER_CONNECTION_STATUS_' || NEW."status"::text;
        SELECT e."data"->>'status' INTO previous FROM "server_events" e
         WHERE e."server_id" = NEW."id" AND e."type" = 'server.status_changed'
         ORDER BY e."id" DESC LIMIT 1;
        IF previous IS DISTINCT FROM wire THEN
            INSERT INTO "server_events" ("event_id", "server_id", "tenant_id", "type", "data")
            VALUES (gen_random_uuid(), NEW."id", NEW."tenant_id", 'server.status_changed', jsonb_build_object(
                'serverId', NEW."id", 'tenantId', NEW."tenant_id", 'name', left(NEW."name", 200),
                'status', wire, 'previousStatus', previous, 'reason', left(NEW."status_reason", 1000)));
        END IF;
    END IF;
    IF auth IN ('required', 'expired') AND auth IS DISTINCT FROM (OLD."oauth_view"->>'status') THEN
        INSERT INTO "server_events" ("event_id", "server_id", "tenant_id", "type", "data")
        VALUES (gen_random_uuid(), NEW."id", NEW."tenant_id", 'server.authorization_required', jsonb_build_object(
            'serverId', NEW."id", 'tenantId', NEW."tenant_id", 'name', left(NEW."name", 200),
            'authorization', jsonb_build_object('status', auth, 'issuer', issuer,
                'scopes', CASE WHEN jsonb_typeof(NEW."oauth_view"->'scopes') = 'array' THEN NEW."oauth_view"->'scopes' ELSE '[]'::jsonb END),
            'reason', CASE WHEN auth = 'expired'
                THEN 'authorization expired: the authorization server refused to renew the token; authorize again with POST /api/v1/servers/' || NEW."id" || '/authorize'
                ELSE 'authorization required: the server is protected by OAuth (authorization server ' || COALESCE(issuer, 'unknown') ||
                     '); its owner authorizes it with POST /api/v1/servers/' || NEW."id" || '/authorize' END));
    END IF;
    RETURN NULL;
END
$$;
