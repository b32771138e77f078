-- +goose Up
-- Any user writes travelogues; an author's own list (drafts included,
-- the last changed first) walks this index.
CREATE INDEX travelogues_author_updated ON travelogues (author_id, updated_at, id);

-- +goose Down
DROP INDEX travelogues_author_updated;
