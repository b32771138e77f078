package store

import (
	"context"
	"encoding/json"
	"time"
)

// Job kinds.
const (
	// JobPushMessage notifies the recipient of a message on each of their
	// devices. Payload: {"messageId": "..."}.
	JobPushMessage = "push.message"
	// JobAIReply asks the AI model for the expert's reply to a traveller's
	// message. Payload: {"conversationId": "...", "messageId": "..."}.
	JobAIReply = "ai.reply"
	// JobBlobDelete removes a stored file no longer referenced, such as the
	// avatar of a closed account. Payload: {"key": "..."}.
	JobBlobDelete = "blob.delete"
)

// EnqueueJob records deferred work in the jobs table, inside the caller's
// transaction when q is one, so that the work exists if and only if the
// change that asked for it was committed.
func EnqueueJob(ctx context.Context, q querier, kind string, payload any, runAt time.Time, now time.Time) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO jobs (id, kind, payload, run_at, created_at) VALUES ($1, $2, $3, $4, $5)`,
		newID(), kind, string(body), runAt, now)
	return err
}
