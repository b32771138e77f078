-- +goose Up
-- Guide marketplace schema. Timestamps are TIMESTAMPTZ (UTC); JSON values
-- are JSONB; ids are UUIDv7 strings.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    id               TEXT PRIMARY KEY,
    handle           TEXT NOT NULL UNIQUE,
    email            TEXT,
    email_normalized TEXT UNIQUE,
    email_verified   BOOLEAN NOT NULL DEFAULT FALSE,
    password_hash    TEXT,
    name             TEXT,
    nickname         TEXT,
    image            TEXT,
    avatar           TEXT,
    bio              TEXT,
    bio_zh           TEXT,
    role             TEXT NOT NULL CHECK (role IN ('TOURIST', 'EXPERT', 'ADMIN')),
    locale           TEXT NOT NULL DEFAULT 'en',
    deleted_at       TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE identities (
    provider   TEXT NOT NULL,
    subject    TEXT NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (provider, subject)
);
CREATE INDEX identities_user_id ON identities (user_id);

CREATE TABLE experts (
    id                TEXT PRIMARY KEY,
    user_id           TEXT NOT NULL UNIQUE REFERENCES users (id),
    bio               TEXT,
    location          TEXT,
    country_code      TEXT CHECK (country_code IN ('CN', 'JP', 'KR', 'TW', 'HK')),
    currency          TEXT NOT NULL,
    profile_image     TEXT,
    cover_image       TEXT,
    hourly_rate       DOUBLE PRECISION,
    rating            DOUBLE PRECISION NOT NULL DEFAULT 0,
    review_count      INTEGER NOT NULL DEFAULT 0,
    social_links      JSONB NOT NULL DEFAULT '{}',
    messaging_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    weekly_schedule   JSONB NOT NULL DEFAULT '{}',
    blocked_dates     JSONB NOT NULL DEFAULT '[]',
    timezone          TEXT NOT NULL,
    ai_auto_reply     BOOLEAN NOT NULL DEFAULT FALSE,
    ai_instructions   TEXT,
    verified_at       TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX experts_rating ON experts (rating DESC, id);
CREATE INDEX experts_country ON experts (country_code);

CREATE TABLE expert_translations (
    expert_id TEXT NOT NULL REFERENCES experts (id) ON DELETE CASCADE,
    locale    TEXT NOT NULL,
    bio       TEXT,
    PRIMARY KEY (expert_id, locale)
);

CREATE TABLE expert_languages (
    expert_id TEXT NOT NULL REFERENCES experts (id) ON DELETE CASCADE,
    language  TEXT NOT NULL,
    position  INTEGER NOT NULL,
    PRIMARY KEY (expert_id, language)
);
CREATE INDEX expert_languages_language ON expert_languages (language);

CREATE TABLE expert_specialties (
    expert_id TEXT NOT NULL REFERENCES experts (id) ON DELETE CASCADE,
    specialty TEXT NOT NULL,
    position  INTEGER NOT NULL,
    PRIMARY KEY (expert_id, specialty)
);
CREATE INDEX expert_specialties_specialty ON expert_specialties (specialty);

CREATE TABLE packages (
    id               TEXT PRIMARY KEY,
    expert_id        TEXT NOT NULL REFERENCES experts (id),
    title            TEXT NOT NULL,
    description      TEXT NOT NULL,
    category         TEXT NOT NULL,
    country_code     TEXT NOT NULL CHECK (country_code IN ('CN', 'JP', 'KR', 'TW', 'HK')),
    base_price       DOUBLE PRECISION NOT NULL,
    currency         TEXT NOT NULL,
    duration         INTEGER NOT NULL,
    max_participants INTEGER NOT NULL,
    images           JSONB NOT NULL DEFAULT '[]',
    highlights       JSONB NOT NULL DEFAULT '[]',
    included         JSONB NOT NULL DEFAULT '[]',
    excluded         JSONB NOT NULL DEFAULT '[]',
    meeting_point    TEXT,
    is_active        BOOLEAN NOT NULL DEFAULT TRUE,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX packages_expert ON packages (expert_id, created_at);
CREATE INDEX packages_active_created ON packages (is_active, created_at);

CREATE TABLE package_translations (
    package_id    TEXT NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
    locale        TEXT NOT NULL,
    title         TEXT,
    description   TEXT,
    highlights    JSONB,
    included      JSONB,
    excluded      JSONB,
    meeting_point TEXT,
    PRIMARY KEY (package_id, locale)
);

CREATE TABLE bookings (
    id                 TEXT PRIMARY KEY,
    tourist_id         TEXT NOT NULL REFERENCES users (id),
    expert_id          TEXT REFERENCES experts (id),
    package_id         TEXT REFERENCES packages (id),
    status             TEXT NOT NULL CHECK (status IN ('PENDING', 'CONFIRMED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED')),
    scheduled_date     TIMESTAMPTZ NOT NULL,
    scheduled_end_date TIMESTAMPTZ,
    participants       INTEGER NOT NULL CHECK (participants BETWEEN 1 AND 50),
    custom_request     TEXT,
    meeting_location   TEXT,
    price              DOUBLE PRECISION,
    currency           TEXT,
    duration           INTEGER,
    confirmed_at       TIMESTAMPTZ,
    completed_at       TIMESTAMPTZ,
    cancelled_at       TIMESTAMPTZ,
    cancelled_by       TEXT,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX bookings_tourist ON bookings (tourist_id, created_at);
CREATE INDEX bookings_expert ON bookings (expert_id, created_at);

CREATE TABLE reviews (
    id         TEXT PRIMARY KEY,
    booking_id TEXT NOT NULL UNIQUE REFERENCES bookings (id),
    expert_id  TEXT NOT NULL REFERENCES experts (id),
    author_id  TEXT NOT NULL REFERENCES users (id),
    rating     INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    comment    TEXT,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX reviews_expert_created ON reviews (expert_id, created_at);

CREATE TABLE travelogues (
    id            TEXT PRIMARY KEY,
    slug          TEXT NOT NULL UNIQUE,
    author_id     TEXT NOT NULL REFERENCES users (id),
    title         TEXT NOT NULL,
    excerpt       TEXT,
    content       TEXT NOT NULL,
    cover_image   TEXT,
    category      TEXT NOT NULL,
    location_tags JSONB NOT NULL DEFAULT '[]',
    images        JSONB NOT NULL DEFAULT '[]',
    score         INTEGER NOT NULL DEFAULT 0,
    view_count    INTEGER NOT NULL DEFAULT 0,
    comment_count INTEGER NOT NULL DEFAULT 0,
    hot_score     DOUBLE PRECISION NOT NULL DEFAULT 0,
    status        TEXT NOT NULL CHECK (status IN ('draft', 'published')),
    published_at  TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX travelogues_status_hot ON travelogues (status, hot_score);

CREATE TABLE travelogue_translations (
    travelogue_id TEXT NOT NULL REFERENCES travelogues (id) ON DELETE CASCADE,
    locale        TEXT NOT NULL,
    title         TEXT,
    excerpt       TEXT,
    content       TEXT,
    PRIMARY KEY (travelogue_id, locale)
);

CREATE TABLE conversations (
    id              TEXT PRIMARY KEY,
    tourist_id      TEXT NOT NULL REFERENCES users (id),
    expert_id       TEXT NOT NULL REFERENCES experts (id),
    last_message    TEXT,
    last_message_at TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (tourist_id, expert_id)
);
CREATE INDEX conversations_expert ON conversations (expert_id);

CREATE TABLE messages (
    id                  TEXT PRIMARY KEY,
    conversation_id     TEXT NOT NULL REFERENCES conversations (id),
    sender_id           TEXT NOT NULL REFERENCES users (id),
    message_type        TEXT NOT NULL CHECK (message_type IN ('TEXT', 'IMAGE')),
    content             TEXT,
    image_url           TEXT,
    image_width         INTEGER,
    image_height        INTEGER,
    is_read             BOOLEAN NOT NULL DEFAULT FALSE,
    is_ai_generated     BOOLEAN NOT NULL DEFAULT FALSE,
    realtime_message_id TEXT,
    created_at          TIMESTAMPTZ NOT NULL,
    UNIQUE (conversation_id, realtime_message_id)
);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);
CREATE INDEX messages_unread ON messages (conversation_id, is_read, sender_id);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    key_prefix   TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    mode         TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    scopes       JSONB NOT NULL DEFAULT '[]',
    rate_limit   INTEGER NOT NULL,
    last_used_at TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE pending_actions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    api_key_id   TEXT,
    action       TEXT NOT NULL,
    target_id    TEXT,
    payload      JSONB NOT NULL DEFAULT '{}',
    status       TEXT NOT NULL CHECK (status IN ('pending', 'confirmed')),
    result       JSONB,
    expires_at   TIMESTAMPTZ NOT NULL,
    confirmed_at TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX pending_actions_user ON pending_actions (user_id);

CREATE TABLE push_tokens (
    token         TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device        TEXT,
    platform      TEXT NOT NULL CHECK (platform IN ('WEB', 'ANDROID', 'IOS')),
    app_version   TEXT,
    build_number  INTEGER,
    device_locale TEXT,
    timezone      TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX push_tokens_user ON push_tokens (user_id);

CREATE TABLE sessions (
    id_hash    TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Deferred work (push notifications, AI replies): claimed by workers,
-- retried with backoff until done_at is set or attempts run out.
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
DROP TABLE sessions;
DROP TABLE push_tokens;
DROP TABLE pending_actions;
DROP TABLE api_keys;
DROP TABLE messages;
DROP TABLE conversations;
DROP TABLE travelogue_translations;
DROP TABLE travelogues;
DROP TABLE reviews;
DROP TABLE bookings;
DROP TABLE package_translations;
DROP TABLE packages;
DROP TABLE expert_specialties;
DROP TABLE expert_languages;
DROP TABLE expert_translations;
DROP TABLE experts;
DROP TABLE identities;
DROP TABLE users;
DROP TABLE settings;
