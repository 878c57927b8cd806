-- Virtual servers: a named selection of tools from servers the owner may see (whole servers, or single tools),
-- served as an MCP server of its own at /mcp/v/{id}. tenant_id null: the platform's, built by the administrator
-- from platform servers only. A member row goes with its server (a deleted server leaves every selection).
CREATE TABLE "virtual_servers" (
    "id" UUID NOT NULL,
    "tenant_id" UUID,
    "owner_scope" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "virtual_servers_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "virtual_servers_owner_scope_name_key" ON "virtual_servers"("owner_scope", "name");
CREATE INDEX "virtual_servers_tenant_id_created_at_id_idx" ON "virtual_servers"("tenant_id", "created_at", "id");
ALTER TABLE "virtual_servers" ADD CONSTRAINT "virtual_servers_tenant_id_fkey"
    FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One member in the order given: a whole server (tool_name null) or one of its tools.
CREATE TABLE "virtual_server_members" (
    "virtual_server_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "server_id" UUID NOT NULL,
    "tool_name" TEXT,
    CONSTRAINT "virtual_server_members_pkey" PRIMARY KEY ("virtual_server_id", "position")
);
CREATE INDEX "virtual_server_members_server_id_idx" ON "virtual_server_members"("server_id");
ALTER TABLE "virtual_server_members" ADD CONSTRAINT "virtual_server_members_virtual_server_id_fkey"
    FOREIGN KEY ("virtual_server_id") REFERENCES "virtual_servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "virtual_server_members" ADD CONSTRAINT "virtual_server_members_server_id_fkey"
    FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
