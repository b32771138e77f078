-- +goose Up
-- The blob key of the uploaded avatar, so that a replaced or closed
-- account's file can be removed.
ALTER TABLE users ADD COLUMN avatar_key TEXT;

-- +goose Down
ALTER TABLE users DROP COLUMN avatar_key;
