package property

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// checkErr compares err with the *apperr.Error a door would render (nil
// for none).
func checkErr(t *testing.T, name string, err error, want *apperr.Error) {
	t.Helper()
	var got *apperr.Error
	if err != nil {
		var ok bool
		if got, ok = err.(*apperr.Error); !ok {
			t.Fatalf("%s: error %v is no *apperr.Error", name, err)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: error (-want +got):\n%s", name, diff)
	}
}

func invalid(fields ...string) *apperr.Error {
	details := map[string]any{}
	for i := 0; i < len(fields); i += 2 {
		details[fields[i]] = fields[i+1]
	}
	return &apperr.Error{Code: apperr.Validation, Message: "The request has invalid fields; see details.", Details: details}
}

// TestBookingCheckCancel: a confirmed booking can be cancelled until its
// last night is over, counted from the check-in instant.
func TestBookingCheckCancel(t *testing.T) {
	checkIn := time.Date(2026, 12, 10, 6, 0, 0, 0, time.UTC) // 15:00 in Tokyo
	over := &apperr.Error{Code: apperr.InvalidState, Message: "The stay is over; it can no longer be cancelled."}
	for _, tc := range []struct {
		name   string
		status string
		nights int
		now    time.Time
		want   *apperr.Error
	}{
		{"long before", StatusConfirmed, 2, checkIn.AddDate(0, -1, 0), nil},
		{"at check-in", StatusConfirmed, 2, checkIn, nil},
		{"on the last night", StatusConfirmed, 2, checkIn.Add(48*time.Hour - time.Second), nil},
		{"as the stay ends", StatusConfirmed, 2, checkIn.Add(48 * time.Hour), over},
		{"a one-night stay the next day", StatusConfirmed, 1, checkIn.Add(24 * time.Hour), over},
		{"cancelled", StatusCancelled, 2, checkIn.AddDate(0, -1, 0),
			&apperr.Error{Code: apperr.InvalidState, Message: "The booking is already CANCELLED."}},
		{"cancelled, stay over", StatusCancelled, 2, checkIn.AddDate(0, 1, 0),
			&apperr.Error{Code: apperr.InvalidState, Message: "The booking is already CANCELLED."}},
	} {
		b := &Booking{Status: tc.status, Nights: tc.nights}
		checkErr(t, tc.name, b.CheckCancel(tc.now, checkIn), tc.want)
	}
}

func TestCheckQuoteBooking(t *testing.T) {
	expires := time.Date(2026, 11, 22, 12, 15, 0, 0, time.FixedZone("JST", 9*3600))
	gone := &apperr.Error{Code: apperr.Gone, Message: "The quote expired at 2026-11-22T03:15:00Z and its hold was released; ask for a new quote.",
		Details: map[string]any{"expiresAt": "2026-11-22T03:15:00Z"}}
	for _, tc := range []struct {
		name, status, bookingID string
		now                     time.Time
		want                    *apperr.Error
	}{
		{"held", QuoteHeld, "", expires.Add(-time.Minute), nil},
		{"held, at its expiry", QuoteHeld, "", expires, gone},
		{"expired", "expired", "", expires.Add(-time.Minute), gone},
		{"booked", QuoteBooked, "b1", expires.Add(-time.Minute), &apperr.Error{Code: apperr.InvalidState,
			Message: "This quote was already booked as booking b1.", Details: map[string]any{"bookingId": "b1"}}},
		{"booked, since expired", QuoteBooked, "b1", expires.Add(time.Hour), &apperr.Error{Code: apperr.InvalidState,
			Message: "This quote was already booked as booking b1.", Details: map[string]any{"bookingId": "b1"}}},
	} {
		checkErr(t, tc.name, CheckQuoteBooking(tc.status, tc.bookingID, expires, tc.now), tc.want)
	}
}

func TestKeyCheckRotate(t *testing.T) {
	next := "k2"
	checkErr(t, "working", (&Key{ID: "k1"}).CheckRotate(), nil)
	checkErr(t, "rotated", (&Key{ID: "k1", ReplacedBy: &next}).CheckRotate(), &apperr.Error{Code: apperr.InvalidState,
		Message: "This key was already rotated; rotate its replacement k2 instead.", Details: map[string]any{"replacedBy": "k2"}})
}

func TestPropertyCheckChange(t *testing.T) {
	empty := &Property{Currency: "JPY"}
	withRooms := &Property{Currency: "JPY", RoomTypes: []RoomType{{ID: "rt"}}}
	for _, tc := range []struct {
		name     string
		p        *Property
		status   string
		currency string
		want     *apperr.Error
	}{
		{"a draft renamed", empty, PropertyDraft, "JPY", nil},
		{"a draft's currency", empty, PropertyDraft, "THB", nil},
		{"activated without room types", empty, PropertyActive, "JPY",
			invalid("status", "a property becomes active only with at least one room type: add one first")},
		{"activated with one", withRooms, PropertyActive, "JPY", nil},
		{"inactive with room types", withRooms, PropertyInactive, "JPY", nil},
		{"the currency under room types", withRooms, PropertyDraft, "THB",
			invalid("currency", "cannot change once the property has room types: their prices and calendar are in JPY")},
	} {
		checkErr(t, tc.name, tc.p.CheckChange(PropertyContent{Status: tc.status, Currency: tc.currency}), tc.want)
	}
}

func TestRoomTypeRules(t *testing.T) {
	checkErr(t, "one fewer than the most", CheckNewRoomType(MaxRoomTypes-1), nil)
	checkErr(t, "the most", CheckNewRoomType(MaxRoomTypes), invalid("body", fmt.Sprintf("a property has at most %d room types", MaxRoomTypes)))

	upcoming := &apperr.Error{Code: apperr.Conflict,
		Message: "The room type has 3 booking(s) still to come; it can be deleted once they are over or cancelled. Close its nights to stop selling it.",
		Details: map[string]any{"upcomingBookings": 3}}
	last := &apperr.Error{Code: apperr.Conflict,
		Message: "An active property needs a room type: make the property inactive before deleting its last room type."}
	for _, tc := range []struct {
		name             string
		upcoming, others int
		status           string
		want             *apperr.Error
	}{
		{"free, with others", 0, 2, PropertyActive, nil},
		{"the last of a draft", 0, 0, PropertyDraft, nil},
		{"the last of an inactive property", 0, 0, PropertyInactive, nil},
		{"the last of an active property", 0, 0, PropertyActive, last},
		{"bookings to come", 3, 2, PropertyActive, upcoming},
		{"bookings to come, the last", 3, 0, PropertyActive, upcoming},
	} {
		checkErr(t, "delete: "+tc.name, CheckRoomTypeDeletion(tc.upcoming, tc.others, tc.status), tc.want)
	}
}

func TestCheckCalendarDates(t *testing.T) {
	today := NewDate(2026, 11, 22)
	rts := []RoomType{{ID: "rt1"}, {ID: "rt2"}}
	last := today.AddDays(MaxCalendarAhead) // 2028-11-21
	tooFar := "nights can be set up to 730 days ahead: the last is 2028-11-21, so to is at most 2028-11-22"
	for _, tc := range []struct {
		name    string
		updates []CalendarUpdate
		want    *apperr.Error
	}{
		{"today to the last night", []CalendarUpdate{{RoomTypeID: "rt1", From: today, To: last.AddDays(1)}, {RoomTypeID: "rt2", From: today, To: today.AddDays(1)}}, nil},
		{"yesterday", []CalendarUpdate{{RoomTypeID: "rt1", From: today.AddDays(-1), To: today.AddDays(1)}},
			invalid("updates[0].from", "is in the past in the property's time zone, where today is 2026-11-22")},
		{"a night too far", []CalendarUpdate{{RoomTypeID: "rt1", From: today, To: last.AddDays(1)}, {RoomTypeID: "rt1", From: last, To: last.AddDays(2)}},
			invalid("updates[1].to", tooFar)},
		{"another property's room type", []CalendarUpdate{{RoomTypeID: "rt3", From: today, To: today.AddDays(1)}},
			invalid("updates[0].roomTypeId", "the property has no room type with this id")},
		{"every fault", []CalendarUpdate{{RoomTypeID: "rt3", From: today.AddDays(-1), To: last.AddDays(2)}},
			invalid("updates[0].roomTypeId", "the property has no room type with this id",
				"updates[0].from", "is in the past in the property's time zone, where today is 2026-11-22",
				"updates[0].to", tooFar)},
	} {
		checkErr(t, tc.name, CheckCalendarDates(tc.updates, rts, today), tc.want)
	}
}

func TestCheckUnits(t *testing.T) {
	d := NewDate(2026, 12, 1)
	night := func(i, units, booked, held int) InventoryConflict {
		return InventoryConflict{RoomTypeID: "rt", Date: d.AddDays(i), Units: units, Booked: booked, Held: held}
	}
	checkErr(t, "no nights", CheckUnits(nil), nil)
	checkErr(t, "as many as booked and held", CheckUnits([]InventoryConflict{night(0, 3, 2, 1), night(1, 0, 0, 0), night(2, 5, 0, 0)}), nil)
	checkErr(t, "one short", CheckUnits([]InventoryConflict{night(0, 3, 2, 1), night(1, 2, 2, 1), night(2, 0, 0, 1)}),
		&apperr.Error{Code: apperr.InventoryConflict, Message: "2 night(s) would offer fewer units than are booked and held; nothing was changed.",
			Details: map[string]any{"conflicts": []InventoryConflict{night(1, 2, 2, 1), night(2, 0, 0, 1)}}})

	var many, listed []InventoryConflict
	for i := range MaxConflictDetails + 5 {
		many = append(many, night(i, 0, 1, 0))
	}
	listed = many[:MaxConflictDetails]
	checkErr(t, "more than are listed", CheckUnits(many),
		&apperr.Error{Code: apperr.InventoryConflict, Message: fmt.Sprintf("%d night(s) would offer fewer units than are booked and held; nothing was changed.", MaxConflictDetails+5),
			Details: map[string]any{"conflicts": listed}})
}
