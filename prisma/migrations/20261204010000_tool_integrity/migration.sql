-- Tool integrity: a tool is kept with every field the server sent, each definition is approved or held by the
-- server's tool policy, owners override what models read, and each discovery run says which fields changed.

-- open (every definition is served as discovered), pinned (the first discovery's tools are approved, later new
-- or changed definitions wait), approval (every definition waits); and how many definitions wait now.
ALTER TABLE "servers"
    ADD COLUMN "tool_policy" TEXT NOT NULL DEFAULT 'open',
    ADD COLUMN "pending_tool_changes" INTEGER NOT NULL DEFAULT 0;

-- The fields of a definition not kept until now; the decision on the definition as discovered (approved,
-- pending, rejected); the approved definition and its hash while a different one waits (the diff's "before");
-- when the current definition was first seen. Every tool stored so far was served: approved.
ALTER TABLE "tools"
    ADD COLUMN "icons" JSONB,
    ADD COLUMN "execution" JSONB,
    ADD COLUMN "meta" JSONB,
    ADD COLUMN "approval" TEXT NOT NULL DEFAULT 'approved',
    ADD COLUMN "approved_hash" TEXT,
    ADD COLUMN "approved_definition" JSONB,
    ADD COLUMN "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- What the owner put over a tool's definition (title, description, annotations) and whether the tool is disabled,
-- by the tool's name: kept across discoveries, also while the tool is away.
CREATE TABLE "tool_overrides" (
    "server_id" UUID NOT NULL,
    "tool_name" TEXT NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "annotations" JSONB,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tool_overrides_pkey" PRIMARY KEY ("server_id", "tool_name"),
    CONSTRAINT "tool_overrides_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- An override changes what the catalog serves: the same change feed and notification as a change of the tools.
CREATE TRIGGER "tool_overrides_catalog_insert" AFTER INSERT ON "tool_overrides"
    REFERENCING NEW TABLE AS "changed_tools" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_changes_from_tools"();
CREATE TRIGGER "tool_overrides_catalog_update" AFTER UPDATE ON "tool_overrides"
    REFERENCING NEW TABLE AS "changed_tools" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_changes_from_tools"();
CREATE TRIGGER "tool_overrides_catalog_delete" AFTER DELETE ON "tool_overrides"
    REFERENCING OLD TABLE AS "changed_tools" FOR EACH STATEMENT EXECUTE FUNCTION "catalog_changes_from_tools"();

-- Per run: the canonical hash of the whole listing, for each changed tool the fields that changed and its hashes
-- before and after, and the tools whose definition the run held for a decision.
ALTER TABLE "discovery_runs"
    ADD COLUMN "tools_hash" TEXT,
    ADD COLUMN "changes" JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN "held" TEXT[] DEFAULT ARRAY[]::TEXT[];
