package propertydb

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

// Events returns the property platform's change feed.
func (s *Property) Events() *changes.Feed { return s.events }

// bookingEvent is a booking after a change, with the status it moved from.
type bookingEvent struct {
	*property.Booking
	PreviousStatus *string `json:"previousStatus,omitempty"`
}

func (s *Property) recordBookingEvent(ctx context.Context, q store.Querier, typ string, acct property.Account, b *property.Booking, previous *string) error {
	_, err := s.events.Record(ctx, q, typ, []string{property.Audience(acct.DeveloperID, acct.Test)}, bookingEvent{b, previous})
	return err
}

// quoteEvent is a quote after a change: the API shows a quote without a
// status, which the event adds.
type quoteEvent struct {
	*property.Quote
	Status         string `json:"status"`
	PreviousStatus string `json:"previousStatus"`
}

// recordQuoteExpired records quote.expired for the quote in q.
func (s *Property) recordQuoteExpired(ctx context.Context, q store.Querier, id string) error {
	var qt property.Quote
	var developerID string
	var nightly, policy []byte
	var checkInAt time.Time
	if err := q.QueryRowContext(ctx, `SELECT id, developer_id, test, property_id, room_type_id, check_in, check_out, guests, nightly,
			total, currency, cancellation_policy, check_in_at, expires_at, created_at FROM quotes WHERE id = $1`, id).Scan(
		&qt.ID, &developerID, &qt.Test, &qt.PropertyID, &qt.RoomTypeID, &qt.CheckIn, &qt.CheckOut, &qt.Guests, &nightly,
		&qt.Total.Amount, &qt.Total.Currency, &policy, &checkInAt, &qt.ExpiresAt, &qt.CreatedAt); err != nil {
		return err
	}
	if err := errors.Join(json.Unmarshal(nightly, &qt.Nightly), json.Unmarshal(policy, &qt.CancellationPolicy)); err != nil {
		return err
	}
	qt.Nights, qt.FreeCancellationUntil = len(qt.Nightly), qt.CancellationPolicy.FreeCancellationUntil(checkInAt.UTC())
	qt.ExpiresAt, qt.CreatedAt = qt.ExpiresAt.UTC(), qt.CreatedAt.UTC()
	_, err := s.events.Record(ctx, q, property.EventQuoteExpired, []string{property.Audience(developerID, qt.Test)}, quoteEvent{&qt, "expired", "held"})
	return err
}
