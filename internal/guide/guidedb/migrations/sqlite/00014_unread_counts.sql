-- +goose Up
-- Each side's unread messages in a conversation, kept with the message
-- writes: sending adds one to the recipient's side, marking read takes
-- what it marked off the reader's side (guidedb.SendMessage, PostAIReply,
-- MarkRead). The
-- unread count had counted the unread messages in messages_unread, so its
-- cost grew with the backlog: an expert who had not read 300 messages
-- cost 0.2 ms on every message sent (the realtime job publishes the
-- count), a fifth of a message's CPU time.
ALTER TABLE conversations ADD COLUMN tourist_unread INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN expert_unread INTEGER NOT NULL DEFAULT 0;
UPDATE conversations SET
    tourist_unread = (SELECT COUNT(*) FROM messages m
        WHERE m.conversation_id = conversations.id AND m.is_read = FALSE AND m.sender_id <> conversations.tourist_id),
    expert_unread = (SELECT COUNT(*) FROM messages m JOIN experts e ON e.id = conversations.expert_id
        WHERE m.conversation_id = conversations.id AND m.is_read = FALSE AND m.sender_id <> e.user_id);

-- +goose Down
ALTER TABLE conversations DROP COLUMN expert_unread;
ALTER TABLE conversations DROP COLUMN tourist_unread;
