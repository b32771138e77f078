-- +goose Up
-- A key made with confirmation 'person' asks only for actions its owner
-- confirms in person (user token or web session), never a key: the same
-- rule as for every action asked through the MCP endpoint. 'actor' keeps
-- the specification's default, under which the key that asked may confirm.
ALTER TABLE api_keys ADD COLUMN confirmation TEXT NOT NULL DEFAULT 'actor'
    CHECK (confirmation IN ('actor', 'person'));

-- One open action per key, operation, target and kind of confirmation
-- (person_only): asking again, even concurrently, finds the open one
-- through the unique index below, and never one of the other kind. A
-- pending action that expired is marked superseded when a new ask takes
-- its place, so that it stops holding the index's slot while it can
-- still be read (as expired).
ALTER TABLE pending_actions ADD COLUMN superseded BOOLEAN NOT NULL DEFAULT FALSE;

-- Repeated asks made before this migration each stored an action: the
-- newest of each group keeps the slot, the others read as expired.
UPDATE pending_actions SET superseded = TRUE
WHERE status = 'pending' AND EXISTS (
    SELECT 1 FROM pending_actions n
    WHERE n.status = 'pending' AND n.api_key_id = pending_actions.api_key_id
      AND n.action = pending_actions.action AND n.target_id = pending_actions.target_id
      AND n.person_only = pending_actions.person_only
      AND (n.created_at > pending_actions.created_at
           OR (n.created_at = pending_actions.created_at AND n.id > pending_actions.id)));

CREATE UNIQUE INDEX pending_actions_open ON pending_actions (api_key_id, action, target_id, person_only)
    WHERE status = 'pending' AND NOT superseded;

-- +goose Down
DROP INDEX pending_actions_open;
ALTER TABLE pending_actions DROP COLUMN superseded;
ALTER TABLE api_keys DROP COLUMN confirmation;
