-- +goose Up
-- Guides join the marketplace by applying: the public profile they ask
-- for (profile: the JSON of guide.ExpertProfile) and a statement for the
-- reviewers, decided on by an admin. Approval copies the profile into
-- users, experts and the tag tables in its own transaction; the catalogue's
-- triggers (00008, 00012, 00013) list the expert from there.
CREATE TABLE expert_applications (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL REFERENCES users (id),
    status           TEXT NOT NULL CHECK (status IN ('pending', 'changes_requested', 'approved', 'rejected')),
    handle           TEXT NOT NULL,
    profile          TEXT NOT NULL,
    statement        TEXT NOT NULL,
    reviewer_id      TEXT REFERENCES users (id),
    reviewer_message TEXT,
    decided_at       TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);
-- One open application per user, and an open application's handle held
-- for it: constraints, so that concurrent applications cannot both pass a
-- read-then-insert check.
CREATE UNIQUE INDEX expert_applications_open_user ON expert_applications (user_id)
    WHERE status IN ('pending', 'changes_requested');
CREATE UNIQUE INDEX expert_applications_open_handle ON expert_applications (handle)
    WHERE status IN ('pending', 'changes_requested');
-- The admins' queue, oldest first under a status; an applicant's latest.
CREATE INDEX expert_applications_queue ON expert_applications (status, created_at, id);
CREATE INDEX expert_applications_user ON expert_applications (user_id, created_at);

-- Verification documents: stored privately in the media store under
-- blob_key (random, never in a URL), read by admins only.
CREATE TABLE expert_application_documents (
    id             TEXT PRIMARY KEY,
    application_id TEXT NOT NULL REFERENCES expert_applications (id),
    blob_key       TEXT NOT NULL,
    content_type   TEXT NOT NULL,
    size           INTEGER NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX expert_application_documents_application ON expert_application_documents (application_id, created_at);

-- +goose Down
DROP TABLE expert_application_documents;
DROP TABLE expert_applications;
