package guide

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// Conversations are the person's own: an API key never reads or writes
// them (apperr.Forbidden), whatever its scopes.

// ListConversations lists the caller's conversations, newest activity first.
// Errors: apperr.Unauthorized, apperr.Forbidden.
func (s *Service) ListConversations(ctx context.Context, c *Caller) ([]ConversationSummary, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	return s.Conversations.FindConversations(ctx, c.User)
}

// ConversationRequest opens a conversation with a verified expert.
type ConversationRequest struct {
	ExpertHandle *string `json:"expertHandle"` // 1 to 100 characters
}

// OpenConversation returns the caller's conversation with the expert,
// opening it if needed (created tells which). Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.Validation,
// apperr.NotFound, apperr.InvalidState (messaging disabled, or the caller
// is that expert).
func (s *Service) OpenConversation(ctx context.Context, c *Caller, in ConversationRequest) (conv *ConversationSummary, created bool, err error) {
	if err := checkPerson(c); err != nil {
		return nil, false, err
	}
	errs := apperr.FieldErrors{}
	handle := field.CheckString(errs, "expertHandle", in.ExpertHandle, true, 1, 100)
	if err := errs.Err(); err != nil {
		return nil, false, err
	}
	return s.Conversations.OpenConversation(ctx, c.User, handle)
}

// MessageLimitRange is the page sizes of a conversation.
var MessageLimitRange = field.Range[int]{Min: 1, Max: 100}

// MessageSearch selects a page of a conversation, walking back from the
// newest message.
type MessageSearch struct {
	ConversationID string
	Limit          *int   // 1 to 100 (default 50)
	Cursor         string // a message id, up to 64 characters; "" for the newest
}

// Messages returns a page of a conversation of the caller, oldest first.
// Errors: apperr.Unauthorized, apperr.Forbidden, apperr.NotFound,
// apperr.Validation.
func (s *Service) Messages(ctx context.Context, c *Caller, in MessageSearch) (*MessagePage, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	id, err := checkID(in.ConversationID, "conversation")
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	limit := MessageLimitRange.Check(errs, "limit", in.Limit, 50)
	cursor := field.Text(errs, "cursor", in.Cursor, 64)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Conversations.FindMessages(ctx, c.User, id, cursor, limit)
}

// MessageRequest is a message to send, its fields as sent.
type MessageRequest struct {
	Content     *string `json:"content"`     // 1 to 5000 characters, not blank
	MessageType *string `json:"messageType"` // TEXT (default) or IMAGE, whose content is the image's http(s) URL
	// RealtimeMessageID is the id the realtime channel gave the message:
	// sent again, the stored message is returned.
	RealtimeMessageID *string `json:"realtimeMessageId"`
}

// SendMessage sends a message to a conversation of the caller (created
// false when its RealtimeMessageID was already recorded); when an AI
// model is configured and the expert has auto-reply, it asks for a reply.
// Errors: apperr.Unauthorized, apperr.Forbidden, apperr.NotFound,
// apperr.Validation.
func (s *Service) SendMessage(ctx context.Context, c *Caller, conversationID string, in MessageRequest) (msg *Message, created bool, err error) {
	if err := checkPerson(c); err != nil {
		return nil, false, err
	}
	id, err := checkID(conversationID, "conversation")
	if err != nil {
		return nil, false, err
	}
	errs := apperr.FieldErrors{}
	m := NewMessage{MessageType: MessageText, RealtimeMessageID: in.RealtimeMessageID}
	m.Content = field.CheckString(errs, "content", in.Content, true, 1, 5000)
	if in.Content != nil && strings.TrimSpace(*in.Content) == "" {
		errs.Add("content", "must not be blank")
	}
	if in.MessageType != nil {
		switch *in.MessageType {
		case MessageText:
		case MessageImage:
			if u, err := url.Parse(m.Content); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				errs.Add("content", "must be the image's http(s) URL for an IMAGE message")
			}
		default:
			errs.Add("messageType", "must be TEXT or IMAGE")
		}
		m.MessageType = *in.MessageType
	}
	field.CheckString(errs, "realtimeMessageId", in.RealtimeMessageID, false, 1, 200)
	if err := errs.Err(); err != nil {
		return nil, false, err
	}
	return s.Conversations.SendMessage(ctx, c.User, id, m, s.AIReplies)
}

// MarkRead marks every message from the other party of a conversation of
// the caller as read, and answers how many were. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound.
func (s *Service) MarkRead(ctx context.Context, c *Caller, conversationID string) (int, error) {
	if err := checkPerson(c); err != nil {
		return 0, err
	}
	id, err := checkID(conversationID, "conversation")
	if err != nil {
		return 0, err
	}
	return s.Conversations.MarkRead(ctx, c.User, id)
}

// UnreadCount counts the unread messages from others across the caller's
// conversations. Errors: apperr.Unauthorized, apperr.Forbidden.
func (s *Service) UnreadCount(ctx context.Context, c *Caller) (int, error) {
	if err := checkPerson(c); err != nil {
		return 0, err
	}
	return s.Conversations.UnreadCount(ctx, c.User)
}

// RealtimeToken is what a client connects to the realtime channel with.
type RealtimeToken struct {
	AppID     string    `json:"appId"`
	UserID    string    `json:"userId"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// RealtimeToken issues the caller a token for the realtime channel.
// Errors: apperr.Unauthorized, apperr.Forbidden.
func (s *Service) RealtimeToken(_ context.Context, c *Caller) (*RealtimeToken, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	token, exp, err := s.Realtime.Issue(c.User.ID)
	if err != nil {
		return nil, err
	}
	return &RealtimeToken{AppID: s.Realtime.AppID, UserID: c.User.ID, Token: token, ExpiresAt: exp}, nil
}

// Availability returns the caller's expert schedule. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (the caller is
// not an expert).
func (s *Service) Availability(ctx context.Context, c *Caller) (*Availability, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	return s.Conversations.FindAvailability(ctx, c.User)
}
