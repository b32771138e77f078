-- +goose Up
-- Experts manage their packages: status draft, active or archived. The
-- catalogue queries still read is_active; every write keeps it equal to
-- status = 'active' in the same UPDATE, so that they need no change here
-- (they are being reworked separately) and the two never disagree.
ALTER TABLE packages ADD COLUMN status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('draft', 'active', 'archived'));
UPDATE packages SET status = CASE WHEN is_active THEN 'active' ELSE 'archived' END;

-- +goose Down
ALTER TABLE packages DROP COLUMN status;
