-- The catalog: published server descriptions (server.json, schema 2025-12-11), stored as given. An entry is not a
-- running server; the admin or a tenant turns one of its remotes or packages into a server. tenant_id is null for
-- the platform's entries; source_id names the upstream registry an entry was synced from (null when imported).
CREATE TABLE "catalog_sources" (
    "id" UUID NOT NULL,
    "base_url" TEXT NOT NULL,
    "interval_seconds" INTEGER NOT NULL,
    "last_sync_at" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    "last_outcome" TEXT,
    "last_reason" TEXT,
    "cursor_updated_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "catalog_sources_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "catalog_sources_base_url_key" ON "catalog_sources"("base_url");

CREATE TABLE "catalog_entries" (
    "id" UUID NOT NULL,
    "tenant_id" UUID,
    "owner_scope" TEXT NOT NULL,
    "source_id" UUID,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "is_latest" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'active',
    "status_message" TEXT,
    "server_json" JSONB NOT NULL,
    "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "catalog_entries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "catalog_entries_status_check" CHECK ("status" IN ('active', 'deprecated', 'deleted'))
);
CREATE UNIQUE INDEX "catalog_entries_owner_scope_name_version_key" ON "catalog_entries"("owner_scope", "name", "version");
CREATE INDEX "catalog_entries_updated_at_id_idx" ON "catalog_entries"("updated_at", "id");
CREATE INDEX "catalog_entries_name_idx" ON "catalog_entries"("name");
ALTER TABLE "catalog_entries" ADD CONSTRAINT "catalog_entries_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "catalog_entries" ADD CONSTRAINT "catalog_entries_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "catalog_sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;
