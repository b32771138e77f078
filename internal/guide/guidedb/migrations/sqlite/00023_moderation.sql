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
ALTER TABLE experts ADD COLUMN suspended_at DATETIME;
ALTER TABLE packages ADD COLUMN hidden_at DATETIME;
ALTER TABLE travelogues ADD COLUMN hidden_at DATETIME;
-- A hidden review leaves its expert's list and rating (recomputed from the
-- visible reviews in the transaction of the action).
ALTER TABLE reviews ADD COLUMN hidden_at DATETIME;

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
    resolved_at DATETIME,
    created_at  DATETIME NOT NULL
);
-- One open report per reporter and target, even under concurrent requests.
CREATE UNIQUE INDEX reports_open_by_reporter ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_status_created ON reports (status, created_at, id);
CREATE INDEX reports_target ON reports (target_type, target_id, status);

DROP TRIGGER experts_listed_insert;
DROP TRIGGER experts_listed_update;
DROP TRIGGER users_listed;
DROP TRIGGER experts_listed_packages;
DROP TRIGGER packages_listed_insert;
DROP TRIGGER packages_listed_update;

-- +goose StatementBegin
CREATE TRIGGER experts_listed_insert AFTER INSERT ON experts BEGIN
    UPDATE experts SET listed = (NEW.verified_at IS NOT NULL AND NEW.suspended_at IS NULL
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER experts_listed_update AFTER UPDATE OF verified_at, user_id, suspended_at ON experts BEGIN
    UPDATE experts SET listed = (NEW.verified_at IS NOT NULL AND NEW.suspended_at IS NULL
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER users_listed AFTER UPDATE OF deleted_at ON users BEGIN
    UPDATE experts SET listed = (verified_at IS NOT NULL AND suspended_at IS NULL AND NEW.deleted_at IS NULL) WHERE user_id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER experts_listed_packages AFTER UPDATE OF listed ON experts WHEN OLD.listed IS NOT NEW.listed BEGIN
    UPDATE packages SET listed = (is_active = TRUE AND hidden_at IS NULL AND NEW.listed = TRUE) WHERE expert_id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_listed_insert AFTER INSERT ON packages BEGIN
    UPDATE packages SET listed = (NEW.is_active = TRUE AND NEW.hidden_at IS NULL
        AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed = TRUE))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_listed_update AFTER UPDATE OF is_active, expert_id, hidden_at ON packages BEGIN
    UPDATE packages SET listed = (NEW.is_active = TRUE AND NEW.hidden_at IS NULL
        AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed = TRUE))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- The count caches of combined filters (catalog_versions) follow the new
-- columns as they follow verified_at, is_active and status.
-- +goose StatementBegin
CREATE TRIGGER experts_catalog_suspended AFTER UPDATE OF suspended_at ON experts BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts', 'packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_catalog_hidden AFTER UPDATE OF hidden_at ON packages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER travelogues_catalog_hidden AFTER UPDATE OF hidden_at ON travelogues BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('travelogues');
END;
-- +goose StatementEnd

-- A travelogue counts, and is walked, while published and not hidden.
DROP TRIGGER travelogues_counts_insert;
DROP TRIGGER travelogues_counts_update;
DROP TRIGGER travelogues_counts_delete;

-- +goose StatementBegin
CREATE TRIGGER travelogues_counts_insert AFTER INSERT ON travelogues BEGIN
    INSERT OR IGNORE INTO catalog_counts (list, filter, value, n)
        SELECT 'travelogues', f, v, 0 FROM (SELECT 'category' AS f, lower(NEW.category) AS v)
        WHERE NEW.status = 'published' AND NEW.hidden_at IS NULL AND v IS NOT NULL;
    UPDATE catalog_counts SET n = n + 1 WHERE NEW.status = 'published' AND NEW.hidden_at IS NULL AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(NEW.category)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER travelogues_counts_update AFTER UPDATE OF status, category, hidden_at ON travelogues
WHEN OLD.status IS NOT NEW.status OR OLD.category IS NOT NEW.category OR OLD.hidden_at IS NOT NEW.hidden_at BEGIN
    UPDATE catalog_counts SET n = n - 1 WHERE OLD.status = 'published' AND OLD.hidden_at IS NULL AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(OLD.category)));
    INSERT OR IGNORE INTO catalog_counts (list, filter, value, n)
        SELECT 'travelogues', f, v, 0 FROM (SELECT 'category' AS f, lower(NEW.category) AS v)
        WHERE NEW.status = 'published' AND NEW.hidden_at IS NULL AND v IS NOT NULL;
    UPDATE catalog_counts SET n = n + 1 WHERE NEW.status = 'published' AND NEW.hidden_at IS NULL AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(NEW.category)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER travelogues_counts_delete AFTER DELETE ON travelogues BEGIN
    UPDATE catalog_counts SET n = n - 1 WHERE OLD.status = 'published' AND OLD.hidden_at IS NULL AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(OLD.category)));
END;
-- +goose StatementEnd

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
DROP TRIGGER travelogues_counts_insert;
DROP TRIGGER travelogues_counts_update;
DROP TRIGGER travelogues_counts_delete;
-- +goose StatementBegin
CREATE TRIGGER travelogues_counts_insert AFTER INSERT ON travelogues BEGIN
    INSERT OR IGNORE INTO catalog_counts (list, filter, value, n)
        SELECT 'travelogues', f, v, 0 FROM (SELECT 'category' AS f, lower(NEW.category) AS v) WHERE NEW.status = 'published' AND v IS NOT NULL;
    UPDATE catalog_counts SET n = n + 1 WHERE NEW.status = 'published' AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(NEW.category)));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER travelogues_counts_update AFTER UPDATE OF status, category ON travelogues WHEN OLD.status IS NOT NEW.status OR OLD.category IS NOT NEW.category BEGIN
    UPDATE catalog_counts SET n = n - 1 WHERE OLD.status = 'published' AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(OLD.category)));
    INSERT OR IGNORE INTO catalog_counts (list, filter, value, n)
        SELECT 'travelogues', f, v, 0 FROM (SELECT 'category' AS f, lower(NEW.category) AS v) WHERE NEW.status = 'published' AND v IS NOT NULL;
    UPDATE catalog_counts SET n = n + 1 WHERE NEW.status = 'published' AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(NEW.category)));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER travelogues_counts_delete AFTER DELETE ON travelogues BEGIN
    UPDATE catalog_counts SET n = n - 1 WHERE OLD.status = 'published' AND list = 'travelogues'
        AND ((filter = '' AND value = '') OR (filter = 'category' AND value = lower(OLD.category)));
END;
-- +goose StatementEnd
DROP TRIGGER experts_catalog_suspended;
DROP TRIGGER packages_catalog_hidden;
DROP TRIGGER travelogues_catalog_hidden;
DROP TRIGGER experts_listed_insert;
DROP TRIGGER experts_listed_update;
DROP TRIGGER users_listed;
DROP TRIGGER experts_listed_packages;
DROP TRIGGER packages_listed_insert;
DROP TRIGGER packages_listed_update;
-- +goose StatementBegin
CREATE TRIGGER experts_listed_insert AFTER INSERT ON experts BEGIN
    UPDATE experts SET listed = (NEW.verified_at IS NOT NULL
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER experts_listed_update AFTER UPDATE OF verified_at, user_id ON experts BEGIN
    UPDATE experts SET listed = (NEW.verified_at IS NOT NULL
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_listed AFTER UPDATE OF deleted_at ON users BEGIN
    UPDATE experts SET listed = (verified_at IS NOT NULL AND NEW.deleted_at IS NULL) WHERE user_id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER experts_listed_packages AFTER UPDATE OF listed ON experts WHEN OLD.listed IS NOT NEW.listed BEGIN
    UPDATE packages SET listed = (is_active = TRUE AND NEW.listed = TRUE) WHERE expert_id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER packages_listed_insert AFTER INSERT ON packages BEGIN
    UPDATE packages SET listed = (NEW.is_active = TRUE
        AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed = TRUE))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER packages_listed_update AFTER UPDATE OF is_active, expert_id ON packages BEGIN
    UPDATE packages SET listed = (NEW.is_active = TRUE
        AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed = TRUE))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd
DROP TABLE reports;
ALTER TABLE reviews DROP COLUMN hidden_at;
ALTER TABLE travelogues DROP COLUMN hidden_at;
ALTER TABLE packages DROP COLUMN hidden_at;
ALTER TABLE experts DROP COLUMN suspended_at;
