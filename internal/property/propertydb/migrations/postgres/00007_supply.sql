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
ALTER TABLE room_types ADD COLUMN deleted_at TIMESTAMPTZ;

-- The test copy of a live property's calendar is a sandbox: the host's
-- live pushes must not fail because of test bookings, so a cut in
-- total_units may leave more test units sold and held than there are (a
-- test claim still needs test_sold + test_held < total_units). The live
-- counters keep their CHECK.
ALTER TABLE calendar DROP CONSTRAINT calendar_check1;
ALTER TABLE calendar ADD CONSTRAINT calendar_test_counters CHECK (test_sold >= 0 AND test_held >= 0);

-- +goose Down
ALTER TABLE calendar DROP CONSTRAINT calendar_test_counters;
UPDATE calendar SET test_sold = LEAST(test_sold, total_units), test_held = LEAST(test_held, total_units - LEAST(test_sold, total_units));
ALTER TABLE calendar ADD CONSTRAINT calendar_check1 CHECK (test_sold >= 0 AND test_held >= 0 AND test_sold + test_held <= total_units);
ALTER TABLE room_types DROP COLUMN deleted_at;
DROP INDEX properties_owner;
ALTER TABLE properties DROP COLUMN status;
ALTER TABLE properties DROP COLUMN mode;
ALTER TABLE properties DROP COLUMN owner_id;
