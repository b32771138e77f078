-- +goose Up
-- The authorization server of the MCP endpoint (internal/platform/oauth).
-- A grant is an API key of the person who approved it, marked with the
-- client it was granted to; its tokens die with it.
ALTER TABLE api_keys ADD COLUMN oauth_client_id TEXT;
-- A person holds one live grant per application.
CREATE UNIQUE INDEX api_keys_oauth ON api_keys (user_id, oauth_client_id) WHERE oauth_client_id IS NOT NULL AND revoked_at IS NULL;

-- Applications: registered here (RFC 7591), or described by the metadata
-- document at their id (document), read again an hour after fetched_at.
CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    uri           TEXT NOT NULL,
    redirect_uris JSONB NOT NULL,
    document      BOOLEAN NOT NULL,
    fetched_at    TIMESTAMPTZ NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);

-- Authorization requests: waiting for the person until expires_at, then
-- decided; an approved one holds its code (by hash) until it is used.
CREATE TABLE oauth_requests (
    id              TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    state           TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,
    resource        TEXT NOT NULL,
    scopes          JSONB NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    decided_at      TIMESTAMPTZ,
    grant_id        TEXT,
    code_hash       TEXT UNIQUE,
    code_expires_at TIMESTAMPTZ,
    code_used_at    TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_requests_client ON oauth_requests (client_id);

-- Access and refresh tokens, by hash. chain is the authorization they
-- descend from: a replayed code or refresh token revokes its chain.
CREATE TABLE oauth_tokens (
    hash       TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    grant_id   TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    client_id  TEXT NOT NULL,
    chain      TEXT NOT NULL,
    resource   TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_tokens_chain ON oauth_tokens (chain);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_client ON oauth_tokens (client_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE oauth_requests;
DROP TABLE oauth_clients;
DROP INDEX api_keys_oauth;
ALTER TABLE api_keys DROP COLUMN oauth_client_id;
