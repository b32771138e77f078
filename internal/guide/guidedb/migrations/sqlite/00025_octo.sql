-- +goose Up
-- An expert is one person, so a booking takes the expert's time from its
-- scheduled_date to ends_at (guide.BookingEnd: its end, or its package's
-- duration, or an hour), and so do the holds resellers place through the
-- OCTO door. ends_at is written with every booking; the bookings made
-- before are given theirs here, in the driver's text form of a UTC time.
ALTER TABLE bookings ADD COLUMN ends_at DATETIME;
UPDATE bookings SET ends_at = COALESCE(scheduled_end_date,
    strftime('%Y-%m-%d %H:%M:%S+00:00', scheduled_date, '+' || COALESCE(duration, 1) || ' hours'));
-- A previous release run again on this database (a rollback) inserts
-- bookings without ends_at: they are given theirs as they come.
-- +goose StatementBegin
CREATE TRIGGER bookings_fill_ends_at AFTER INSERT ON bookings WHEN NEW.ends_at IS NULL
BEGIN
    UPDATE bookings SET ends_at = COALESCE(NEW.scheduled_end_date,
        strftime('%Y-%m-%d %H:%M:%S+00:00', NEW.scheduled_date, '+' || COALESCE(NEW.duration, 1) || ' hours'))
    WHERE id = NEW.id;
END;
-- +goose StatementEnd
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
    starts_at           DATETIME NOT NULL,
    ends_at             DATETIME NOT NULL,
    availability_id     TEXT NOT NULL,
    unit_items          TEXT NOT NULL,
    contact             TEXT NOT NULL,
    notes               TEXT,
    status              TEXT NOT NULL CHECK (status IN ('ON_HOLD', 'CONFIRMED', 'CANCELLED')),
    expires_at          DATETIME,
    booking_id          TEXT UNIQUE REFERENCES bookings (id),
    confirmed_at        DATETIME,
    cancelled_at        DATETIME,
    cancellation_reason TEXT,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
CREATE INDEX octo_bookings_holds ON octo_bookings (expert_id, ends_at) WHERE status = 'ON_HOLD' AND test_mode = FALSE;
CREATE INDEX octo_bookings_reseller ON octo_bookings (user_id, reseller_reference);
CREATE UNIQUE INDEX octo_bookings_idempotency ON octo_bookings (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX octo_bookings_test ON octo_bookings (created_at) WHERE test_mode = TRUE;

-- +goose Down
DROP TRIGGER bookings_fill_ends_at;
DROP TABLE octo_bookings;
DROP INDEX bookings_expert_time;
ALTER TABLE bookings DROP COLUMN ends_at;
