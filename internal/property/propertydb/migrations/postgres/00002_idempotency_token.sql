-- +goose Up
-- The answer of an Idempotency-Key is now written in the transaction of
-- the effect: token identifies the request holding the claim (a retry that
-- takes an abandoned claim over gets a new one), locked_at when it took it.
ALTER TABLE idempotency_keys ADD COLUMN token TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys ADD COLUMN locked_at TIMESTAMPTZ;
UPDATE idempotency_keys SET locked_at = created_at;
ALTER TABLE idempotency_keys ALTER COLUMN locked_at SET NOT NULL;

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN locked_at;
ALTER TABLE idempotency_keys DROP COLUMN token;
