package guidedb

import (
	"context"
	"database/sql"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/store"
)

// transitionEvents names the event of each status a transition reaches.
var transitionEvents = map[string]string{
	guide.StatusConfirmed:  guide.EventBookingConfirmed,
	guide.StatusInProgress: guide.EventBookingStarted,
	guide.StatusCompleted:  guide.EventBookingCompleted,
	guide.StatusCancelled:  guide.EventBookingCancelled,
}

// Events returns the guide's change feed.
func (g *Guide) Events() *store.Events { return g.events }

// bookingEvent is a booking as its traveller sees it after a change, with
// the status it moved from.
type bookingEvent struct {
	*guide.BookingDetail
	PreviousStatus *string `json:"previousStatus,omitempty"`
}

// recordBookingEvent records typ for the booking in q, for both parties.
func (g *Guide) recordBookingEvent(ctx context.Context, q store.Querier, typ, id string, previous *string) error {
	var tourist string
	var expertUser sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT b.tourist_id, e.user_id FROM bookings b LEFT JOIN experts e ON e.id = b.expert_id
		WHERE b.id = $1`, id).Scan(&tourist, &expertUser); err != nil {
		return err
	}
	b, err := g.bookingDetail(ctx, q, guide.Party{Tourist: true}, id)
	if err != nil {
		return err
	}
	audience := []string{guide.Audience(tourist)}
	if expertUser.Valid {
		audience = append(audience, guide.Audience(expertUser.String))
	}
	_, err = g.events.Record(ctx, q, typ, audience, bookingEvent{BookingDetail: b, PreviousStatus: previous})
	return err
}

// recordMessageEvent records message.created for a message in q, for both
// parties of its conversation.
func (g *Guide) recordMessageEvent(ctx context.Context, q store.Querier, messageID string) error {
	var m guide.Message
	if err := scanMessage(q.QueryRowContext(ctx, messageSelect+` WHERE m.id = $1`, messageID), &m); err != nil {
		return err
	}
	var tourist, expertUser string
	if err := q.QueryRowContext(ctx, `SELECT c.tourist_id, e.user_id FROM conversations c JOIN experts e ON e.id = c.expert_id
		WHERE c.id = $1`, m.ConversationID).Scan(&tourist, &expertUser); err != nil {
		return err
	}
	_, err := g.events.Record(ctx, q, guide.EventMessageCreated, []string{guide.Audience(tourist), guide.Audience(expertUser)}, m)
	return err
}
