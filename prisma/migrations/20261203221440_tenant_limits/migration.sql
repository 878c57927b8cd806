-- A tenant's own limits, set by the platform administrator (PATCH /api/v1/tenants/{id}): an object of the limits
-- it overrides ({"maxServers": 500}); a limit it does not name takes the platform default from the configuration.
ALTER TABLE "tenants" ADD COLUMN "limits" JSONB NOT NULL DEFAULT '{}';
