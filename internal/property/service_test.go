package property_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

var serviceStart = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// newService returns the service on a fresh database of engine with the
// sample properties, and a developer account's live caller.
func newService(t *testing.T, engine store.Engine) (*property.Service, *property.Caller) {
	t.Helper()
	db := storetest.MustOpenDB(t, engine, propertydb.Schema)
	if err := propertydb.LoadSample(t.Context(), db, sample.GenerateDays(property.DateOf(serviceStart), 30)); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(serviceStart)
	ps := propertydb.New(db, clk)
	s := &property.Service{Catalog: ps, Bookings: ps, Accounts: ps, Supply: ps, Clock: clk, Usage: property.NewUsage(),
		QuoteTTL: property.DefaultQuoteTTL, PublicURL: "https://property.api.test"}
	dev, err := ps.CreateDeveloper(t.Context(), property.NewDeveloper{Email: "host@example.com", Name: "Host"})
	if err != nil {
		t.Fatal(err)
	}
	return s, &property.Caller{DeveloperID: dev.ID, Mode: property.ModeLive, KeyID: "key"}
}

func code(err error) string {
	var e *apperr.Error
	if !errors.As(err, &e) {
		return ""
	}
	return e.Code
}

func fields(err error) map[string]any {
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Validation {
		return nil
	}
	return e.Details
}

// wantNamed fails the test unless err is a validation error naming each of
// the fields.
func wantNamed(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	f := fields(err)
	var got []string
	for _, k := range want {
		if f[k] != nil {
			got = append(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: fields named in %v (-want +got):\n%s", what, f, diff)
	}
}

func ptr[T any](v T) *T { return &v }

// TestServiceCallerRights: no operation runs without a caller; keys and
// usage are the portal's, never an API key's; a property is its owner's,
// in its owner's mode.
func TestServiceCallerRights(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s, host := newService(t, engine)
			ctx := t.Context()
			if _, err := s.CreateQuote(ctx, nil, property.StayFields{}); code(err) != apperr.Unauthorized {
				t.Errorf("quote without a caller: %v", err)
			}
			if _, err := s.FindBookings(ctx, &property.Caller{}, property.BookingQuery{}); code(err) != apperr.Unauthorized {
				t.Errorf("bookings of nobody: %v", err)
			}
			if _, _, err := s.CreateKey(ctx, host, property.NewKey{Name: ptr("agent"), Mode: ptr("test")}); code(err) != apperr.Forbidden {
				t.Errorf("a key creating a key: %v", err)
			}
			if _, err := s.FindUsage(ctx, host, nil, nil); code(err) != apperr.Forbidden {
				t.Errorf("a key reading usage: %v", err)
			}
			portal := &property.Caller{DeveloperID: host.DeveloperID}
			k, secret, err := s.CreateKey(ctx, portal, property.NewKey{Name: ptr("agent"), Mode: ptr("test"), Scopes: &[]string{"calendar:write", "calendar:write"}})
			if err != nil {
				t.Fatalf("portal key: %v", err)
			}
			gotKey := map[string]any{"secretSet": secret != "", "scopes": len(k.Scopes), "mode": k.Mode}
			wantKey := map[string]any{"secretSet": true, "scopes": 1, "mode": property.ModeTest}
			if diff := cmp.Diff(wantKey, gotKey); diff != "" {
				t.Fatalf("portal key (-want +got):\n%s", diff)
			}

			_, err = s.CreateProperty(ctx, host, property.PropertyFields{})
			if f := fields(err); f["name"] == nil || f["timezone"] == nil {
				t.Fatalf("empty property: %v", err)
			}
			p, err := s.CreateProperty(ctx, host, property.PropertyFields{
				Name: opt("Canal House"), Type: opt("guesthouse"), Address: opt("1-2-3 Asakusa"), City: opt("Tokyo"), CountryCode: opt("JP"),
				Latitude: opt(35.7), Longitude: opt(139.8), Timezone: opt("Asia/Tokyo"), Currency: opt("JPY"), CheckInTime: opt("15:00"),
				CheckOutTime: opt("10:00"), CancellationPolicy: opt("moderate")})
			if err != nil {
				t.Fatal(err)
			}
			test := &property.Caller{DeveloperID: host.DeveloperID, Mode: property.ModeTest}
			other := &property.Caller{DeveloperID: portal.DeveloperID + "x", Mode: property.ModeLive}
			for _, c := range []*property.Caller{test, other} {
				if _, err := s.UpdateCalendar(ctx, c, p.ID, property.CalendarFields{}); code(err) != apperr.NotFound {
					t.Errorf("%+v: %v", c, err)
				}
			}
			if _, err := s.CreateRoomType(ctx, host, "not-a-uuid", property.RoomTypeFields{}); code(err) != apperr.NotFound {
				t.Errorf("room type of no property: %v", err)
			}
			if err := s.DeleteRoomType(ctx, host, p.ID, "not-a-uuid"); code(err) != apperr.NotFound {
				t.Errorf("no room type: %v", err)
			}
		})
	}
}

func opt[T any](v T) field.Optional[T] { return field.Optional[T]{Set: true, Value: &v} }

// TestServiceFieldErrors: each rule answers with the fields at fault.
func TestServiceFieldErrors(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s, c := newService(t, engine)
			ctx := t.Context()
			wantNamed(t, "quote", func() error {
				_, err := s.CreateQuote(ctx, c, property.StayFields{PropertyID: ptr("x"), CheckIn: ptr("2026-12-10"), CheckOut: ptr("2026-12-09"), Guests: ptr(0)})
				return err
			}(), "propertyId", "roomTypeId", "checkOut", "guests")
			wantNamed(t, "booking", func() error {
				_, err := s.CreateBooking(ctx, c, property.BookingFields{QuoteID: ptr("x"), StayFields: property.StayFields{Guests: ptr(2)},
					Guest: &property.GuestFields{Phone: ptr("x"), Country: ptr("Japan")}})
				return err
			}(), "quoteId", "guest.firstName", "guest.phone", "guest.country")
			wantNamed(t, "search", func() error {
				_, err := s.FindProperties(ctx, c, property.PropertyQuery{CheckIn: ptr(property.MustParseDate("2026-11-01")), Amenities: "wifi,moat", MinPrice: ptr(int64(5)), MaxPrice: ptr(int64(4))})
				return err
			}(), "checkOut", "guests", "amenities", "maxPrice")
			wantNamed(t, "bookings", func() error {
				_, err := s.FindBookings(ctx, c, property.BookingQuery{CheckInFrom: ptr(property.MustParseDate("2026-12-10")), CheckInTo: ptr(property.MustParseDate("2026-12-01")), Status: "LOST"})
				return err
			}(), "checkInTo", "status")
			portal := &property.Caller{DeveloperID: c.DeveloperID}
			wantNamed(t, "usage", func() error {
				_, err := s.FindUsage(ctx, portal, ptr(property.MustParseDate("2026-11-10")), ptr(property.MustParseDate("2026-11-01")))
				return err
			}(), "to")
			var id string
			list, err := s.FindProperties(ctx, c, property.PropertyQuery{City: "Tokyo", PageSize: ptr(1)})
			if err != nil || len(list.Data) != 1 || list.Meta.Total < 1 {
				t.Fatalf("search: %+v %v", list, err)
			}
			id = list.Data[0].ID
			if _, err := s.FindAvailability(ctx, c, property.AvailabilityQuery{PropertyID: id, From: ptr(property.MustParseDate("2026-12-10")), To: ptr(property.MustParseDate("2026-12-10"))}); fields(err)["to"] == nil {
				t.Errorf("empty range: %v", err)
			}
			if _, err := s.FindAvailability(ctx, c, property.AvailabilityQuery{PropertyID: id, Owned: true}); code(err) != apperr.NotFound {
				t.Errorf("another's property as owned: %v", err)
			}
		})
	}
}
