-- +goose Up
-- Catalogue list pages whose cost does not grow with the catalogue.
--
-- Each documented sort of a list (and each sort under the country or
-- category filter) has a partial index holding only the rows the public
-- sees, in the order of the sort with id as the tie-break, and the column
-- the page joins on: a page of ORDER BY col, id LIMIT 20 OFFSET k walks
-- the index from one end and stops after k+20 matches, whatever the size
-- of the table (see the plan comments in internal/guide/guidedb/catalog.go
-- and the plan test). The indexes replace packages_active_created and
-- travelogues_status_hot.
--
-- meta.total comes from a count cache (guidedb.countCache) validated by
-- catalog_versions: every write that can change which rows a list shows
-- bumps the list's version in its own transaction (the triggers below), so
-- a cached count is used only while its version is current.
CREATE TABLE catalog_versions (
    name    TEXT PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO catalog_versions (name, version) VALUES ('experts', 0), ('packages', 0), ('travelogues', 0);

DROP INDEX packages_active_created;
DROP INDEX travelogues_status_hot;
-- The language and specialty filters compare lower(...): these indexes
-- serve a rare tag, and give PostgreSQL's planner the statistics of the
-- expressions, so it walks the sort's index for a common one.
CREATE INDEX expert_languages_lower ON expert_languages (lower(language), expert_id);
CREATE INDEX expert_specialties_lower ON expert_specialties (lower(specialty), expert_id);
CREATE INDEX experts_public_rating ON experts (rating, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_country_rating ON experts (country_code, rating, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_reviews ON experts (review_count, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_country_reviews ON experts (country_code, review_count, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_created ON experts (created_at, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_country_created ON experts (country_code, created_at, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX packages_active_price ON packages (base_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_price ON packages (lower(category), base_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_price ON packages (country_code, base_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_duration ON packages (duration, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_duration ON packages (lower(category), duration, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_duration ON packages (country_code, duration, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_created ON packages (created_at, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_created ON packages (lower(category), created_at, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_created ON packages (country_code, created_at, id, expert_id) WHERE is_active = TRUE;
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

-- +goose StatementBegin
CREATE TRIGGER users_catalog_update AFTER UPDATE OF deleted_at ON users BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts', 'packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER users_catalog_delete AFTER DELETE ON users BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts', 'packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER experts_catalog_insert AFTER INSERT ON experts BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts', 'packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER experts_catalog_update AFTER UPDATE OF verified_at, location, country_code, user_id ON experts BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts', 'packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER experts_catalog_delete AFTER DELETE ON experts BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts', 'packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_languages_catalog_insert AFTER INSERT ON expert_languages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_languages_catalog_update AFTER UPDATE OF language, expert_id ON expert_languages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_languages_catalog_delete AFTER DELETE ON expert_languages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_specialties_catalog_insert AFTER INSERT ON expert_specialties BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_specialties_catalog_update AFTER UPDATE OF specialty, expert_id ON expert_specialties BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_specialties_catalog_delete AFTER DELETE ON expert_specialties BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('experts');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_catalog_insert AFTER INSERT ON packages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_catalog_update AFTER UPDATE OF is_active, category, country_code, expert_id ON packages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_catalog_delete AFTER DELETE ON packages BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('packages');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER travelogues_catalog_insert AFTER INSERT ON travelogues BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('travelogues');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER travelogues_catalog_update AFTER UPDATE OF status, category ON travelogues BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('travelogues');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER travelogues_catalog_delete AFTER DELETE ON travelogues BEGIN
    UPDATE catalog_versions SET version = version + 1 WHERE name IN ('travelogues');
END;
-- +goose StatementEnd

-- +goose Down
DROP INDEX expert_languages_lower;
DROP INDEX expert_specialties_lower;
DROP TRIGGER users_catalog_update;
DROP TRIGGER users_catalog_delete;
DROP TRIGGER experts_catalog_insert;
DROP TRIGGER experts_catalog_update;
DROP TRIGGER experts_catalog_delete;
DROP TRIGGER expert_languages_catalog_insert;
DROP TRIGGER expert_languages_catalog_update;
DROP TRIGGER expert_languages_catalog_delete;
DROP TRIGGER expert_specialties_catalog_insert;
DROP TRIGGER expert_specialties_catalog_update;
DROP TRIGGER expert_specialties_catalog_delete;
DROP TRIGGER packages_catalog_insert;
DROP TRIGGER packages_catalog_update;
DROP TRIGGER packages_catalog_delete;
DROP TRIGGER travelogues_catalog_insert;
DROP TRIGGER travelogues_catalog_update;
DROP TRIGGER travelogues_catalog_delete;
DROP INDEX experts_public_rating;
DROP INDEX experts_public_country_rating;
DROP INDEX experts_public_reviews;
DROP INDEX experts_public_country_reviews;
DROP INDEX experts_public_created;
DROP INDEX experts_public_country_created;
DROP INDEX packages_active_price;
DROP INDEX packages_active_category_price;
DROP INDEX packages_active_country_price;
DROP INDEX packages_active_duration;
DROP INDEX packages_active_category_duration;
DROP INDEX packages_active_country_duration;
DROP INDEX packages_active_created;
DROP INDEX packages_active_category_created;
DROP INDEX packages_active_country_created;
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
CREATE INDEX packages_active_created ON packages (is_active, created_at);
CREATE INDEX travelogues_status_hot ON travelogues (status, hot_score);
DROP TABLE catalog_versions;
