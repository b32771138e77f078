package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// This file is the guide's side of the background jobs (guidejobs): the
// reads and writes that the push and AI-reply jobs need.

// messageParties is who sent a message and who receives it.
type messageParties struct {
	conversationID, messageType string
	content                     sql.NullString
	senderID, recipientID       string // recipientID is "" when the sender is neither participant
	senderName                  sql.NullString
	senderNickname              sql.NullString
	senderHandle                string
	senderDeleted               bool
}

// loadMessageParties returns the message's parties, or nil when there is no
// such message.
func loadMessageParties(ctx context.Context, q store.Querier, messageID string) (*messageParties, error) {
	var p messageParties
	var tourist, expertUser string
	err := q.QueryRowContext(ctx, `SELECT m.conversation_id, m.message_type, m.content, m.sender_id,
			s.name, s.nickname, s.handle, s.deleted_at IS NOT NULL, c.tourist_id, e.user_id
		FROM messages m JOIN conversations c ON c.id = m.conversation_id
		JOIN experts e ON e.id = c.expert_id JOIN users s ON s.id = m.sender_id
		WHERE m.id = $1`, messageID).Scan(&p.conversationID, &p.messageType, &p.content, &p.senderID,
		&p.senderName, &p.senderNickname, &p.senderHandle, &p.senderDeleted, &tourist, &expertUser)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	switch p.senderID {
	case tourist:
		p.recipientID = expertUser
	case expertUser:
		p.recipientID = tourist
	}
	return &p, nil
}

// FanOutPushMessage turns the guide.JobPushMessage job into one guide.JobPushDevice job
// per device of the message's recipient and completes it, in one
// transaction, and returns the number of devices. A message that no longer
// exists, or whose recipient has closed the account, has no devices.
// Errors: store.ErrJobDone when another worker completed the job meanwhile (then
// nothing was enqueued).
func (g *Guide) FanOutPushMessage(ctx context.Context, jobID, messageID string) (_ int, err error) {
	defer store.Wrap(&err, "fan out job %s of message %s", jobID, messageID)
	now := g.clock.Now()
	n := 0
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		// Completing comes first so that on PostgreSQL it holds the job's
		// row lock while the device jobs are written.
		if err := g.jobs.CompleteIn(ctx, tx, jobID); err != nil {
			return err
		}
		p, err := loadMessageParties(ctx, tx, messageID)
		if err != nil || p == nil || p.recipientID == "" {
			return err
		}
		n, err = g.enqueuePerDevice(ctx, tx, p.recipientID, guide.JobPushDevice, "messageId", messageID, now)
		return err
	})
	return n, err
}

// enqueuePerDevice enqueues a job of kind for each device registered to
// the user (none once the account is closed), with the payload
// {idField: id, "token": <the device's token>}, and returns how many.
func (g *Guide) enqueuePerDevice(ctx context.Context, tx *sql.Tx, userID, kind, idField, id string, now time.Time) (int, error) {
	return g.enqueuePerDeviceWith(ctx, tx, userID, kind, map[string]string{idField: id}, now)
}

// enqueuePerDeviceWith is enqueuePerDevice with a payload of its own,
// to which each job adds its device's "token".
func (g *Guide) enqueuePerDeviceWith(ctx context.Context, tx *sql.Tx, userID, kind string, payload map[string]string, now time.Time) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT t.token FROM push_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.user_id = $1 AND u.deleted_at IS NULL ORDER BY t.created_at, t.token`, userID)
	if err != nil {
		return 0, err
	}
	var tokens []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return 0, err
		}
		tokens = append(tokens, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, t := range tokens {
		p := map[string]string{"token": t}
		for k, v := range payload {
			p[k] = v
		}
		if err := g.jobs.Enqueue(ctx, tx, kind, p, now); err != nil {
			return 0, err
		}
	}
	return len(tokens), nil
}

// ActionPush is what the worker needs to ask one device's owner to
// confirm a pending action.
type ActionPush struct {
	ActionID  string
	Action    string // guide.ActionBookingCancel or guide.ActionAccountDelete
	TargetID  string // the booking of a cancellation; "" otherwise
	ExpiresAt time.Time
	// KeyName is the name the person gave the API key that asked; "" when
	// the key is gone.
	KeyName         string
	UserID          string
	RecipientLocale string // users.locale
	Token           string
	Platform        string // WEB, ANDROID or IOS
	DeviceLocale    string // "" when the device sent none
}

// ActionPushDelivery loads the notification of a pending action for the
// device, or returns nil when there is nothing to ask any more: the action
// is confirmed or expired, the device is no longer registered to the
// person, or the account is closed.
func (g *Guide) ActionPushDelivery(ctx context.Context, actionID, token string) (_ *ActionPush, err error) {
	defer store.Wrap(&err, "load push delivery of action %s", actionID)
	d := &ActionPush{ActionID: actionID, Token: token}
	var target, keyName, deviceLocale sql.NullString
	err = g.db.QueryRowContext(ctx, `SELECT a.action, a.target_id, a.expires_at, a.user_id, k.name, u.locale, t.platform, t.device_locale
		FROM pending_actions a JOIN users u ON u.id = a.user_id
		JOIN push_tokens t ON t.user_id = a.user_id AND t.token = $2
		LEFT JOIN api_keys k ON k.id = a.api_key_id
		WHERE a.id = $1 AND a.status = 'pending' AND NOT a.superseded AND a.expires_at > $3 AND u.deleted_at IS NULL`,
		actionID, token, g.clock.Now()).Scan(&d.Action, &target, &d.ExpiresAt, &d.UserID, &keyName, &d.RecipientLocale, &d.Platform, &deviceLocale)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	d.ExpiresAt = d.ExpiresAt.UTC()
	d.TargetID, d.KeyName, d.DeviceLocale = target.String, keyName.String, deviceLocale.String
	return d, nil
}

// PushDelivery is what the worker needs to notify one device of a message.
type PushDelivery struct {
	MessageID      string
	ConversationID string
	MessageType    string // TEXT or IMAGE
	Text           string // the message's content, "" when none
	SenderID       string
	// SenderName is the sender's display name (name, else nickname, else
	// handle); SenderDeleted is set when the account is closed.
	SenderName      string
	SenderDeleted   bool
	RecipientID     string
	RecipientLocale string // users.locale
	Token           string
	Platform        string // WEB, ANDROID or IOS
	DeviceLocale    string // "" when the device sent none
	Timezone        string // IANA name; "" when the device sent none
}

// PushDelivery loads the notification of the message for the device, or
// returns nil when there is nothing to deliver: the message is gone, the
// device is no longer registered to the recipient, or the recipient's
// account is closed.
func (g *Guide) PushDelivery(ctx context.Context, messageID, token string) (_ *PushDelivery, err error) {
	defer store.Wrap(&err, "load push delivery of message %s", messageID)
	p, err := loadMessageParties(ctx, g.db, messageID)
	if err != nil || p == nil || p.recipientID == "" {
		return nil, err
	}
	d := &PushDelivery{
		MessageID: messageID, ConversationID: p.conversationID, MessageType: p.messageType, Text: p.content.String,
		SenderID: p.senderID, SenderName: p.senderHandle, SenderDeleted: p.senderDeleted, RecipientID: p.recipientID, Token: token,
	}
	if p.senderName.Valid && strings.TrimSpace(p.senderName.String) != "" {
		d.SenderName = p.senderName.String
	} else if p.senderNickname.Valid && strings.TrimSpace(p.senderNickname.String) != "" {
		d.SenderName = p.senderNickname.String
	}
	var deviceLocale, timezone sql.NullString
	err = g.db.QueryRowContext(ctx, `SELECT u.locale, t.platform, t.device_locale, t.timezone
		FROM push_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token = $1 AND t.user_id = $2 AND u.deleted_at IS NULL`, token, p.recipientID).Scan(
		&d.RecipientLocale, &d.Platform, &deviceLocale, &timezone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	d.DeviceLocale, d.Timezone = deviceLocale.String, timezone.String
	return d, nil
}

// DeletePushToken forgets a device token that the push provider reports
// dead, whoever it is registered to.
func (g *Guide) DeletePushToken(ctx context.Context, token string) (err error) {
	defer store.Wrap(&err, "delete push token")
	_, err = g.db.ExecContext(ctx, `DELETE FROM push_tokens WHERE token = $1`, token)
	return err
}

// ErrNoAIReply reports that a message is not to be answered by the AI
// assistant; the wrapping error says why.
var ErrNoAIReply = errors.New("no AI reply wanted")

// AIReplyContext is what the AI assistant is told to answer a traveller's
// message on an expert's behalf.
type AIReplyContext struct {
	ConversationID string
	MessageID      string // the traveller's message to answer
	ExpertID       string
	ExpertUserID   string
	ExpertName     string
	Bio            string
	Location       string // city
	CountryCode    string
	Specialties    []string
	Languages      []string
	Packages       []AIPackage // active packages, newest first
	Instructions   string      // the expert's ai_instructions
	TouristName    string
	// History is the conversation's latest messages, oldest first: those
	// after the one to answer are the traveller's (otherwise there would be
	// no reply), so one reply answers a burst of messages, and the later
	// messages' jobs find it and write none.
	History []AIHistoryMessage
}

// AIPackage is an active package as the assistant is told about it.
type AIPackage struct {
	Title    string
	Price    float64
	Currency string
	Duration int // hours
}

// AIHistoryMessage is a message of the conversation.
type AIHistoryMessage struct {
	FromExpert bool
	Type       string // TEXT or IMAGE
	Text       string
	CreatedAt  time.Time
}

// aiReplyTag is the realtime_message_id of the assistant's reply to a
// message, sent as the expert: UNIQUE (conversation_id, sender_id,
// realtime_message_id) makes a second reply to the same message
// impossible.
func aiReplyTag(messageID string) string { return "ai:" + messageID }

// aiTrigger is the message to answer and the state that decides whether it
// is still to be answered.
type aiTrigger struct {
	createdAt                time.Time
	expertID, expertUserID   string
	touristID                string
	autoReply, messaging     bool
	expertGone, touristGone  bool
	instructions, expertName sql.NullString
	touristName              sql.NullString
}

// checkAITrigger loads the message and returns why it is not to be
// answered (wrapping ErrNoAIReply), if so.
func checkAITrigger(ctx context.Context, q store.Querier, conversationID, messageID string) (*aiTrigger, error) {
	var t aiTrigger
	var sender string
	err := q.QueryRowContext(ctx, `SELECT m.created_at, m.sender_id, c.tourist_id, e.id, e.user_id,
			e.ai_auto_reply, e.messaging_enabled, e.ai_instructions, eu.name, eu.deleted_at IS NOT NULL,
			tu.name, tu.deleted_at IS NOT NULL
		FROM messages m JOIN conversations c ON c.id = m.conversation_id
		JOIN experts e ON e.id = c.expert_id JOIN users eu ON eu.id = e.user_id JOIN users tu ON tu.id = c.tourist_id
		WHERE m.id = $1 AND m.conversation_id = $2`, messageID, conversationID).Scan(
		&t.createdAt, &sender, &t.touristID, &t.expertID, &t.expertUserID, &t.autoReply, &t.messaging, &t.instructions,
		&t.expertName, &t.expertGone, &t.touristName, &t.touristGone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: message %s is not in conversation %s", ErrNoAIReply, messageID, conversationID)
	} else if err != nil {
		return nil, err
	}
	t.createdAt = t.createdAt.UTC()
	switch {
	case sender != t.touristID:
		return nil, fmt.Errorf("%w: the message is not the traveller's", ErrNoAIReply)
	case !t.autoReply:
		return nil, fmt.Errorf("%w: the expert has turned AI auto-reply off", ErrNoAIReply)
	case !t.messaging:
		return nil, fmt.Errorf("%w: the expert has turned messaging off", ErrNoAIReply)
	case t.expertGone || t.touristGone:
		return nil, fmt.Errorf("%w: an account is closed", ErrNoAIReply)
	}
	var answered bool
	err = q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = $1 AND sender_id = $3
			AND (realtime_message_id = $2 OR created_at > $4 OR (created_at = $4 AND id > $5)))`,
		conversationID, aiReplyTag(messageID), t.expertUserID, t.createdAt, messageID).Scan(&answered)
	if err != nil {
		return nil, err
	}
	if answered {
		return nil, fmt.Errorf("%w: the expert has answered since", ErrNoAIReply)
	}
	return &t, nil
}

// aiHistoryLimit is how many of the conversation's latest messages the
// assistant is shown.
const aiHistoryLimit = 20

// LoadAIReplyContext returns what the assistant needs to answer the
// traveller's message. Errors: ErrNoAIReply (wrapped) when the message is
// not to be answered: it is gone or not the traveller's, the expert has
// turned auto-reply or messaging off, an account is closed, or the expert
// (or the assistant) has answered since.
func (g *Guide) LoadAIReplyContext(ctx context.Context, conversationID, messageID string) (_ *AIReplyContext, err error) {
	defer store.Wrap(&err, "load AI reply context of message %s", messageID)
	t, err := checkAITrigger(ctx, g.db, conversationID, messageID)
	if err != nil {
		return nil, err
	}
	c := &AIReplyContext{
		ConversationID: conversationID, MessageID: messageID, ExpertID: t.expertID, ExpertUserID: t.expertUserID,
		ExpertName: t.expertName.String, Instructions: t.instructions.String, TouristName: t.touristName.String,
	}
	var bio, location, country sql.NullString
	if err := g.db.QueryRowContext(ctx, `SELECT bio, location, country_code FROM experts WHERE id = $1`, t.expertID).Scan(
		&bio, &location, &country); err != nil {
		return nil, err
	}
	c.Bio, c.Location, c.CountryCode = bio.String, location.String, country.String
	tags := []guide.ExpertSummary{{ID: t.expertID}}
	if err := g.loadExpertTags(ctx, tags); err != nil {
		return nil, err
	}
	c.Specialties, c.Languages = tags[0].Specialties, tags[0].Languages

	rows, err := g.db.QueryContext(ctx, `SELECT title, base_price, currency, duration FROM packages
		WHERE expert_id = $1 AND is_active = TRUE ORDER BY created_at DESC, id LIMIT 20`, t.expertID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var p AIPackage
		if err := rows.Scan(&p.Title, &p.Price, &p.Currency, &p.Duration); err != nil {
			rows.Close()
			return nil, err
		}
		c.Packages = append(c.Packages, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = g.db.QueryContext(ctx, `SELECT sender_id, message_type, content, created_at FROM messages
		WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, conversationID, aiHistoryLimit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m AIHistoryMessage
		var sender string
		var content sql.NullString
		if err := rows.Scan(&sender, &m.Type, &content, &m.CreatedAt); err != nil {
			return nil, err
		}
		m.FromExpert, m.Text, m.CreatedAt = sender == t.expertUserID, content.String, m.CreatedAt.UTC()
		c.History = append(c.History, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(c.History) > 0 && c.History[0].FromExpert {
		// Answered between the check and this read.
		return nil, fmt.Errorf("%w: the expert has answered since", ErrNoAIReply)
	}
	for i, j := 0, len(c.History)-1; i < j; i, j = i+1, j-1 {
		c.History[i], c.History[j] = c.History[j], c.History[i]
	}
	return c, nil
}

// PostAIReply writes the assistant's answer to the traveller's message as a
// TEXT message from the expert with is_ai_generated set, makes it the
// conversation's last message and enqueues its publication on the realtime
// channel and its push notification, all in
// one transaction, and returns the new message's id. The reasons for no
// reply are checked again inside the transaction, and a message is never
// answered twice. Errors: ErrNoAIReply (wrapped), as LoadAIReplyContext.
func (g *Guide) PostAIReply(ctx context.Context, conversationID, messageID, text string) (_ string, err error) {
	defer store.Wrap(&err, "post AI reply to message %s", messageID)
	now := g.clock.Now()
	id := store.NewID()
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		// Writing the conversation's row first serialises the replies to
		// one conversation on PostgreSQL too (SQLite serialises all
		// writers): a concurrent reply, or a message sent with the usual
		// update of last_message, commits before the checks below read.
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated_at = updated_at WHERE id = $1`, conversationID); err != nil {
			return err
		}
		t, err := checkAITrigger(ctx, tx, conversationID, messageID)
		if err != nil {
			return err
		}
		at := now
		if !at.After(t.createdAt) {
			// The reply must sort after the message it answers.
			at = t.createdAt.Add(time.Microsecond)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO messages (id, conversation_id, sender_id, message_type, content,
				is_read, is_ai_generated, realtime_message_id, created_at)
			VALUES ($1, $2, $3, 'TEXT', $4, FALSE, TRUE, $5, $6)`,
			id, conversationID, t.expertUserID, text, aiReplyTag(messageID), at)
		if store.IsUniqueViolation(err) {
			return fmt.Errorf("%w: the message has been answered already", ErrNoAIReply)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET last_message = $2, last_message_at = $3, updated_at = $4,
				tourist_unread = tourist_unread + $5 WHERE id = $1`, conversationID, text, at, now, unread(t.touristID != t.expertUserID)); err != nil {
			return err
		}
		// The event and the realtime job carry the reply as the API shows
		// it (the expert's name and picture), read back once.
		var m guide.Message
		if err := scanMessage(tx.QueryRowContext(ctx, messageSelect+` WHERE m.id = $1`, id), &m); err != nil {
			return err
		}
		if err := g.jobs.Enqueue(ctx, tx, guide.JobRealtimeMessage, realtimeMessage(&m, nil, t.touristID, t.expertUserID), now); err != nil {
			return err
		}
		if err := g.recordMessageEvent(ctx, tx, &m, t.touristID, t.expertUserID); err != nil {
			return err
		}
		return g.jobs.Enqueue(ctx, tx, guide.JobPushMessage, map[string]string{"messageId": id}, now)
	})
	if err != nil {
		return "", err
	}
	return id, nil
}
