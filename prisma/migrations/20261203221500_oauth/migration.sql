-- Upstream OAuth 2.1: servers that require authorization, the clients the registry registers with their
-- authorization servers, the tokens it holds for each server, and the authorization requests under way.

-- What the registration said (`auth`, without its secret), the client secret sealed like other credentials,
-- and the authorization as the server view shows it ({status, issuer?, scopes?, expiresAt?}).
ALTER TABLE "servers"
    ADD COLUMN "oauth_config" JSONB,
    ADD COLUMN "oauth_client_secret_cipher" TEXT,
    ADD COLUMN "oauth_view" JSONB NOT NULL DEFAULT '{"status":"none"}';

-- One client per authorization server (issuer) and redirect URI, reused by every server on that issuer:
-- registered dynamically (RFC 7591) or named by the registry's client ID metadata document.
CREATE TABLE "oauth_clients" (
    "id" UUID NOT NULL,
    "issuer" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_cipher" TEXT,
    "token_endpoint_auth_method" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "oauth_clients_issuer_redirect_uri_key" ON "oauth_clients"("issuer", "redirect_uri");

-- A server's authorization state: what detection found (resource, issuer, the authorization server's endpoints,
-- the scopes asked for) and the tokens, sealed under the server's id. The row is locked around a refresh.
CREATE TABLE "server_oauth" (
    "server_id" UUID NOT NULL,
    "resource" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "as_metadata" JSONB NOT NULL,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tokens_cipher" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "obtained_at" TIMESTAMPTZ(3),
    "client_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "server_oauth_pkey" PRIMARY KEY ("server_id"),
    CONSTRAINT "server_oauth_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- An authorization sent to a person: found by the hash of its state (single use), bound to the server and the
-- key that asked, with the PKCE verifier sealed, short-lived.
CREATE TABLE "oauth_requests" (
    "state_hash" TEXT NOT NULL,
    "server_id" UUID NOT NULL,
    "tenant_id" UUID,
    "actor_id" TEXT NOT NULL,
    "verifier_cipher" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "oauth_requests_pkey" PRIMARY KEY ("state_hash"),
    CONSTRAINT "oauth_requests_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "servers"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "oauth_requests_expires_at_idx" ON "oauth_requests"("expires_at");
