package guidedb

import (
	"context"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// transitionEvents names the event of each status a transition reaches.
var transitionEvents = map[string]string{
	guide.StatusConfirmed:  guide.EventBookingConfirmed,
	guide.StatusInProgress: guide.EventBookingStarted,
	guide.StatusCompleted:  guide.EventBookingCompleted,
	guide.StatusCancelled:  guide.EventBookingCancelled,
}

// Events returns the guide's change feed.
func (g *Guide) Events() *changes.Feed { return g.events }

// bookingEvent is a booking as its traveller sees it after a change, with
// the status it moved from.
type bookingEvent struct {
	*guide.BookingDetail
	PreviousStatus *string `json:"previousStatus,omitempty"`
}

// recordBookingEvent records typ for the booking in q, for both parties.
func (g *Guide) recordBookingEvent(ctx context.Context, q store.Querier, typ, id string, previous *string) error {
	b, audience, err := g.bookingWithAudience(ctx, q, guide.Party{Tourist: true}, id)
	if err != nil {
		return err
	}
	_, err = g.events.Record(ctx, q, typ, audience, bookingEvent{BookingDetail: b, PreviousStatus: previous})
	return err
}

// recordMessageEvent records message.created for m, as the API returns
// it, in q, for both parties of its conversation.
func (g *Guide) recordMessageEvent(ctx context.Context, q store.Querier, m *guide.Message, tourist, expertUser string) error {
	_, err := g.events.Record(ctx, q, guide.EventMessageCreated, []string{guide.Audience(tourist), guide.Audience(expertUser)}, m)
	return err
}
