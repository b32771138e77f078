-- +goose Up
-- What admins do (application decisions, moderation): who, when, to what
-- and why. Rows are never changed; a reversal is an entry of its own.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    actor_id    TEXT NOT NULL REFERENCES users (id),
    action      TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    reason      TEXT,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_log_created ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_target ON audit_log (target_type, target_id, created_at);

-- +goose Down
DROP TABLE audit_log;
