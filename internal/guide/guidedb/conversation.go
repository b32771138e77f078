package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.ConversationStore = (*Guide)(nil)

const conversationSelect = `SELECT c.id, c.last_message, c.last_message_at, c.created_at,
		eu.handle, eu.name, COALESCE(eu.avatar, e.profile_image), eu.deleted_at IS NOT NULL,
		t.id, t.name, COALESCE(t.avatar, t.image), t.deleted_at IS NOT NULL,
		CASE WHEN c.tourist_id = $1 THEN c.tourist_unread ELSE c.expert_unread END
	FROM conversations c JOIN experts e ON e.id = c.expert_id JOIN users eu ON eu.id = e.user_id
	JOIN users t ON t.id = c.tourist_id`

func scanConversation(s interface{ Scan(...any) error }, c *guide.ConversationSummary) error {
	var last, eName, eImage, tName, tImage sql.NullString
	var lastAt sql.NullTime
	var eGone, tGone bool
	if err := s.Scan(&c.ID, &last, &lastAt, &c.CreatedAt, &c.Expert.Handle, &eName, &eImage, &eGone,
		&c.Tourist.ID, &tName, &tImage, &tGone, &c.UnreadCount); err != nil {
		return err
	}
	c.LastMessage, c.LastMessageAt, c.CreatedAt = store.NullString(last), store.NullTime(lastAt), c.CreatedAt.UTC()
	c.Expert.Name, c.Expert.Image = displayName(eName, eGone), store.NullString(eImage)
	c.Tourist.Name, c.Tourist.Image = displayName(tName, tGone), store.NullString(tImage)
	if eGone {
		c.Expert.Image = nil
	}
	if tGone {
		c.Tourist.Image = nil
	}
	return nil
}

// OpenConversation returns the user's conversation with a verified expert,
// creating it if needed, and then enqueues its publication to the
// expert's personal channel in the same transaction. Two concurrent opens create one conversation: the
// pair is unique and the insert does nothing on conflict.
func (g *Guide) OpenConversation(ctx context.Context, user *guide.User, handle string) (_ *guide.ConversationSummary, _ bool, err error) {
	defer store.Wrap(&err, "open conversation of user %s with expert %s", user.ID, handle)
	var expertID, expertUser string
	var messaging bool
	err = g.db.QueryRowContext(ctx, `SELECT e.id, u.id, e.messaging_enabled FROM experts e JOIN users u ON u.id = e.user_id
		WHERE u.handle = $1 AND `+publicExpert, strings.ToLower(handle)).Scan(&expertID, &expertUser, &messaging)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, apperr.Errorf(apperr.NotFound, "No expert with handle %q.", handle)
	} else if err != nil {
		return nil, false, err
	}
	if err := guide.CheckNewConversation(user.ID, expertUser, messaging); err != nil {
		return nil, false, err
	}
	now := g.clock.Now()
	var c guide.ConversationSummary
	var created int64
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, tourist_id, expert_id, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4) ON CONFLICT (tourist_id, expert_id) DO NOTHING`, store.NewID(), user.ID, expertID, now)
		if err != nil {
			return fmt.Errorf("insert conversation: %w", err)
		}
		if created, err = res.RowsAffected(); err != nil {
			return err
		}
		err = scanConversation(tx.QueryRowContext(ctx, conversationSelect+` WHERE c.tourist_id = $1 AND c.expert_id = $2`, user.ID, expertID), &c)
		if err != nil {
			return fmt.Errorf("read conversation: %w", err)
		}
		if created == 0 {
			return nil // no effect: the answer (200) is recorded after it
		}
		// The expert learns of the conversation live, once it is committed.
		if err := g.jobs.Enqueue(ctx, tx, guide.JobRealtimeConversation, NewConversation{ConversationID: c.ID, RecipientID: expertUser}, now); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, &c)
	})
	if err != nil {
		return nil, false, err
	}
	return &c, created == 1, nil
}

// FindConversations lists the user's conversations, newest activity first.
func (g *Guide) FindConversations(ctx context.Context, user *guide.User) (_ []guide.ConversationSummary, err error) {
	defer store.Wrap(&err, "find conversations of user %s", user.ID)
	rows, err := g.db.QueryContext(ctx, conversationSelect+` WHERE c.tourist_id = $1 OR e.user_id = $1
		ORDER BY COALESCE(c.last_message_at, c.created_at) DESC, c.id DESC`, user.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []guide.ConversationSummary{}
	for rows.Next() {
		var c guide.ConversationSummary
		if err := scanConversation(rows, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// participants returns the conversation's two users, checking that user
// is one of them. Errors: apperr.NotFound, apperr.Forbidden.
func participants(ctx context.Context, q store.Querier, user *guide.User, id string) (tourist, expertUser, expertID string, err error) {
	return checkParticipants(user, id, q.QueryRowContext(ctx, `SELECT c.tourist_id, e.user_id, e.id
		FROM conversations c JOIN experts e ON e.id = c.expert_id WHERE c.id = $1`, id))
}

// senderParticipants is participants for user sending a message; from the
// same query, devices tells whether the recipient has a device to notify,
// and autoReply whether the expert answers by AI, so that the send reads
// the expert's row once.
func senderParticipants(ctx context.Context, q store.Querier, user *guide.User, id string) (tourist, expertUser string, devices, autoReply bool, err error) {
	tourist, expertUser, _, err = checkParticipants(user, id, q.QueryRowContext(ctx, `SELECT c.tourist_id, e.user_id, e.id,
			EXISTS (SELECT 1 FROM push_tokens p WHERE p.user_id = CASE WHEN e.user_id = $2 THEN c.tourist_id ELSE e.user_id END),
			e.ai_auto_reply AND e.messaging_enabled
		FROM conversations c JOIN experts e ON e.id = c.expert_id WHERE c.id = $1`, id, user.ID), &devices, &autoReply)
	return tourist, expertUser, devices, autoReply, err
}

// checkParticipants scans a conversation's tourist, expert user and expert
// id, then the columns of extra, and checks that user is one of the two.
func checkParticipants(user *guide.User, id string, row *sql.Row, extra ...any) (tourist, expertUser, expertID string, err error) {
	err = row.Scan(append([]any{&tourist, &expertUser, &expertID}, extra...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", "", apperr.Errorf(apperr.NotFound, "No conversation with id %q.", id)
	} else if err != nil {
		return "", "", "", err
	}
	if err := guide.CheckParticipant(user.ID, tourist, expertUser); err != nil {
		return "", "", "", err
	}
	return tourist, expertUser, expertID, nil
}

const (
	messageColumns = `SELECT m.id, m.conversation_id, m.sender_id, m.message_type, m.content, m.image_url, m.image_width,
		m.image_height, m.is_read, m.is_ai_generated, m.created_at, s.name, COALESCE(s.avatar, s.image), s.deleted_at IS NOT NULL`
	messageSelect = messageColumns + `
	FROM messages m JOIN users s ON s.id = m.sender_id`
)

func scanMessage(s interface{ Scan(...any) error }, m *guide.Message) error {
	var content, imageURL, name, image sql.NullString
	var w, h sql.NullInt64
	var gone bool
	if err := s.Scan(&m.ID, &m.ConversationID, &m.SenderID, &m.MessageType, &content, &imageURL, &w, &h,
		&m.IsRead, &m.IsAIGenerated, &m.CreatedAt, &name, &image, &gone); err != nil {
		return err
	}
	m.Content, m.ImageURL, m.CreatedAt = store.NullString(content), store.NullString(imageURL), m.CreatedAt.UTC()
	if w.Valid {
		m.ImageWidth = ptr(int(w.Int64))
	}
	if h.Valid {
		m.ImageHeight = ptr(int(h.Int64))
	}
	m.Sender = guide.MessageSender{ID: m.SenderID, Name: displayName(name, gone), Image: store.NullString(image)}
	if gone {
		m.Sender.Image = nil
	}
	return nil
}

// FindMessages returns a page of messages before the cursor, oldest first.
// Paging by (created_at, id) never skips or repeats a message, even when
// many share a timestamp.
func (g *Guide) FindMessages(ctx context.Context, user *guide.User, id, cursor string, limit int) (_ *guide.MessagePage, err error) {
	defer store.Wrap(&err, "find messages of conversation %s", id)
	if _, _, _, err := participants(ctx, g.db, user, id); err != nil {
		return nil, err
	}
	w := &store.Where{}
	w.And("m.conversation_id = " + w.Arg(id))
	if cursor != "" {
		w.And(`(m.created_at, m.id) < (SELECT c.created_at, c.id FROM messages c WHERE c.id = ` + w.Arg(cursor) +
			` AND c.conversation_id = m.conversation_id)`)
		var ok bool
		if err := g.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE id = $1 AND conversation_id = $2)`, cursor, id).Scan(&ok); err != nil {
			return nil, err
		}
		if !ok {
			return nil, apperr.Field("cursor", "is not a message of this conversation")
		}
	}
	rows, err := g.db.QueryContext(ctx, messageSelect+w.String()+` ORDER BY m.created_at DESC, m.id DESC LIMIT `+w.Arg(limit+1), w.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	page := &guide.MessagePage{Messages: []guide.Message{}}
	for rows.Next() {
		var m guide.Message
		if err := scanMessage(rows, &m); err != nil {
			return nil, err
		}
		page.Messages = append(page.Messages, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(page.Messages) > limit {
		page.Messages, page.HasMore = page.Messages[:limit], true
		page.NextCursor = ptr(page.Messages[limit-1].ID)
	}
	slices.Reverse(page.Messages)
	return page, nil
}

// SendMessage stores a message with its notification and AI-reply jobs in
// one transaction. A realtimeMessageId the sender already recorded (the
// unique constraint decides, even for concurrent retries) returns the
// stored message instead. The id is the sender's: the channel shows a
// draft's id to the other participant too, whose messages under the same
// id are theirs and never answer the sender's retry.
func (g *Guide) SendMessage(ctx context.Context, user *guide.User, id string, nm guide.NewMessage, aiReply bool) (_ *guide.Message, _ bool, err error) {
	defer store.Wrap(&err, "send message to conversation %s", id)
	var out guide.Message
	created := false
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		tourist, expertUser, devices, autoReply, err := senderParticipants(ctx, tx, user, id)
		if err != nil {
			return err
		}
		now := g.clock.Now()
		msgID := store.NewID()
		var imageURL any
		if nm.MessageType == guide.MessageImage {
			imageURL = nm.Content
		}
		preview := nm.Content
		if nm.MessageType == guide.MessageImage {
			preview = "[image]"
		}
		// The stored row is exactly what is written here: the answer, the
		// event and the realtime job's payload are made from it without
		// reading it back.
		content := nm.Content
		msg := guide.Message{ID: msgID, ConversationID: id, SenderID: user.ID, MessageType: nm.MessageType, Content: &content,
			CreatedAt: now, Sender: guide.MessageSender{ID: user.ID, Name: user.Name, Image: user.Avatar}}
		if msg.Sender.Image == nil {
			msg.Sender.Image = user.Image
		}
		if nm.MessageType == guide.MessageImage {
			msg.ImageURL = &content
		}
		live := realtimeMessage(&msg, nm.RealtimeMessageID, tourist, expertUser)
		insert := `INSERT INTO messages (id, conversation_id, sender_id, message_type, content, image_url, realtime_message_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (conversation_id, sender_id, realtime_message_id) DO NOTHING`
		w := &store.Where{Args: []any{msgID, id, user.ID, nm.MessageType, nm.Content, imageURL, nm.RealtimeMessageID, now}}
		var job store.Job
		if g.db.Engine == store.Postgres {
			// One round trip: the realtime job is enqueued and the
			// conversation's preview changes in the same statement, only
			// when the message was inserted, so that one row is affected
			// then, as by the insert alone.
			enqueue, j, err := g.jobs.EnqueueFrom(ctx, w, "m", guide.JobRealtimeMessage, live, now)
			if err != nil {
				return err
			}
			job = j
			insert = `WITH m AS (` + insert + ` RETURNING id), j AS (` + enqueue + `)
				UPDATE conversations SET last_message = ` + w.Arg(preview) + `, last_message_at = $8, updated_at = $8,
					tourist_unread = tourist_unread + ` + w.Arg(unread(user.ID != tourist)) + `,
					expert_unread = expert_unread + ` + w.Arg(unread(user.ID != expertUser)) + `
				WHERE id = $2 AND EXISTS (SELECT 1 FROM m)`
		}
		res, err := tx.ExecContext(ctx, insert, w.Args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return scanMessage(tx.QueryRowContext(ctx, messageSelect+` WHERE m.conversation_id = $1 AND m.sender_id = $2 AND m.realtime_message_id = $3`,
				id, user.ID, *nm.RealtimeMessageID), &out)
		}
		created, out = true, msg
		if g.db.Engine == store.Postgres {
			g.jobs.Handoff(tx, job)
		} else {
			if err := g.jobs.Enqueue(ctx, tx, guide.JobRealtimeMessage, live, now); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE conversations SET last_message = $1, last_message_at = $2, updated_at = $2,
					tourist_unread = tourist_unread + $4, expert_unread = expert_unread + $5 WHERE id = $3`,
				preview, now, id, unread(user.ID != tourist), unread(user.ID != expertUser)); err != nil {
				return err
			}
		}
		// A recipient with no device has nobody to notify: no job, and no
		// work for the runners.
		if devices {
			if err := g.jobs.Enqueue(ctx, tx, guide.JobPushMessage, map[string]string{"messageId": msgID}, now); err != nil {
				return err
			}
		}
		if aiReply && autoReply && user.ID == tourist {
			if err := g.jobs.Enqueue(ctx, tx, guide.JobAIReply, map[string]string{"conversationId": id, "messageId": msgID}, now); err != nil {
				return err
			}
		}
		return g.recordMessageEvent(ctx, tx, &out, tourist, expertUser)
	})
	if err != nil {
		return nil, false, err
	}
	return &out, created, nil
}

// unread is what a message adds to a side's unread count: 1 when that
// side did not send it.
func unread(notSender bool) int {
	if notSender {
		return 1
	}
	return 0
}

// MarkRead marks every message from the other party as read and, when
// any was unread, enqueues the read receipt's publication in the same
// transaction.
func (g *Guide) MarkRead(ctx context.Context, user *guide.User, id string) (_ int, err error) {
	defer store.Wrap(&err, "mark conversation %s read", id)
	tourist, expertUser, _, err := participants(ctx, g.db, user, id)
	if err != nil {
		return 0, err
	}
	var n int64
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE messages SET is_read = TRUE WHERE conversation_id = $1 AND sender_id <> $2 AND is_read = FALSE`, id, user.ID)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err // nothing was unread: nothing to write
		}
		// The reader's side loses what was marked, no more: a message sent
		// meanwhile that the update did not see still counts, whichever
		// commits first (its send adds one).
		marked := func(reader bool) int64 {
			if reader {
				return n
			}
			return 0
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET tourist_unread = tourist_unread - $2, expert_unread = expert_unread - $3
				WHERE id = $1`, id, marked(user.ID == tourist), marked(user.ID == expertUser)); err != nil {
			return err
		}
		now := g.clock.Now()
		return g.jobs.Enqueue(ctx, tx, guide.JobRealtimeRead, ReadReceipt{ConversationID: id, ReaderID: user.ID, MarkedCount: int(n), ReadAt: now.UTC()}, now)
	})
	return int(n), err
}

// unreadCountSQL adds up the user's ($1) side of each of their
// conversations (migration 00014), found as traveller by conversations'
// (tourist_id, expert_id), as expert by conversations_expert: its cost is
// the user's conversations, whatever their unread backlog. The realtime
// job runs it for every message sent.
const unreadCountSQL = `SELECT CAST(
		(SELECT COALESCE(SUM(tourist_unread), 0) FROM conversations WHERE tourist_id = $1)
		+ (SELECT COALESCE(SUM(c.expert_unread), 0) FROM experts e JOIN conversations c ON c.expert_id = e.id WHERE e.user_id = $1)
	AS BIGINT)`

// UnreadCount counts unread messages from others across the user's
// conversations.
func (g *Guide) UnreadCount(ctx context.Context, user *guide.User) (_ int, err error) {
	defer store.Wrap(&err, "count unread messages of user %s", user.ID)
	var n int
	err = g.db.QueryRowContext(ctx, unreadCountSQL, user.ID).Scan(&n)
	return n, err
}

// FindAvailability returns the user's expert schedule.
func (g *Guide) FindAvailability(ctx context.Context, user *guide.User) (_ *guide.Availability, err error) {
	defer store.Wrap(&err, "find availability of user %s", user.ID)
	var a guide.Availability
	var schedule, blocked []byte
	err = g.db.QueryRowContext(ctx, `SELECT id, weekly_schedule, timezone, blocked_dates FROM experts WHERE user_id = $1`, user.ID).
		Scan(&a.ExpertID, &schedule, &a.Timezone, &blocked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "This account has no expert profile.")
	} else if err != nil {
		return nil, err
	}
	a.WeeklySchedule, a.BlockedDates = store.RawJSON(schedule, "{}"), store.RawJSON(blocked, "[]")
	return &a, nil
}
