-- What discovery lists besides tools: resources, resource templates and prompts, each in the order the server
-- listed them, bounded and cleaned as tools are. `key` is what identifies an item within its kind (a resource's
-- uri, a template's uriTemplate, a prompt's name); `definition` is the item as the server sent it, cleaned.
CREATE TABLE "server_listings" (
    "server_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    CONSTRAINT "server_listings_pkey" PRIMARY KEY ("server_id", "kind", "position")
);
CREATE UNIQUE INDEX "server_listings_server_id_kind_key_key" ON "server_listings"("server_id", "kind", "key");
ALTER TABLE "server_listings" ADD CONSTRAINT "server_listings_server_id_fkey"
    FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The template count beside the resource and prompt counts, and why a list could not be read whole
-- ({"resources/list": "reason", ...}; null when every declared list was read).
ALTER TABLE "servers" ADD COLUMN "resource_template_count" INTEGER;
ALTER TABLE "servers" ADD COLUMN "listing_errors" JSONB;
