-- +goose Up
-- An expert is one person, so a booking takes the expert's time from its
-- scheduled_date to ends_at (guide.BookingEnd: its end, or its package's
-- duration, or an hour), and so do the holds resellers place through the
-- OCTO door. ends_at is written with every booking; the bookings made
-- before are given theirs here.
ALTER TABLE bookings ADD COLUMN ends_at TIMESTAMPTZ;
UPDATE bookings SET ends_at = COALESCE(scheduled_end_date, scheduled_date + make_interval(hours => COALESCE(duration, 1)));
ALTER TABLE bookings ALTER COLUMN ends_at SET NOT NULL;
-- The previous release, still serving while a fleet rolls onto this one,
-- inserts bookings without ends_at: they are given theirs as they come
-- (expand, then contract: a later release drops the trigger).
-- +goose StatementBegin
CREATE FUNCTION bookings_fill_ends_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.ends_at IS NULL THEN
        NEW.ends_at := COALESCE(NEW.scheduled_end_date, NEW.scheduled_date + make_interval(hours => COALESCE(NEW.duration, 1)));
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER bookings_fill_ends_at BEFORE INSERT ON bookings FOR EACH ROW EXECUTE FUNCTION bookings_fill_ends_at();
-- The overlap check of a booking, a hold or an acceptance walks the
-- expert's bookings that may still take time, from the time asked for on.
CREATE INDEX bookings_expert_time ON bookings (expert_id, ends_at) WHERE status IN ('PENDING', 'CONFIRMED', 'IN_PROGRESS');

-- A reseller's OCTO booking: a hold on the expert's time (ON_HOLD until
-- expires_at; past it the hold counts for nothing and reads EXPIRED) that
-- the reseller confirms into a marketplace booking (booking_id, whose
-- status the reseller then reads) or cancels. id is the OCTO uuid.
-- user_id is the reseller (the account of the key); test_mode rows, made
-- with test keys, take no time, make no marketplace booking and are
-- deleted a day after they were made.
CREATE TABLE octo_bookings (
    id                  TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL REFERENCES users (id),
    test_mode           BOOLEAN NOT NULL,
    supplier_reference  TEXT NOT NULL UNIQUE,
    reseller_reference  TEXT,
    idempotency_key     TEXT,
    request_hash        TEXT NOT NULL,
    package_id          TEXT NOT NULL REFERENCES packages (id),
    expert_id           TEXT NOT NULL REFERENCES experts (id),
    starts_at           TIMESTAMPTZ NOT NULL,
    ends_at             TIMESTAMPTZ NOT NULL,
    availability_id     TEXT NOT NULL,
    unit_items          JSONB NOT NULL,
    contact             JSONB NOT NULL,
    notes               TEXT,
    status              TEXT NOT NULL CHECK (status IN ('ON_HOLD', 'CONFIRMED', 'CANCELLED')),
    expires_at          TIMESTAMPTZ,
    booking_id          TEXT UNIQUE REFERENCES bookings (id),
    confirmed_at        TIMESTAMPTZ,
    cancelled_at        TIMESTAMPTZ,
    cancellation_reason TEXT,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX octo_bookings_holds ON octo_bookings (expert_id, ends_at) WHERE status = 'ON_HOLD' AND test_mode = FALSE;
CREATE INDEX octo_bookings_reseller ON octo_bookings (user_id, reseller_reference);
CREATE UNIQUE INDEX octo_bookings_idempotency ON octo_bookings (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX octo_bookings_test ON octo_bookings (created_at) WHERE test_mode = TRUE;

-- +goose Down
DROP TRIGGER bookings_fill_ends_at ON bookings;
DROP FUNCTION bookings_fill_ends_at();
DROP TABLE octo_bookings;
DROP INDEX bookings_expert_time;
ALTER TABLE bookings DROP COLUMN ends_at;
