package guide

import (
	"context"
	"encoding/json"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Message types.
const (
	MessageText  = "TEXT"
	MessageImage = "IMAGE"
)

// CheckNewConversation tells whether the user may open a conversation with
// the expert whose account is expertUserID, and who takes messages or
// not. Errors: apperr.InvalidState.
func CheckNewConversation(userID, expertUserID string, messaging bool) error {
	switch {
	case expertUserID == userID:
		return apperr.Errorf(apperr.InvalidState, "You cannot open a conversation with yourself.")
	case !messaging:
		return apperr.Errorf(apperr.InvalidState, "This expert does not take messages.")
	}
	return nil
}

// CheckParticipant tells whether the user takes part in the conversation
// of the traveller touristID with the expert whose account is
// expertUserID. Errors: apperr.Forbidden.
func CheckParticipant(userID, touristID, expertUserID string) error {
	if userID != touristID && userID != expertUserID {
		return apperr.Errorf(apperr.Forbidden, "This conversation is not yours.")
	}
	return nil
}

// ConversationSummary is a conversation as its participants list it.
type ConversationSummary struct {
	ID            string              `json:"id"`
	LastMessage   *string             `json:"lastMessage"`
	LastMessageAt *time.Time          `json:"lastMessageAt"`
	UnreadCount   int                 `json:"unreadCount"`
	Expert        ConversationExpert  `json:"expert"`
	Tourist       ConversationTourist `json:"tourist"`
	CreatedAt     time.Time           `json:"createdAt"`
}

// ConversationExpert is the expert side of a conversation.
type ConversationExpert struct {
	Handle string  `json:"handle"`
	Name   *string `json:"name"`
	Image  *string `json:"image"`
}

// ConversationTourist is the side that opened the conversation.
type ConversationTourist struct {
	ID    string  `json:"id"`
	Name  *string `json:"name"`
	Image *string `json:"image"`
}

// Message is one message of a conversation.
type Message struct {
	ID             string        `json:"id"`
	ConversationID string        `json:"conversationId"`
	SenderID       string        `json:"senderId"`
	MessageType    string        `json:"messageType"`
	Content        *string       `json:"content"`
	ImageURL       *string       `json:"imageUrl"`
	ImageWidth     *int          `json:"imageWidth"`
	ImageHeight    *int          `json:"imageHeight"`
	IsRead         bool          `json:"isRead"`
	IsAIGenerated  bool          `json:"isAiGenerated"`
	CreatedAt      time.Time     `json:"createdAt"`
	Sender         MessageSender `json:"sender"`
}

// MessageSender is the public face of a message's author.
type MessageSender struct {
	ID    string  `json:"id"`
	Name  *string `json:"name"`
	Image *string `json:"image"`
}

// MessagePage is a page of a conversation, oldest first; NextCursor walks
// further back.
type MessagePage struct {
	Messages   []Message `json:"messages"`
	HasMore    bool      `json:"hasMore"`
	NextCursor *string   `json:"nextCursor"`
}

// NewMessage is a message to send.
type NewMessage struct {
	Content           string
	MessageType       string
	RealtimeMessageID *string
}

// Availability is an expert's working pattern.
type Availability struct {
	ExpertID       string          `json:"expertId"`
	WeeklySchedule json.RawMessage `json:"weeklySchedule"`
	Timezone       string          `json:"timezone"`
	BlockedDates   json.RawMessage `json:"blockedDates"`
}

// ConversationStore keeps conversations between travellers and experts.
// Only the two participants may read or write one: anyone else gets
// apperr.Forbidden.
type ConversationStore interface {
	// OpenConversation returns the user's conversation with the verified
	// expert, creating it if needed (created tells which). Errors:
	// apperr.NotFound, apperr.InvalidState (messaging disabled, or the user
	// is that expert).
	OpenConversation(ctx context.Context, user *User, expertHandle string) (*ConversationSummary, bool, error)
	// FindConversations lists the user's conversations, newest activity first.
	FindConversations(ctx context.Context, user *User) ([]ConversationSummary, error)
	// FindMessages returns up to limit messages before cursor (a message id;
	// "" for the newest). Errors: apperr.NotFound, apperr.Forbidden,
	// apperr.Validation (unknown cursor).
	FindMessages(ctx context.Context, user *User, conversationID, cursor string, limit int) (*MessagePage, error)
	// SendMessage stores a message and, in the same transaction, the jobs
	// that publish it on the realtime channel, notify the recipient (when
	// they have a registered device) and,
	// when aiReply is set and the expert has auto-reply, ask for an AI reply. A RealtimeMessageID already recorded
	// returns the stored message with created false.
	// Errors: apperr.NotFound, apperr.Forbidden.
	SendMessage(ctx context.Context, user *User, conversationID string, m NewMessage, aiReply bool) (*Message, bool, error)
	// MarkRead marks every message from the other party as read and, in
	// the same transaction, the job that publishes the read receipt.
	// Errors: apperr.NotFound, apperr.Forbidden.
	MarkRead(ctx context.Context, user *User, conversationID string) (int, error)
	// UnreadCount counts unread messages from others across the user's
	// conversations.
	UnreadCount(ctx context.Context, user *User) (int, error)
	// FindAvailability returns the user's expert schedule.
	// Errors: apperr.NotFound when the user is not an expert.
	FindAvailability(ctx context.Context, user *User) (*Availability, error)
}
