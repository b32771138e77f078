-- +goose Up
-- Catalogue pages that walk only what the public sees.
--
-- experts.listed (verified, its user not deleted) and packages.listed
-- (active, its expert listed) are kept by the triggers below, so a list
-- page walks a partial index of listed rows and checks no user or expert
-- on the way: 00008's indexes cost a user lookup (and for packages an
-- expert lookup too) per entry, 1,000 of them on page 50.
--
-- The language and specialty filters are served from the tag tables:
-- each tag row carries a copy of its expert's listed flag and sort
-- columns (rating, review_count, created_at), kept by the same triggers,
-- and a partial index per sort in the tag's order. A page under a tag
-- walks only the experts that have it, where walking the sort's index of
-- all experts visited (offset + 20) × all / matching entries. The city
-- filter walks experts_listed_city_<sort> for the one city it matches.
ALTER TABLE experts ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE experts SET listed = (verified_at IS NOT NULL
    AND EXISTS (SELECT 1 FROM users u WHERE u.id = experts.user_id AND u.deleted_at IS NULL));
ALTER TABLE packages ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE packages SET listed = (is_active = TRUE
    AND EXISTS (SELECT 1 FROM experts e WHERE e.id = packages.expert_id AND e.listed = TRUE));
ALTER TABLE expert_languages ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE expert_languages ADD COLUMN rating REAL NOT NULL DEFAULT 0;
ALTER TABLE expert_languages ADD COLUMN review_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE expert_languages ADD COLUMN created_at DATETIME;
UPDATE expert_languages SET (listed, rating, review_count, created_at) =
    (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = expert_languages.expert_id);
ALTER TABLE expert_specialties ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE expert_specialties ADD COLUMN rating REAL NOT NULL DEFAULT 0;
ALTER TABLE expert_specialties ADD COLUMN review_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE expert_specialties ADD COLUMN created_at DATETIME;
UPDATE expert_specialties SET (listed, rating, review_count, created_at) =
    (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = expert_specialties.expert_id);

-- A tag filter compares lower(tag): an expert holds a tag once in any
-- case, so a page walked from the tag's index lists an expert once.
CREATE UNIQUE INDEX expert_languages_expert_lower ON expert_languages (expert_id, lower(language));
CREATE UNIQUE INDEX expert_specialties_expert_lower ON expert_specialties (expert_id, lower(specialty));

-- Indexes no query uses any more: every list walks a listed index, and a
-- tag's EXISTS reads the unique (expert_id, lower(tag)) index. Each index
-- costs every write and, on PostgreSQL, the planning of every query.
DROP INDEX experts_rating;
DROP INDEX experts_country;
DROP INDEX expert_languages_language;
DROP INDEX expert_languages_lower;
DROP INDEX expert_specialties_lower;
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
CREATE INDEX experts_listed_rating ON experts (rating, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_country_rating ON experts (country_code, rating, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_city_rating ON experts (lower(location), rating, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_reviews ON experts (review_count, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_country_reviews ON experts (country_code, review_count, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_city_reviews ON experts (lower(location), review_count, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_created ON experts (created_at, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_country_created ON experts (country_code, created_at, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_city_created ON experts (lower(location), created_at, id) WHERE listed = TRUE;
CREATE INDEX expert_languages_listed_rating ON expert_languages (lower(language), rating, expert_id) WHERE listed = TRUE;
CREATE INDEX expert_languages_listed_reviews ON expert_languages (lower(language), review_count, expert_id) WHERE listed = TRUE;
CREATE INDEX expert_languages_listed_created ON expert_languages (lower(language), created_at, expert_id) WHERE listed = TRUE;
CREATE INDEX expert_specialties_listed_rating ON expert_specialties (lower(specialty), rating, expert_id) WHERE listed = TRUE;
CREATE INDEX expert_specialties_listed_reviews ON expert_specialties (lower(specialty), review_count, expert_id) WHERE listed = TRUE;
CREATE INDEX expert_specialties_listed_created ON expert_specialties (lower(specialty), created_at, expert_id) WHERE listed = TRUE;
CREATE INDEX packages_listed_price ON packages (usd_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_price ON packages (lower(category), usd_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_price ON packages (country_code, usd_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_duration ON packages (duration, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_duration ON packages (lower(category), duration, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_duration ON packages (country_code, duration, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_created ON packages (created_at, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_created ON packages (lower(category), created_at, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_created ON packages (country_code, created_at, id) WHERE listed = TRUE;

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
CREATE TRIGGER experts_listed_tags AFTER UPDATE OF listed, rating, review_count, created_at ON experts
WHEN OLD.listed IS NOT NEW.listed OR OLD.rating IS NOT NEW.rating
    OR OLD.review_count IS NOT NEW.review_count OR OLD.created_at IS NOT NEW.created_at BEGIN
    UPDATE expert_languages SET listed = NEW.listed, rating = NEW.rating, review_count = NEW.review_count,
        created_at = NEW.created_at WHERE expert_id = NEW.id;
    UPDATE expert_specialties SET listed = NEW.listed, rating = NEW.rating, review_count = NEW.review_count,
        created_at = NEW.created_at WHERE expert_id = NEW.id;
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

-- +goose StatementBegin
CREATE TRIGGER expert_languages_listed AFTER INSERT ON expert_languages BEGIN
    UPDATE expert_languages SET (listed, rating, review_count, created_at) =
        (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = NEW.expert_id)
    WHERE expert_id = NEW.expert_id AND language = NEW.language;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_languages_listed_update AFTER UPDATE OF expert_id ON expert_languages BEGIN
    UPDATE expert_languages SET (listed, rating, review_count, created_at) =
        (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = NEW.expert_id)
    WHERE expert_id = NEW.expert_id AND language = NEW.language;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_specialties_listed AFTER INSERT ON expert_specialties BEGIN
    UPDATE expert_specialties SET (listed, rating, review_count, created_at) =
        (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = NEW.expert_id)
    WHERE expert_id = NEW.expert_id AND specialty = NEW.specialty;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER expert_specialties_listed_update AFTER UPDATE OF expert_id ON expert_specialties BEGIN
    UPDATE expert_specialties SET (listed, rating, review_count, created_at) =
        (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = NEW.expert_id)
    WHERE expert_id = NEW.expert_id AND specialty = NEW.specialty;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER experts_listed_insert;
DROP TRIGGER experts_listed_update;
DROP TRIGGER users_listed;
DROP TRIGGER experts_listed_packages;
DROP TRIGGER experts_listed_tags;
DROP TRIGGER packages_listed_insert;
DROP TRIGGER packages_listed_update;
DROP TRIGGER expert_languages_listed;
DROP TRIGGER expert_languages_listed_update;
DROP TRIGGER expert_specialties_listed;
DROP TRIGGER expert_specialties_listed_update;
DROP INDEX expert_languages_expert_lower;
DROP INDEX expert_specialties_expert_lower;
DROP INDEX experts_listed_rating;
DROP INDEX experts_listed_country_rating;
DROP INDEX experts_listed_city_rating;
DROP INDEX experts_listed_reviews;
DROP INDEX experts_listed_country_reviews;
DROP INDEX experts_listed_city_reviews;
DROP INDEX experts_listed_created;
DROP INDEX experts_listed_country_created;
DROP INDEX experts_listed_city_created;
DROP INDEX expert_languages_listed_rating;
DROP INDEX expert_languages_listed_reviews;
DROP INDEX expert_languages_listed_created;
DROP INDEX expert_specialties_listed_rating;
DROP INDEX expert_specialties_listed_reviews;
DROP INDEX expert_specialties_listed_created;
DROP INDEX packages_listed_price;
DROP INDEX packages_listed_category_price;
DROP INDEX packages_listed_country_price;
DROP INDEX packages_listed_duration;
DROP INDEX packages_listed_category_duration;
DROP INDEX packages_listed_country_duration;
DROP INDEX packages_listed_created;
DROP INDEX packages_listed_category_created;
DROP INDEX packages_listed_country_created;
ALTER TABLE expert_specialties DROP COLUMN created_at;
ALTER TABLE expert_specialties DROP COLUMN review_count;
ALTER TABLE expert_specialties DROP COLUMN rating;
ALTER TABLE expert_specialties DROP COLUMN listed;
ALTER TABLE expert_languages DROP COLUMN created_at;
ALTER TABLE expert_languages DROP COLUMN review_count;
ALTER TABLE expert_languages DROP COLUMN rating;
ALTER TABLE expert_languages DROP COLUMN listed;
ALTER TABLE packages DROP COLUMN listed;
ALTER TABLE experts DROP COLUMN listed;
CREATE INDEX experts_public_rating ON experts (rating, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_country_rating ON experts (country_code, rating, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_reviews ON experts (review_count, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_country_reviews ON experts (country_code, review_count, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_created ON experts (created_at, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX experts_public_country_created ON experts (country_code, created_at, id, user_id) WHERE verified_at IS NOT NULL;
CREATE INDEX packages_active_price ON packages (usd_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_price ON packages (lower(category), usd_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_price ON packages (country_code, usd_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_duration ON packages (duration, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_duration ON packages (lower(category), duration, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_duration ON packages (country_code, duration, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_created ON packages (created_at, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_created ON packages (lower(category), created_at, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_created ON packages (country_code, created_at, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX experts_rating ON experts (rating DESC, id);
CREATE INDEX experts_country ON experts (country_code);
CREATE INDEX expert_languages_language ON expert_languages (language);
CREATE INDEX expert_languages_lower ON expert_languages (lower(language), expert_id);
CREATE INDEX expert_specialties_lower ON expert_specialties (lower(specialty), expert_id);
