package guidejobs

import (
	"context"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// MessageEvent is published to a conversation's channel for every
// recorded message: the message as the REST API answers it.
type MessageEvent struct {
	Type    string        `json:"type"` // "message"
	Message guide.Message `json:"message"`
	// RealtimeMessageID is the draft the message was recorded from.
	RealtimeMessageID *string `json:"realtimeMessageId"`
}

// ReadEvent is published to a conversation's channel when a participant
// reads.
type ReadEvent struct {
	Type string `json:"type"` // "read"
	guidedb.ReadReceipt
}

// UnreadEvent is published to a user's channel when the user's unread
// count changes.
type UnreadEvent struct {
	Type        string `json:"type"` // "unread"
	UnreadCount int    `json:"unreadCount"`
}

// ConversationEvent is published to a user's channel when another user
// opens a conversation with them: the conversation as the REST API lists
// it.
type ConversationEvent struct {
	Type         string                    `json:"type"` // "conversation"
	Conversation guide.ConversationSummary `json:"conversation"`
}

// conversationPublications publishes a new conversation to its
// recipient's personal channel, once: the conversation's id is the
// idempotency key.
func (g *Jobs) conversationPublications(ctx context.Context, j store.Job) ([]chat.Publication, error) {
	var p guidedb.NewConversation
	if err := jobs.Decode(j, &p); err != nil {
		return nil, err
	}
	c, err := g.Store.FindLiveConversation(ctx, p.ConversationID, p.RecipientID)
	if err != nil || c == nil {
		return nil, err // nil: the conversation is gone
	}
	c.MediaRefs(g.absolute)
	return []chat.Publication{{Channel: chat.UserChannel(p.RecipientID), Data: ConversationEvent{Type: "conversation", Conversation: *c},
		Key: "conversation:" + c.ID}}, nil
}

// messagePublications publishes a recorded message to its conversation
// and the recipient's new unread count. The message's id is the
// idempotency key, so a retried job delivers it once.
func (g *Jobs) messagePublications(ctx context.Context, j store.Job) ([]chat.Publication, error) {
	var p guidedb.RealtimeMessage
	if err := jobs.Decode(j, &p); err != nil {
		return nil, err
	}
	lm := p.Live
	if lm == nil {
		var err error
		if lm, err = g.Store.FindLiveMessage(ctx, p.MessageID); err != nil || lm == nil {
			return nil, err // nil: the message is gone
		}
	}
	lm.Message.MediaRefs(g.absolute)
	pubs := []chat.Publication{{Channel: chat.ConversationChannel(lm.Message.ConversationID),
		Data: MessageEvent{Type: "message", Message: lm.Message, RealtimeMessageID: lm.RealtimeMessageID}, Key: "message:" + lm.Message.ID}}
	if lm.RecipientID == "" {
		return pubs, nil
	}
	unread, err := g.unread(ctx, j, lm.RecipientID)
	return append(pubs, unread), err
}

// readPublications publishes a read receipt and the reader's new unread
// count.
func (g *Jobs) readPublications(ctx context.Context, j store.Job) ([]chat.Publication, error) {
	var p guidedb.ReadReceipt
	if err := jobs.Decode(j, &p); err != nil {
		return nil, err
	}
	unread, err := g.unread(ctx, j, p.ReaderID)
	return []chat.Publication{{Channel: chat.ConversationChannel(p.ConversationID), Data: ReadEvent{Type: "read", ReadReceipt: p}, Key: "read:" + j.ID},
		unread}, err
}

// unread is the publication of the user's unread count.
func (g *Jobs) unread(ctx context.Context, j store.Job, userID string) (chat.Publication, error) {
	n, err := g.Store.UnreadCountOf(ctx, userID)
	return chat.Publication{Channel: chat.UserChannel(userID), Data: UnreadEvent{Type: "unread", UnreadCount: n}, Key: "unread:" + j.ID}, err
}

// absolute makes a reference to an image on the API absolute, as the REST
// answers do (media.URL, which needs a request).
func (g *Jobs) absolute(ref *string) {
	if strings.HasPrefix(*ref, "/") && !strings.HasPrefix(*ref, "//") {
		*ref = g.PublicURL + *ref
	}
}

// liveRecipient tells whether the message's recipient follows its
// conversation live, and so needs no push notification.
func (g *Jobs) liveRecipient(ctx context.Context, messageID string) bool {
	if g.Chat == nil {
		return false
	}
	conversationID, recipientID, err := g.Store.MessageRecipient(ctx, messageID)
	if err != nil || recipientID == "" {
		return false
	}
	online, err := g.Chat.Online(ctx, chat.ConversationChannel(conversationID), recipientID)
	if err != nil {
		// Better a notification too many than a message missed.
		g.logger().WarnContext(ctx, "worker: realtime presence unknown; notifying", "message", messageID, "err", err)
		return false
	}
	return online
}
