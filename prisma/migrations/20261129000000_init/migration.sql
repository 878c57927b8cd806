-- CreateEnum
CREATE TYPE "ServerKind" AS ENUM ('INTERNAL', 'BUILT_IN', 'CUSTOM', 'EXTERNAL', 'INTEGRATION');

-- CreateEnum
CREATE TYPE "ServerStatus" AS ENUM ('CONNECTED', 'DISCONNECTED', 'ERROR', 'DISCOVERING');

-- CreateEnum
CREATE TYPE "Transport" AS ENUM ('STREAMABLE_HTTP', 'SSE', 'STDIO', 'IN_PROCESS');

-- CreateEnum
CREATE TYPE "DiscoveryOutcome" AS ENUM ('RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED');

-- CreateTable
CREATE TABLE "tenants" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "servers" (
    "id" UUID NOT NULL,
    "tenant_id" UUID,
    "owner_scope" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "ServerKind" NOT NULL,
    "transport" "Transport" NOT NULL,
    "url" TEXT,
    "command" TEXT,
    "args" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "env" JSONB NOT NULL DEFAULT '{}',
    "headers" JSONB NOT NULL DEFAULT '{}',
    "credentials_cipher" TEXT,
    "credentials_env" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "discovery_interval_seconds" INTEGER,
    "app_slug" TEXT,
    "account_id" TEXT,
    "status" "ServerStatus" NOT NULL DEFAULT 'DISCOVERING',
    "status_reason" TEXT,
    "server_name" TEXT,
    "server_title" TEXT,
    "server_version" TEXT,
    "protocol_version" TEXT,
    "instructions" TEXT,
    "capabilities" JSONB,
    "tool_count" INTEGER NOT NULL DEFAULT 0,
    "resource_count" INTEGER,
    "prompt_count" INTEGER,
    "discovery_requested_at" TIMESTAMPTZ(3),
    "last_discovered_at" TIMESTAMPTZ(3),
    "next_discovery_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "servers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tools" (
    "id" UUID NOT NULL,
    "server_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "input_schema" JSONB NOT NULL,
    "output_schema" JSONB,
    "annotations" JSONB,
    "hash" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discovery_runs" (
    "id" UUID NOT NULL,
    "server_id" UUID NOT NULL,
    "trigger" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,
    "outcome" "DiscoveryOutcome" NOT NULL DEFAULT 'RUNNING',
    "error" TEXT,
    "tool_count" INTEGER,
    "added" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "removed" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "changed" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "dropped" JSONB NOT NULL DEFAULT '[]',
    "stderr" TEXT,

    CONSTRAINT "discovery_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "tenant_id" UUID,
    "action" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" TEXT,
    "outcome" TEXT NOT NULL DEFAULT 'ok',
    "duration_ms" INTEGER,
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenants_name_key" ON "tenants"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_idx" ON "api_keys"("tenant_id");

-- CreateIndex
CREATE INDEX "servers_tenant_id_created_at_id_idx" ON "servers"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "servers_status_next_discovery_at_idx" ON "servers"("status", "next_discovery_at");

-- CreateIndex
CREATE UNIQUE INDEX "servers_owner_scope_name_key" ON "servers"("owner_scope", "name");

-- CreateIndex
CREATE UNIQUE INDEX "tools_server_id_name_key" ON "tools"("server_id", "name");

-- CreateIndex
CREATE INDEX "discovery_runs_server_id_started_at_idx" ON "discovery_runs"("server_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_tenant_id_at_idx" ON "audit_events"("tenant_id", "at" DESC);

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "servers" ADD CONSTRAINT "servers_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tools" ADD CONSTRAINT "tools_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discovery_runs" ADD CONSTRAINT "discovery_runs_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
