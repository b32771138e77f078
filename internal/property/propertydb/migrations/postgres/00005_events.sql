-- +goose Up
-- The change feed: every state change writes its event in the transaction
-- of the change. seq is assigned at insert while the transaction holds the
-- events advisory lock until it commits, so it grows in commit order and a
-- reader paging by seq never skips an event that commits late; id (UUIDv7)
-- is the public, stable identifier.
CREATE TABLE events (
    seq        BIGSERIAL PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL,
    data       TEXT NOT NULL, -- the JSON as the API returns it, byte for byte
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_created ON events (created_at);
-- Who may see an event: an account key such as a user id, or "*" for every
-- caller of the API.
CREATE TABLE event_audience (
    audience TEXT NOT NULL,
    seq      BIGINT NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    PRIMARY KEY (audience, seq)
);
CREATE INDEX event_audience_seq ON event_audience (seq);

-- +goose Down
DROP TABLE event_audience;
DROP TABLE events;
