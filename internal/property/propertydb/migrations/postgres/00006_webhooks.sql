-- +goose Up
-- Webhook endpoints: each receives the events of its audience (the same
-- keys as event_audience) whose type it subscribed to. The secret signs
-- deliveries (Standard Webhooks); after a rotation the previous secret
-- signs too until previous_secret_until.
CREATE TABLE webhook_endpoints (
    id                    TEXT PRIMARY KEY,
    owner                 TEXT NOT NULL,
    audience              TEXT NOT NULL,
    url                   TEXT NOT NULL,
    types                 TEXT NOT NULL DEFAULT '', -- comma-separated; '' is every type
    description           TEXT,
    secret                TEXT NOT NULL,
    previous_secret       TEXT,
    previous_secret_until TIMESTAMPTZ,
    status                TEXT NOT NULL DEFAULT 'active', -- active, failing, disabled
    status_reason         TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (owner, created_at);
CREATE INDEX webhook_endpoints_audience ON webhook_endpoints (audience);
-- One delivery of an event (or a test ping) to an endpoint, sent by a job
-- of kind webhook.deliver; the row keeps its latest attempt.
CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         TEXT NOT NULL,
    event_type       TEXT NOT NULL,
    payload          TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending', -- pending, succeeded, failed
    attempts         INTEGER NOT NULL DEFAULT 0,
    response_status  INTEGER,
    latency_ms       INTEGER,
    last_error       TEXT,
    next_attempt_at  TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    delivered_at     TIMESTAMPTZ
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
