-- +goose Up
-- Jobs with the same concurrency key (a webhook delivery's endpoint) run
-- one at a time: a claim passes over a job whose key has a job leased, so
-- an endpoint that hangs holds one runner slot, never the others'.
ALTER TABLE jobs ADD COLUMN concurrency_key TEXT;
CREATE INDEX jobs_leased_key ON jobs (concurrency_key, locked_until) WHERE concurrency_key IS NOT NULL AND done_at IS NULL;
-- Every attempt of a webhook delivery, for its history in the deliveries
-- list (the delivery's row keeps the latest).
CREATE TABLE webhook_delivery_attempts (
    delivery_id      TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt          INTEGER NOT NULL, -- 1 for the first
    attempted_at     DATETIME NOT NULL,
    response_status  INTEGER,
    latency_ms       INTEGER NOT NULL,
    error            TEXT,
    PRIMARY KEY (delivery_id, attempt)
);
-- Errors recorded before quoted the dial error, which named the address
-- a host name resolved to and the server's resolver: say what failed, as
-- webhook.Describe does now.
UPDATE webhook_deliveries SET last_error = 'address not allowed' WHERE last_error LIKE '%address not allowed%';
UPDATE webhook_deliveries SET last_error = 'name did not resolve' WHERE last_error LIKE '%no such host%' OR last_error LIKE '%lookup %';
UPDATE webhook_deliveries SET last_error = 'connection failed' WHERE last_error LIKE 'Post "%';
UPDATE webhook_endpoints SET status_reason = 'Deliveries failed after retries over more than a day; see the deliveries list.'
    WHERE status_reason LIKE '%the last: Post "%';

-- +goose Down
DROP TABLE webhook_delivery_attempts;
DROP INDEX jobs_leased_key;
ALTER TABLE jobs DROP COLUMN concurrency_key;
