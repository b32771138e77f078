-- +goose Up
-- A realtimeMessageId is the id the channel gave its sender's draft, and
-- the channel shows it to the other participant too. Unique per
-- conversation, the other participant could record a message under it
-- first, and the sender's message was then taken for a retry of that one
-- and dropped. It is unique per sender instead.
CREATE UNIQUE INDEX messages_realtime_id ON messages (conversation_id, sender_id, realtime_message_id);
ALTER TABLE messages DROP CONSTRAINT messages_conversation_id_realtime_message_id_key;

-- +goose Down
ALTER TABLE messages ADD CONSTRAINT messages_conversation_id_realtime_message_id_key UNIQUE (conversation_id, realtime_message_id);
DROP INDEX messages_realtime_id;
