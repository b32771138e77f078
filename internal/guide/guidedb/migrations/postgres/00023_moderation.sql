-- +goose Up
-- Moderation: reports by signed-in users, and admins hiding reviews,
-- travelogues and packages and suspending experts.
--
-- A hidden or suspended row leaves the catalogue through the flags the
-- catalogue already walks (migrations 00012, 00013): experts.listed is
-- kept as verified, not suspended and the user not deleted; packages.listed
-- as active, not hidden and the expert listed; a travelogue is public
-- while published and not hidden, which its partial indexes and counts
-- now say. Each of these is a column of its own, so the moderation state
-- composes with the owner's (a package an expert archives stays hidden;
-- a reinstated expert's packages come back as they were) and undoing an
-- action only clears its column.
ALTER TABLE experts ADD COLUMN suspended_at TIMESTAMPTZ;
ALTER TABLE packages ADD COLUMN hidden_at TIMESTAMPTZ;
ALTER TABLE travelogues ADD COLUMN hidden_at TIMESTAMPTZ;
-- A hidden review leaves its expert's list and rating (recomputed from the
-- visible reviews in the transaction of the action).
ALTER TABLE reviews ADD COLUMN hidden_at TIMESTAMPTZ;

-- target_id is the identifier the public API shows for the target: the
-- review's or package's id, the travelogue's slug, the expert's handle.
CREATE TABLE reports (
    id          TEXT PRIMARY KEY,
    reporter_id TEXT NOT NULL REFERENCES users (id),
    target_type TEXT NOT NULL CHECK (target_type IN ('review', 'travelogue', 'package', 'expert')),
    target_id   TEXT NOT NULL,
    reason      TEXT NOT NULL,
    text        TEXT,
    status      TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'dismissed')),
    resolved_by TEXT REFERENCES users (id),
    resolution  TEXT,
    resolved_at TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL
);
-- One open report per reporter and target, even under concurrent requests.
CREATE UNIQUE INDEX reports_open_by_reporter ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_status_created ON reports (status, created_at, id);
CREATE INDEX reports_target ON reports (target_type, target_id, status);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION experts_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.listed := NEW.verified_at IS NOT NULL AND NEW.suspended_at IS NULL
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION users_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE experts SET listed = (verified_at IS NOT NULL AND suspended_at IS NULL AND NEW.deleted_at IS NULL) WHERE user_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION experts_listed_copies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.listed IS DISTINCT FROM NEW.listed THEN
        UPDATE packages SET listed = (is_active AND hidden_at IS NULL AND NEW.listed) WHERE expert_id = NEW.id;
    END IF;
    UPDATE expert_languages SET listed = NEW.listed, rating = NEW.rating, review_count = NEW.review_count,
        created_at = NEW.created_at WHERE expert_id = NEW.id;
    UPDATE expert_specialties SET listed = NEW.listed, rating = NEW.rating, review_count = NEW.review_count,
        created_at = NEW.created_at WHERE expert_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION packages_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.listed := NEW.is_active AND NEW.hidden_at IS NULL AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

DROP TRIGGER experts_listed ON experts;
DROP TRIGGER packages_listed ON packages;
CREATE TRIGGER experts_listed BEFORE INSERT OR UPDATE OF verified_at, user_id, suspended_at ON experts
    FOR EACH ROW EXECUTE FUNCTION experts_listed();
CREATE TRIGGER packages_listed BEFORE INSERT OR UPDATE OF is_active, expert_id, hidden_at ON packages
    FOR EACH ROW EXECUTE FUNCTION packages_listed();

-- The count caches of combined filters (catalog_versions) follow the new
-- columns as they follow verified_at, is_active and status.
CREATE TRIGGER experts_catalog_suspended AFTER UPDATE OF suspended_at ON experts
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_bump('experts', 'packages');
CREATE TRIGGER packages_catalog_hidden AFTER UPDATE OF hidden_at ON packages
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_bump('packages');
CREATE TRIGGER travelogues_catalog_hidden AFTER UPDATE OF hidden_at ON travelogues
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_bump('travelogues');

-- A travelogue counts, and is walked, while published and not hidden.
DROP TRIGGER travelogues_counts_insert ON travelogues;
DROP TRIGGER travelogues_counts_update ON travelogues;
DROP TRIGGER travelogues_counts_delete ON travelogues;
CREATE TRIGGER travelogues_counts_insert AFTER INSERT ON travelogues REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_move('travelogues', 'r.status = ''published'' AND r.hidden_at IS NULL', '('''', ''''), (''category'', lower(r.category))');
CREATE TRIGGER travelogues_counts_update AFTER UPDATE ON travelogues REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_move('travelogues', 'r.status = ''published'' AND r.hidden_at IS NULL', '('''', ''''), (''category'', lower(r.category))');
CREATE TRIGGER travelogues_counts_delete AFTER DELETE ON travelogues REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_move('travelogues', 'r.status = ''published'' AND r.hidden_at IS NULL', '('''', ''''), (''category'', lower(r.category))');

DROP INDEX travelogues_published_hot;
DROP INDEX travelogues_published_category_hot;
DROP INDEX travelogues_published_score;
DROP INDEX travelogues_published_category_score;
DROP INDEX travelogues_published_views;
DROP INDEX travelogues_published_category_views;
DROP INDEX travelogues_published_created;
DROP INDEX travelogues_published_category_created;
DROP INDEX travelogues_published_published;
DROP INDEX travelogues_published_category_published;
CREATE INDEX travelogues_published_hot ON travelogues (hot_score, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_category_hot ON travelogues (lower(category), hot_score, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_score ON travelogues (score, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_category_score ON travelogues (lower(category), score, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_views ON travelogues (view_count, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_category_views ON travelogues (lower(category), view_count, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_created ON travelogues (created_at, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_category_created ON travelogues (lower(category), created_at, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_published ON travelogues (published_at, id) WHERE status = 'published' AND hidden_at IS NULL;
CREATE INDEX travelogues_published_category_published ON travelogues (lower(category), published_at, id) WHERE status = 'published' AND hidden_at IS NULL;


-- +goose Down

DROP INDEX travelogues_published_hot;
DROP INDEX travelogues_published_category_hot;
DROP INDEX travelogues_published_score;
DROP INDEX travelogues_published_category_score;
DROP INDEX travelogues_published_views;
DROP INDEX travelogues_published_category_views;
DROP INDEX travelogues_published_created;
DROP INDEX travelogues_published_category_created;
DROP INDEX travelogues_published_published;
DROP INDEX travelogues_published_category_published;
CREATE INDEX travelogues_published_hot ON travelogues (hot_score, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_hot ON travelogues (lower(category), hot_score, id) WHERE status = 'published';
CREATE INDEX travelogues_published_score ON travelogues (score, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_score ON travelogues (lower(category), score, id) WHERE status = 'published';
CREATE INDEX travelogues_published_views ON travelogues (view_count, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_views ON travelogues (lower(category), view_count, id) WHERE status = 'published';
CREATE INDEX travelogues_published_created ON travelogues (created_at, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_created ON travelogues (lower(category), created_at, id) WHERE status = 'published';
CREATE INDEX travelogues_published_published ON travelogues (published_at, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_published ON travelogues (lower(category), published_at, id) WHERE status = 'published';
DROP TRIGGER travelogues_counts_insert ON travelogues;
DROP TRIGGER travelogues_counts_update ON travelogues;
DROP TRIGGER travelogues_counts_delete ON travelogues;
CREATE TRIGGER travelogues_counts_insert AFTER INSERT ON travelogues REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_move('travelogues', 'r.status = ''published''', '('''', ''''), (''category'', lower(r.category))');
CREATE TRIGGER travelogues_counts_update AFTER UPDATE ON travelogues REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_move('travelogues', 'r.status = ''published''', '('''', ''''), (''category'', lower(r.category))');
CREATE TRIGGER travelogues_counts_delete AFTER DELETE ON travelogues REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_move('travelogues', 'r.status = ''published''', '('''', ''''), (''category'', lower(r.category))');
DROP TRIGGER experts_catalog_suspended ON experts;
DROP TRIGGER packages_catalog_hidden ON packages;
DROP TRIGGER travelogues_catalog_hidden ON travelogues;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION experts_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.listed := NEW.verified_at IS NOT NULL AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION users_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE experts SET listed = (verified_at IS NOT NULL AND NEW.deleted_at IS NULL) WHERE user_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION experts_listed_copies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.listed IS DISTINCT FROM NEW.listed THEN
        UPDATE packages SET listed = (is_active AND NEW.listed) WHERE expert_id = NEW.id;
    END IF;
    UPDATE expert_languages SET listed = NEW.listed, rating = NEW.rating, review_count = NEW.review_count,
        created_at = NEW.created_at WHERE expert_id = NEW.id;
    UPDATE expert_specialties SET listed = NEW.listed, rating = NEW.rating, review_count = NEW.review_count,
        created_at = NEW.created_at WHERE expert_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION packages_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.listed := NEW.is_active AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

DROP TRIGGER experts_listed ON experts;
DROP TRIGGER packages_listed ON packages;
CREATE TRIGGER experts_listed BEFORE INSERT OR UPDATE OF verified_at, user_id ON experts
    FOR EACH ROW EXECUTE FUNCTION experts_listed();
CREATE TRIGGER packages_listed BEFORE INSERT OR UPDATE OF is_active, expert_id ON packages
    FOR EACH ROW EXECUTE FUNCTION packages_listed();
DROP TABLE reports;
ALTER TABLE reviews DROP COLUMN hidden_at;
ALTER TABLE travelogues DROP COLUMN hidden_at;
ALTER TABLE packages DROP COLUMN hidden_at;
ALTER TABLE experts DROP COLUMN suspended_at;
