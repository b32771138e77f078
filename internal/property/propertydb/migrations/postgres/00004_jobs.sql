-- +goose Up
-- Deferred work of the property platform: the same queue as the guide's
-- (store.Jobs), claimed by workers and retried with backoff until done_at
-- is set or attempts run out.
CREATE TABLE jobs (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    payload      JSONB NOT NULL DEFAULT '{}',
    run_at       TIMESTAMPTZ NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    locked_until TIMESTAMPTZ,
    last_error   TEXT,
    done_at      TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX jobs_due ON jobs (done_at, run_at);

-- +goose Down
DROP TABLE jobs;
