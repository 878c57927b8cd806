-- Webhooks: subscriptions to server events, their deliveries and each delivery's attempts.
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL,
    "tenant_id" UUID,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "events" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "server_ids" UUID[] DEFAULT ARRAY[]::UUID[],
    "secret_cipher" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    -- A run of failures: how many attempts in a row, since when; what disables a webhook that keeps failing.
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMPTZ(3),
    "last_failure_at" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhooks_tenant_id_created_at_id_idx" ON "webhooks"("tenant_id", "created_at", "id");
CREATE INDEX "webhooks_created_at_id_idx" ON "webhooks"("created_at", "id");
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One event for one webhook. The rows are the truth of what is owed: the queue only says when to try.
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "webhook_id" UUID NOT NULL,
    "event_id" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_key" ON "webhook_deliveries"("webhook_id", "event_id");
CREATE INDEX "webhook_deliveries_webhook_id_created_at_id_idx" ON "webhook_deliveries"("webhook_id", "created_at" DESC, "id" DESC);
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "server_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_delivery_attempts" (
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "duration_ms" INTEGER,
    "status_code" INTEGER,
    "error" TEXT,
    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("delivery_id", "attempt")
);
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Events not yet turned into deliveries: appended by the trigger below in the event's own transaction (so none is
-- missed whatever order transactions commit in), taken by the dispatcher with FOR UPDATE SKIP LOCKED.
CREATE TABLE "server_event_outbox" (
    "event_id" BIGINT NOT NULL,
    CONSTRAINT "server_event_outbox_pkey" PRIMARY KEY ("event_id")
);
ALTER TABLE "server_event_outbox" ADD CONSTRAINT "server_event_outbox_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "server_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Only while some webhook is enabled: without subscribers an event owes nobody a delivery.
CREATE OR REPLACE FUNCTION "server_event_outbox_append"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM "webhooks" WHERE "enabled") THEN
        INSERT INTO "server_event_outbox" ("event_id") VALUES (NEW."id") ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER "server_events_outbox" AFTER INSERT ON "server_events"
    FOR EACH ROW EXECUTE FUNCTION "server_event_outbox_append"();

-- server.status_changed and server.authorization_required, written in the transaction that changes the server.
-- A status event is about the settled status (CONNECTED, ERROR, DISCONNECTED): DISCOVERING is the way between
-- two of them, and a re-discovery that ends where it started (CONNECTED, DISCOVERING, CONNECTED) is no change.
-- The previous settled status is the last status event's. Text is bounded here; the sender bounds it again.
CREATE OR REPLACE FUNCTION "server_events_from_servers"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    wire TEXT;
    previous TEXT;
    auth TEXT := NEW."oauth_view"->>'status';
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
            'status', 'MCP_SERVER_CONNECTION_STATUS_' || NEW."status"::text, 'reason', left(NEW."status_reason", 1000),
            'authorization', jsonb_build_object('status', auth, 'issuer', left(NEW."oauth_view"->>'issuer', 500))));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER "servers_server_events" AFTER UPDATE OF "status", "oauth_view" ON "servers"
    FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."oauth_view" IS DISTINCT FROM NEW."oauth_view")
    EXECUTE FUNCTION "server_events_from_servers"();

-- server.tools_changed, written in the transaction that closes a successful discovery run which added, removed or
-- changed tools (the first discovery adds them all). At most 100 names of each list; `truncated` says when cut.
CREATE OR REPLACE FUNCTION "server_events_from_discovery_runs"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s RECORD;
BEGIN
    SELECT "id", "tenant_id", "name", "status" INTO s FROM "servers" WHERE "id" = NEW."server_id";
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO "server_events" ("event_id", "server_id", "tenant_id", "type", "data")
    VALUES (gen_random_uuid(), s."id", s."tenant_id", 'server.tools_changed', jsonb_build_object(
        'serverId', s."id", 'tenantId', s."tenant_id", 'name', left(s."name", 200),
        'status', 'MCP_SERVER_CONNECTION_STATUS_' || s."status"::text, 'discoveryRunId', NEW."id", 'toolCount', NEW."tool_count",
        'added', to_jsonb(COALESCE(NEW."added"[1:100], '{}')), 'removed', to_jsonb(COALESCE(NEW."removed"[1:100], '{}')),
        'changed', to_jsonb(COALESCE(NEW."changed"[1:100], '{}')),
        'truncated', COALESCE(cardinality(NEW."added") > 100 OR cardinality(NEW."removed") > 100 OR cardinality(NEW."changed") > 100, false)));
    RETURN NULL;
END
$$;
CREATE TRIGGER "discovery_runs_server_events" AFTER UPDATE OF "outcome" ON "discovery_runs"
    FOR EACH ROW WHEN (NEW."outcome" = 'SUCCEEDED' AND OLD."outcome" IS DISTINCT FROM 'SUCCEEDED'
        AND (cardinality(NEW."added") > 0 OR cardinality(NEW."removed") > 0 OR cardinality(NEW."changed") > 0))
    EXECUTE FUNCTION "server_events_from_discovery_runs"();
