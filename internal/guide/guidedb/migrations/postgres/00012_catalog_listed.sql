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
ALTER TABLE expert_languages ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN rating DOUBLE PRECISION NOT NULL DEFAULT 0, ADD COLUMN review_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN created_at TIMESTAMPTZ;
UPDATE expert_languages SET (listed, rating, review_count, created_at) =
    (SELECT e.listed, e.rating, e.review_count, e.created_at FROM experts e WHERE e.id = expert_languages.expert_id);
ALTER TABLE expert_specialties ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN rating DOUBLE PRECISION NOT NULL DEFAULT 0, ADD COLUMN review_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN created_at TIMESTAMPTZ;
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
CREATE INDEX experts_listed_city_rating ON experts (lower(location), rating, id) INCLUDE (location) WHERE listed = TRUE;
CREATE INDEX experts_listed_reviews ON experts (review_count, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_country_reviews ON experts (country_code, review_count, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_city_reviews ON experts (lower(location), review_count, id) INCLUDE (location) WHERE listed = TRUE;
CREATE INDEX experts_listed_created ON experts (created_at, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_country_created ON experts (country_code, created_at, id) WHERE listed = TRUE;
CREATE INDEX experts_listed_city_created ON experts (lower(location), created_at, id) INCLUDE (location) WHERE listed = TRUE;
CREATE INDEX expert_languages_listed_rating ON expert_languages (lower(language), rating, expert_id) INCLUDE (language) WHERE listed = TRUE;
CREATE INDEX expert_languages_listed_reviews ON expert_languages (lower(language), review_count, expert_id) INCLUDE (language) WHERE listed = TRUE;
CREATE INDEX expert_languages_listed_created ON expert_languages (lower(language), created_at, expert_id) INCLUDE (language) WHERE listed = TRUE;
CREATE INDEX expert_specialties_listed_rating ON expert_specialties (lower(specialty), rating, expert_id) INCLUDE (specialty) WHERE listed = TRUE;
CREATE INDEX expert_specialties_listed_reviews ON expert_specialties (lower(specialty), review_count, expert_id) INCLUDE (specialty) WHERE listed = TRUE;
CREATE INDEX expert_specialties_listed_created ON expert_specialties (lower(specialty), created_at, expert_id) INCLUDE (specialty) WHERE listed = TRUE;
CREATE INDEX packages_listed_price ON packages (usd_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_price ON packages (lower(category), usd_price, id) INCLUDE (category) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_price ON packages (country_code, usd_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_duration ON packages (duration, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_duration ON packages (lower(category), duration, id) INCLUDE (category) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_duration ON packages (country_code, duration, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_created ON packages (created_at, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_created ON packages (lower(category), created_at, id) INCLUDE (category) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_created ON packages (country_code, created_at, id) WHERE listed = TRUE;

-- PostgreSQL reads an index alone only when it holds every column the
-- query names, and lower(x) names x: the indexes on lower(...) include x,
-- so a page or a count under a category, tag or city walks the index
-- without visiting the table (at x1000 a page 50 under a tag took 8 ms of
-- heap visits, a count under a category 260 ms).
DROP INDEX travelogues_published_category_hot;
DROP INDEX travelogues_published_category_score;
DROP INDEX travelogues_published_category_views;
DROP INDEX travelogues_published_category_created;
DROP INDEX travelogues_published_category_published;
CREATE INDEX travelogues_published_category_hot ON travelogues (lower(category), hot_score, id) INCLUDE (category) WHERE status = 'published';
CREATE INDEX travelogues_published_category_score ON travelogues (lower(category), score, id) INCLUDE (category) WHERE status = 'published';
CREATE INDEX travelogues_published_category_views ON travelogues (lower(category), view_count, id) INCLUDE (category) WHERE status = 'published';
CREATE INDEX travelogues_published_category_created ON travelogues (lower(category), created_at, id) INCLUDE (category) WHERE status = 'published';
CREATE INDEX travelogues_published_category_published ON travelogues (lower(category), published_at, id) INCLUDE (category) WHERE status = 'published';
-- The planner ignores the statistics of partial indexes: this gives it
-- the frequencies of the cities, so it walks a city's index for a common one.
CREATE STATISTICS experts_lower_location ON (lower(location)) FROM experts;

-- +goose StatementBegin
CREATE FUNCTION experts_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.listed := NEW.verified_at IS NOT NULL
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.deleted_at IS NULL);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION users_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE experts SET listed = (verified_at IS NOT NULL AND NEW.deleted_at IS NULL) WHERE user_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION experts_listed_copies() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE FUNCTION packages_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.listed := NEW.is_active AND EXISTS (SELECT 1 FROM experts e WHERE e.id = NEW.expert_id AND e.listed);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION expert_tags_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT e.listed, e.rating, e.review_count, e.created_at
    INTO NEW.listed, NEW.rating, NEW.review_count, NEW.created_at
    FROM experts e WHERE e.id = NEW.expert_id;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- The BEFORE triggers set the copies on the row being written; an AFTER
-- trigger passes an expert's changes on (UPDATE OF would miss a change
-- made by a BEFORE trigger, hence the WHEN).
CREATE TRIGGER experts_listed BEFORE INSERT OR UPDATE OF verified_at, user_id ON experts
    FOR EACH ROW EXECUTE FUNCTION experts_listed();
CREATE TRIGGER users_listed AFTER UPDATE OF deleted_at ON users
    FOR EACH ROW EXECUTE FUNCTION users_listed();
CREATE TRIGGER experts_listed_copies AFTER UPDATE ON experts FOR EACH ROW
    WHEN (OLD.listed IS DISTINCT FROM NEW.listed OR OLD.rating IS DISTINCT FROM NEW.rating
        OR OLD.review_count IS DISTINCT FROM NEW.review_count OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION experts_listed_copies();
CREATE TRIGGER packages_listed BEFORE INSERT OR UPDATE OF is_active, expert_id ON packages
    FOR EACH ROW EXECUTE FUNCTION packages_listed();
CREATE TRIGGER expert_languages_listed BEFORE INSERT OR UPDATE OF expert_id ON expert_languages
    FOR EACH ROW EXECUTE FUNCTION expert_tags_listed();
CREATE TRIGGER expert_specialties_listed BEFORE INSERT OR UPDATE OF expert_id ON expert_specialties
    FOR EACH ROW EXECUTE FUNCTION expert_tags_listed();

-- +goose Down
DROP TRIGGER experts_listed ON experts;
DROP TRIGGER users_listed ON users;
DROP TRIGGER experts_listed_copies ON experts;
DROP TRIGGER packages_listed ON packages;
DROP TRIGGER expert_languages_listed ON expert_languages;
DROP TRIGGER expert_specialties_listed ON expert_specialties;
DROP FUNCTION experts_listed();
DROP FUNCTION users_listed();
DROP FUNCTION experts_listed_copies();
DROP FUNCTION packages_listed();
DROP FUNCTION expert_tags_listed();
DROP STATISTICS experts_lower_location;
DROP INDEX travelogues_published_category_hot;
DROP INDEX travelogues_published_category_score;
DROP INDEX travelogues_published_category_views;
DROP INDEX travelogues_published_category_created;
DROP INDEX travelogues_published_category_published;
CREATE INDEX travelogues_published_category_hot ON travelogues (lower(category), hot_score, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_score ON travelogues (lower(category), score, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_views ON travelogues (lower(category), view_count, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_created ON travelogues (lower(category), created_at, id) WHERE status = 'published';
CREATE INDEX travelogues_published_category_published ON travelogues (lower(category), published_at, id) WHERE status = 'published';
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
ALTER TABLE expert_specialties DROP COLUMN created_at, DROP COLUMN review_count, DROP COLUMN rating, DROP COLUMN listed;
ALTER TABLE expert_languages DROP COLUMN created_at, DROP COLUMN review_count, DROP COLUMN rating, DROP COLUMN listed;
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
