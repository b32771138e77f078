package propertyhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// BenchmarkWriteQuoteBook is the property write path through the real
// router: a quote holding 3 nights of a room type, then the booking of that
// quote, with a live API key; one op is the pair. The room type gets ample
// units so that no iteration finds it sold out. On SQLite and, with
// TEST_POSTGRES_URL, PostgreSQL; profile with -cpuprofile.
//
//	go test -run '^$' -bench WriteQuoteBook -count 6 ./internal/property/propertyhttp/
func BenchmarkWriteQuoteBook(b *testing.B) {
	for _, eng := range storetest.Engines() {
		b.Run(string(eng), func(b *testing.B) {
			e := newEnv(b, options{keyLimit: 1 << 30}, eng) // the limiter runs, never refuses
			key := e.key(b, e.signup(b), "live")
			r := e.tokyoDouble(b)
			e.exec(b, `UPDATE calendar SET total_units = 1000000 WHERE room_type_id = $1`, r.roomTypeID)
			n := 0
			for b.Loop() {
				checkIn := day(1 + n%28)
				stay := fmt.Sprintf(`{"propertyId":%q,"roomTypeId":%q,"checkIn":%q,"checkOut":%q,"guests":2}`,
					r.propertyID, r.roomTypeID, checkIn, checkIn.AddDays(3))
				var quote struct{ ID string }
				if err := json.Unmarshal(serve(b, e.srv, "/api/v1/quotes", key, stay, http.StatusCreated), &quote); err != nil {
					b.Fatal(err)
				}
				serve(b, e.srv, "/api/v1/bookings", key, fmt.Sprintf(`{"quoteId":%q,"guest":{"firstName":"Mei","lastName":"Tan",`+
					`"email":"mei.tan@example.com","country":"SG"},"externalReference":"BENCH-%d"}`, quote.ID, n), http.StatusCreated)
				n++
			}
			var booked int
			if err := e.db.QueryRow(`SELECT COUNT(*) FROM bookings WHERE room_type_id = $1`, r.roomTypeID).Scan(&booked); err != nil {
				b.Fatal(err)
			}
			if booked != n {
				b.Fatalf("%d bookings stored, %d made", booked, n)
			}
		})
	}
}

// serve runs one POST straight through the server (no OpenAPI validation,
// which would dwarf the handler), fails on another status and returns the
// body.
func serve(b *testing.B, h http.Handler, path, key, body string, want int) []byte {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("POST %s: status %d, want %d: %s", path, rec.Code, want, rec.Body)
	}
	return rec.Body.Bytes()
}
