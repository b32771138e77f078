package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// This file is the guide's side of the realtime channel: the jobs that
// publish what a transaction committed (an outbox: a job is enqueued in the
// transaction, so a publication exists if and only if the change does, and
// survives a crash between the commit and the publish), and the reads the
// channel's access rules need.

// NewConversation says that a conversation was opened with a recipient.
type NewConversation struct {
	ConversationID string `json:"conversationId"`
	RecipientID    string `json:"recipientId"`
}

// ReadReceipt says that a participant read the other party's messages.
type ReadReceipt struct {
	ConversationID string    `json:"conversationId"`
	ReaderID       string    `json:"readerId"`
	MarkedCount    int       `json:"markedCount"`
	ReadAt         time.Time `json:"readAt"`
}

// RealtimeMessage is the payload of a guide.JobRealtimeMessage. Live is the
// message as its transaction wrote it, so that the runner publishes it
// without reading it back; nil in the jobs of earlier versions, which
// name the message only.
type RealtimeMessage struct {
	MessageID string       `json:"messageId"`
	Live      *LiveMessage `json:"live,omitempty"`
}

// LiveMessage is a recorded message as the realtime channel publishes it.
type LiveMessage struct {
	Message guide.Message `json:"message"`
	// RealtimeMessageID is the id of the draft the message was recorded
	// from (nil when none), so that clients can replace the draft.
	RealtimeMessageID *string `json:"realtimeMessageId"`
	// RecipientID is the other participant; "" when the sender is neither.
	RecipientID string `json:"recipientId"`
}

// newLiveMessage returns m, recorded from the draft rtID (nil when none),
// as published to its conversation of tourist and expertUser.
func newLiveMessage(m *guide.Message, rtID *string, tourist, expertUser string) *LiveMessage {
	lm := &LiveMessage{Message: *m}
	if !m.IsAIGenerated {
		lm.RealtimeMessageID = rtID // an AI reply's tag is internal
	}
	switch m.SenderID {
	case tourist:
		lm.RecipientID = expertUser
	case expertUser:
		lm.RecipientID = tourist
	}
	return lm
}

// realtimeMessage is the payload of m's guide.JobRealtimeMessage.
func realtimeMessage(m *guide.Message, rtID *string, tourist, expertUser string) RealtimeMessage {
	return RealtimeMessage{MessageID: m.ID, Live: newLiveMessage(m, rtID, tourist, expertUser)}
}

// FindLiveMessage returns the message to publish, or nil when it no longer
// exists: for the jobs whose payload does not carry it.
func (g *Guide) FindLiveMessage(ctx context.Context, messageID string) (_ *LiveMessage, err error) {
	defer store.Wrap(&err, "find live message %s", messageID)
	var m guide.Message
	var rtID sql.NullString
	var tourist, expertUser string
	// One query: the message as the API shows it, with its draft's id and
	// its conversation's two users.
	row := g.db.QueryRowContext(ctx, messageColumns+`, m.realtime_message_id, c.tourist_id, e.user_id
		FROM messages m JOIN users s ON s.id = m.sender_id
		JOIN conversations c ON c.id = m.conversation_id JOIN experts e ON e.id = c.expert_id
		WHERE m.id = $1`, messageID)
	err = scanMessage(scanWith{row, []any{&rtID, &tourist, &expertUser}}, &m)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return newLiveMessage(&m, store.NullString(rtID), tourist, expertUser), nil
}

// scanWith scans a row into a scanner's destinations and then extra.
type scanWith struct {
	row   *sql.Row
	extra []any
}

func (s scanWith) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }

// MessageRecipient returns the conversation of a message and who receives
// it; both "" when there is no such message.
func (g *Guide) MessageRecipient(ctx context.Context, messageID string) (conversationID, recipientID string, err error) {
	defer store.Wrap(&err, "find recipient of message %s", messageID)
	p, err := loadMessageParties(ctx, g.db, messageID)
	if err != nil || p == nil {
		return "", "", err
	}
	return p.conversationID, p.recipientID, nil
}

// CheckParticipant tells whether an open account takes part in the
// conversation. Errors: apperr.NotFound (no such conversation),
// apperr.Forbidden (not a participant).
func (g *Guide) CheckParticipant(ctx context.Context, userID, conversationID string) (err error) {
	defer store.Wrap(&err, "check participant %s of conversation %s", userID, conversationID)
	_, _, _, err = participants(ctx, g.db, &guide.User{ID: userID}, conversationID)
	return err
}

// UnreadCountOf counts the unread messages of a user by id.
func (g *Guide) UnreadCountOf(ctx context.Context, userID string) (int, error) {
	return g.UnreadCount(ctx, &guide.User{ID: userID})
}

// FindLiveConversation returns a conversation as the user lists it, or nil
// when it no longer exists.
func (g *Guide) FindLiveConversation(ctx context.Context, conversationID, userID string) (_ *guide.ConversationSummary, err error) {
	defer store.Wrap(&err, "find live conversation %s", conversationID)
	var c guide.ConversationSummary
	err = scanConversation(g.db.QueryRowContext(ctx, conversationSelect+` WHERE c.id = $2`, userID, conversationID), &c)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &c, err
}
