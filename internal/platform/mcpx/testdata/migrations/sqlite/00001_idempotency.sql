-- +goose Up
-- Idempotency-Key records, as each product's migrations create them, for
-- the tests of the MCP door's writes.
CREATE TABLE idempotency_keys (
    account         TEXT NOT NULL,
    key             TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('in_progress', 'done')),
    token           TEXT NOT NULL,
    response_status INTEGER,
    response_body   BLOB,
    created_at      DATETIME NOT NULL,
    locked_at       DATETIME NOT NULL,
    PRIMARY KEY (account, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
