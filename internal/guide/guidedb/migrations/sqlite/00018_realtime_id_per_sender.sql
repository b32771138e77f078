-- +goose Up
-- A realtimeMessageId is the id the channel gave its sender's draft, and
-- the channel shows it to the other participant too. Unique per
-- conversation, the other participant could record a message under it
-- first, and the sender's message was then taken for a retry of that one
-- and dropped. It is unique per sender instead. SQLite cannot drop a
-- table's UNIQUE constraint, so the table is made again without it.
CREATE TABLE messages_new (
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
    created_at          DATETIME NOT NULL
);
INSERT INTO messages_new SELECT id, conversation_id, sender_id, message_type, content, image_url, image_width, image_height,
    is_read, is_ai_generated, realtime_message_id, created_at FROM messages;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);
CREATE INDEX messages_unread ON messages (conversation_id, is_read, sender_id);
CREATE UNIQUE INDEX messages_realtime_id ON messages (conversation_id, sender_id, realtime_message_id);

-- +goose Down
CREATE TABLE messages_old (
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
    created_at          DATETIME NOT NULL,
    UNIQUE (conversation_id, realtime_message_id)
);
INSERT INTO messages_old SELECT id, conversation_id, sender_id, message_type, content, image_url, image_width, image_height,
    is_read, is_ai_generated, realtime_message_id, created_at FROM messages;
DROP TABLE messages;
ALTER TABLE messages_old RENAME TO messages;
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);
CREATE INDEX messages_unread ON messages (conversation_id, is_read, sender_id);
