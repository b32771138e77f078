package propertydb_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
)

// TestBookingAsWritten: the booking a create returns (and its
// booking.created event carries), made from what was written, is the
// booking a read returns, for a stay and for a quote, with and without the
// optional fields, on both engines.
func TestBookingAsWritten(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			f := newPropertyFixture(t, engine)
			ctx := t.Context()
			full := property.Guest{FirstName: "Aiko", LastName: "Tanaka", Email: "aiko@example.com", Phone: propPtr("+81 3 1234 5678"), Country: propPtr("JP")}
			bare := property.Guest{FirstName: "Ken", LastName: "Mori", Email: "ken@example.com"}
			q, err := f.s.CreateQuote(ctx, f.test, f.stay(property.NewDate(2026, 12, 3), 2), time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			for name, nb := range map[string]property.NewBooking{
				"stay, every field": {Stay: propPtr(f.stay(property.NewDate(2026, 12, 1), 3)), Guest: full,
					SpecialRequests: propPtr("Late arrival, around 23:00"), ExternalReference: propPtr("OTA-778")},
				"stay, bare": {Stay: propPtr(f.stay(property.NewDate(2026, 12, 5), 1)), Guest: bare},
				"quote":      {QuoteID: q.ID, Guest: full, ExternalReference: propPtr("")},
			} {
				acct := f.live
				if nb.QuoteID != "" {
					acct = f.test
				}
				b, err := f.s.CreateBooking(ctx, acct, nb)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				read, err := f.s.FindBooking(ctx, acct, b.ID)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, _ := json.Marshal(b)
				want, _ := json.Marshal(read)
				if string(got) != string(want) {
					t.Errorf("%s: created\n%s\nread\n%s", name, got, want)
				}
			}
		})
	}
}
