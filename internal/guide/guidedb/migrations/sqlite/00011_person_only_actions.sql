-- +goose Up
-- A pending action asked for through the MCP endpoint is the person's to
-- confirm, with their user token: the agent's key cannot approve what it
-- asked for itself.
ALTER TABLE pending_actions ADD COLUMN person_only BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE pending_actions DROP COLUMN person_only;
