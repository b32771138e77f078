-- +goose Up
-- Property platform schema. Timestamps are DATETIME (UTC, written by the
-- driver as "2006-01-02 15:04:05.999999-07:00" so they sort as text);
-- calendar days are TEXT "YYYY-MM-DD"; JSON values are TEXT; money is an
-- INTEGER amount in the currency's minor units; ids are UUIDv7 strings.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE developers (
    id               TEXT PRIMARY KEY,
    email            TEXT NOT NULL,
    email_normalized TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    password_hash    TEXT,
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    developer_id TEXT NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    key_prefix   TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    mode         TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    scopes       TEXT NOT NULL DEFAULT '[]',
    last_used_at DATETIME,
    expires_at   DATETIME,
    revoked_at   DATETIME,
    replaced_by  TEXT,
    created_at   DATETIME NOT NULL
);
CREATE INDEX api_keys_developer ON api_keys (developer_id);

CREATE TABLE key_usage_daily (
    key_id       TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    day          TEXT NOT NULL,
    requests     INTEGER NOT NULL DEFAULT 0,
    rate_limited INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day)
);

CREATE TABLE properties (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL,
    type                TEXT NOT NULL,
    description         TEXT NOT NULL,
    address             TEXT NOT NULL,
    city                TEXT NOT NULL,
    country_code        TEXT NOT NULL,
    latitude            REAL NOT NULL,
    longitude           REAL NOT NULL,
    timezone            TEXT NOT NULL,
    currency            TEXT NOT NULL,
    check_in_time       TEXT NOT NULL,
    check_out_time      TEXT NOT NULL,
    amenities           TEXT NOT NULL DEFAULT '[]',
    images              TEXT NOT NULL DEFAULT '[]',
    rating              REAL NOT NULL DEFAULT 0,
    review_count        INTEGER NOT NULL DEFAULT 0,
    license_number      TEXT,
    cancellation_policy TEXT NOT NULL CHECK (cancellation_policy IN ('flexible', 'moderate', 'strict', 'non_refundable')),
    from_price          INTEGER NOT NULL,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
CREATE INDEX properties_country ON properties (country_code);
CREATE INDEX properties_rating ON properties (rating DESC, id);

CREATE TABLE property_amenities (
    property_id TEXT NOT NULL REFERENCES properties (id) ON DELETE CASCADE,
    amenity     TEXT NOT NULL,
    PRIMARY KEY (property_id, amenity)
);
CREATE INDEX property_amenities_amenity ON property_amenities (amenity);

CREATE TABLE room_types (
    id          TEXT PRIMARY KEY,
    property_id TEXT NOT NULL REFERENCES properties (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    max_guests  INTEGER NOT NULL CHECK (max_guests >= 1),
    beds        TEXT NOT NULL DEFAULT '[]',
    total_units INTEGER NOT NULL CHECK (total_units >= 0),
    base_price  INTEGER NOT NULL CHECK (base_price >= 0),
    position    INTEGER NOT NULL
);
CREATE INDEX room_types_property ON room_types (property_id, position);

-- One row per room type and night: the night's price and restrictions,
-- the units for sale (total_units) and how many of them are sold or held
-- by quotes, once for the live inventory and once for the test one. The
-- CHECK is the last guard against overselling: no update can leave more
-- units sold and held than there are.
CREATE TABLE calendar (
    room_type_id        TEXT NOT NULL REFERENCES room_types (id) ON DELETE CASCADE,
    night               TEXT NOT NULL,
    property_id         TEXT NOT NULL,
    price               INTEGER NOT NULL CHECK (price >= 0),
    min_stay            INTEGER NOT NULL DEFAULT 1 CHECK (min_stay >= 1),
    closed              BOOLEAN NOT NULL DEFAULT FALSE,
    closed_to_arrival   BOOLEAN NOT NULL DEFAULT FALSE,
    closed_to_departure BOOLEAN NOT NULL DEFAULT FALSE,
    total_units         INTEGER NOT NULL CHECK (total_units >= 0),
    sold                INTEGER NOT NULL DEFAULT 0,
    held                INTEGER NOT NULL DEFAULT 0,
    test_sold           INTEGER NOT NULL DEFAULT 0,
    test_held           INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (room_type_id, night),
    CHECK (sold >= 0 AND held >= 0 AND sold + held <= total_units),
    CHECK (test_sold >= 0 AND test_held >= 0 AND test_sold + test_held <= total_units)
);
CREATE INDEX calendar_property_night ON calendar (property_id, night);

CREATE TABLE quotes (
    id                  TEXT PRIMARY KEY,
    developer_id        TEXT NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
    test                BOOLEAN NOT NULL,
    property_id         TEXT NOT NULL REFERENCES properties (id),
    room_type_id        TEXT NOT NULL REFERENCES room_types (id),
    check_in            TEXT NOT NULL,
    check_out           TEXT NOT NULL,
    guests              INTEGER NOT NULL,
    nightly             TEXT NOT NULL,
    total               INTEGER NOT NULL,
    currency            TEXT NOT NULL,
    cancellation_policy TEXT NOT NULL,
    check_in_at         DATETIME NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('held', 'booked', 'expired')),
    expires_at          DATETIME NOT NULL,
    booking_id          TEXT,
    created_at          DATETIME NOT NULL
);
CREATE INDEX quotes_holds ON quotes (room_type_id, status, expires_at);
CREATE INDEX quotes_expiry ON quotes (status, expires_at);

CREATE TABLE bookings (
    id                  TEXT PRIMARY KEY,
    developer_id        TEXT NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
    test                BOOLEAN NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('CONFIRMED', 'CANCELLED')),
    property_id         TEXT NOT NULL REFERENCES properties (id),
    room_type_id        TEXT NOT NULL REFERENCES room_types (id),
    check_in            TEXT NOT NULL,
    check_out           TEXT NOT NULL,
    nights              INTEGER NOT NULL,
    guests              INTEGER NOT NULL,
    guest               TEXT NOT NULL,
    nightly             TEXT NOT NULL,
    total               INTEGER NOT NULL,
    currency            TEXT NOT NULL,
    cancellation_policy TEXT NOT NULL,
    check_in_at         DATETIME NOT NULL,
    cancellation_fee    INTEGER,
    special_requests    TEXT,
    external_reference  TEXT,
    quote_id            TEXT UNIQUE REFERENCES quotes (id),
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL,
    cancelled_at        DATETIME
);
CREATE INDEX bookings_account ON bookings (developer_id, test, created_at);
CREATE INDEX bookings_account_check_in ON bookings (developer_id, test, check_in);
CREATE INDEX bookings_account_reference ON bookings (developer_id, test, external_reference);

CREATE TABLE idempotency_keys (
    account         TEXT NOT NULL,
    key             TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('in_progress', 'done')),
    response_status INTEGER,
    response_body   BLOB,
    created_at      DATETIME NOT NULL,
    PRIMARY KEY (account, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE bookings;
DROP TABLE quotes;
DROP TABLE calendar;
DROP TABLE room_types;
DROP TABLE property_amenities;
DROP TABLE properties;
DROP TABLE key_usage_daily;
DROP TABLE api_keys;
DROP TABLE developers;
DROP TABLE settings;
