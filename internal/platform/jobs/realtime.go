package jobs

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Publisher is the realtime channel (realtime.Engine).
type Publisher interface {
	// Publish publishes data to channel; a second publication with the
	// same idempotency key is dropped.
	Publish(ctx context.Context, channel string, data []byte, idempotencyKey string) error
	// Online tells whether the user is subscribed to channel.
	Online(ctx context.Context, channel, userID string) (bool, error)
}

// Channel names (see package realtime).
func conversationChannel(id string) string { return "conversation:" + id }
func userChannel(id string) string         { return "user:" + id }

// MessageEvent is published to conversation:{id} for every recorded
// message: the message as the REST API answers it.
type MessageEvent struct {
	Type    string        `json:"type"` // "message"
	Message guide.Message `json:"message"`
	// RealtimeMessageID is the draft the message was recorded from.
	RealtimeMessageID *string `json:"realtimeMessageId"`
}

// ReadEvent is published to conversation:{id} when a participant reads.
type ReadEvent struct {
	Type string `json:"type"` // "read"
	guidedb.ReadReceipt
}

// UnreadEvent is published to user:{id} when the user's unread count
// changes.
type UnreadEvent struct {
	Type        string `json:"type"` // "unread"
	UnreadCount int    `json:"unreadCount"`
}

// ConversationEvent is published to user:{id} when another user opens a
// conversation with them: the conversation as the REST API lists it.
type ConversationEvent struct {
	Type         string                    `json:"type"` // "conversation"
	Conversation guide.ConversationSummary `json:"conversation"`
}

// publishConversation publishes a new conversation to its recipient's
// personal channel, once: the conversation's id is the idempotency key.
func (r *Runner) publishConversation(ctx context.Context, j store.Job) error {
	var p guidedb.NewConversation
	if err := decode(j, &p); err != nil {
		return err
	}
	if r.Realtime == nil {
		return nil
	}
	c, err := r.Guide.FindLiveConversation(ctx, p.ConversationID, p.RecipientID)
	if err != nil || c == nil {
		return err // nil: the conversation is gone
	}
	c.MediaRefs(r.absolute)
	data, err := json.Marshal(ConversationEvent{Type: "conversation", Conversation: *c})
	if err != nil {
		return &permanent{err}
	}
	return r.Realtime.Publish(ctx, userChannel(p.RecipientID), data, "conversation:"+c.ID)
}

// publishMessage publishes a recorded message to its conversation and the
// recipient's new unread count. The message's id is the idempotency key,
// so a retried job delivers it once.
func (r *Runner) publishMessage(ctx context.Context, j store.Job) error {
	var p guidedb.RealtimeMessage
	if err := decode(j, &p); err != nil {
		return err
	}
	if r.Realtime == nil {
		return nil
	}
	lm := p.Live
	if lm == nil {
		var err error
		if lm, err = r.Guide.FindLiveMessage(ctx, p.MessageID); err != nil || lm == nil {
			return err // nil: the message is gone
		}
	}
	lm.Message.MediaRefs(r.absolute)
	data, err := json.Marshal(MessageEvent{Type: "message", Message: lm.Message, RealtimeMessageID: lm.RealtimeMessageID})
	if err != nil {
		return &permanent{err}
	}
	if err := r.Realtime.Publish(ctx, conversationChannel(lm.Message.ConversationID), data, "message:"+lm.Message.ID); err != nil {
		return err
	}
	if lm.RecipientID == "" {
		return nil
	}
	return r.publishUnread(ctx, j, lm.RecipientID)
}

// publishRead publishes a read receipt and the reader's new unread count.
func (r *Runner) publishRead(ctx context.Context, j store.Job) error {
	var p guidedb.ReadReceipt
	if err := decode(j, &p); err != nil {
		return err
	}
	if r.Realtime == nil {
		return nil
	}
	data, err := json.Marshal(ReadEvent{Type: "read", ReadReceipt: p})
	if err != nil {
		return &permanent{err}
	}
	if err := r.Realtime.Publish(ctx, conversationChannel(p.ConversationID), data, "read:"+j.ID); err != nil {
		return err
	}
	return r.publishUnread(ctx, j, p.ReaderID)
}

func (r *Runner) publishUnread(ctx context.Context, j store.Job, userID string) error {
	n, err := r.Guide.UnreadCountOf(ctx, userID)
	if err != nil {
		return err
	}
	data, err := json.Marshal(UnreadEvent{Type: "unread", UnreadCount: n})
	if err != nil {
		return &permanent{err}
	}
	return r.Realtime.Publish(ctx, userChannel(userID), data, "unread:"+j.ID)
}

// absolute makes a reference to an image on the API absolute, as the REST
// answers do (httpx.MediaURL, which needs a request).
func (r *Runner) absolute(ref *string) {
	if strings.HasPrefix(*ref, "/") && !strings.HasPrefix(*ref, "//") {
		*ref = r.PublicURL + *ref
	}
}

// liveRecipient tells whether the message's recipient follows its
// conversation live, and so needs no push notification.
func (r *Runner) liveRecipient(ctx context.Context, messageID string) bool {
	if r.Realtime == nil {
		return false
	}
	conversationID, recipientID, err := r.Guide.MessageRecipient(ctx, messageID)
	if err != nil || recipientID == "" {
		return false
	}
	online, err := r.Realtime.Online(ctx, conversationChannel(conversationID), recipientID)
	if err != nil {
		// Better a notification too many than a message missed.
		r.logger().WarnContext(ctx, "worker: realtime presence unknown; notifying", "message", messageID, "err", err)
		return false
	}
	return online
}
