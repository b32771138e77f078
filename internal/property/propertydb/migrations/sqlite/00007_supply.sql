-- +goose Up
-- Hosts manage their own properties. owner_id is the developer account
-- that created the property (NULL for the platform's sample), mode the
-- inventory it belongs to: a test key creates test properties, which only
-- test keys see; a live key live ones. status: drafts and inactive
-- properties are seen by their owner only.
ALTER TABLE properties ADD COLUMN owner_id TEXT;
ALTER TABLE properties ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
ALTER TABLE properties ADD COLUMN status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('draft', 'active', 'inactive'));
CREATE INDEX properties_owner ON properties (owner_id, mode, created_at);
-- A deleted room type stays for the bookings and quotes that name it, out
-- of every listing and with no calendar.
ALTER TABLE room_types ADD COLUMN deleted_at DATETIME;

-- The test copy of a live property's calendar is a sandbox: the host's
-- live pushes must not fail because of test bookings, so a cut in
-- total_units may leave more test units sold and held than there are (a
-- test claim still needs test_sold + test_held < total_units). The live
-- counters keep their CHECK. SQLite changes a CHECK by rebuilding the table.
CREATE TABLE calendar_new (
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
    CHECK (test_sold >= 0 AND test_held >= 0)
);
INSERT INTO calendar_new SELECT room_type_id, night, property_id, price, min_stay, closed, closed_to_arrival, closed_to_departure,
    total_units, sold, held, test_sold, test_held FROM calendar;
DROP TABLE calendar;
ALTER TABLE calendar_new RENAME TO calendar;
CREATE INDEX calendar_property_night ON calendar (property_id, night);

-- +goose Down
CREATE TABLE calendar_old (
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
INSERT INTO calendar_old SELECT room_type_id, night, property_id, price, min_stay, closed, closed_to_arrival, closed_to_departure,
    total_units, sold, held, MIN(test_sold, total_units), MIN(test_held, total_units - MIN(test_sold, total_units)) FROM calendar;
DROP TABLE calendar;
ALTER TABLE calendar_old RENAME TO calendar;
CREATE INDEX calendar_property_night ON calendar (property_id, night);
ALTER TABLE room_types DROP COLUMN deleted_at;
DROP INDEX properties_owner;
ALTER TABLE properties DROP COLUMN status;
ALTER TABLE properties DROP COLUMN mode;
ALTER TABLE properties DROP COLUMN owner_id;
