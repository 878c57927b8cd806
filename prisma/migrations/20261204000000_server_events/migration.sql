-- Events about servers, in the order they were committed: the durable log that webhooks deliver from.
-- A row is written in the transaction of the change it describes (both or neither). tenant_id is the server's
-- owner at the time (null for platform servers), so that a tenant's subscriptions see only its own servers.
CREATE TABLE "server_events" (
    "id" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "server_id" UUID NOT NULL,
    "tenant_id" UUID,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "server_events_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "server_events_event_id_key" ON "server_events"("event_id");
CREATE INDEX "server_events_server_id_id_idx" ON "server_events"("server_id", "id");
CREATE INDEX "server_events_at_idx" ON "server_events"("at");
