-- +goose Up
-- A date search first lists the property time zones in which the check-in
-- day has already passed (SELECT DISTINCT timezone): from this index, not
-- a scan of every property's row.
CREATE INDEX properties_timezone ON properties (timezone);
-- The city filter is a substring match (no index can seek it): this
-- covering index holds what the search's property conditions read, so the
-- scan reads it instead of the wide property rows.
CREATE INDEX properties_search ON properties (city, status, mode, owner_id, timezone, id);

-- +goose Down
DROP INDEX properties_search;
DROP INDEX properties_timezone;
