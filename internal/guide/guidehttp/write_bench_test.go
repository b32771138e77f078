package guidehttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// The write benchmarks send the load benchmark's requests (bench/run.sh:
// booking_user, message) through the real router, one at a time, with a
// user token and a unique body each, on SQLite and, with TEST_POSTGRES_URL,
// PostgreSQL. Profile them with -cpuprofile; BENCHMARKS.md quotes them.
//
//	go test -run '^$' -bench Write -count 6 ./internal/guide/guidehttp/

// serve runs one request straight through the server (no OpenAPI
// validation, which would dwarf the handler) and fails on another status.
func serve(b *testing.B, h http.Handler, method, path, token, body string, want int) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: status %d, want %d: %s", method, path, rec.Code, want, rec.Body)
	}
}

func BenchmarkWriteBookingCreate(b *testing.B) {
	for _, eng := range storetest.Engines() {
		b.Run(string(eng), func(b *testing.B) {
			e := newEnv(b, options{noIdP: true}, eng)
			tourist := e.register(b, "bench-booker@example.com", "TOURIST")
			var pkgs struct{ Data []struct{ ID string } }
			e.Get("/api/v1/packages?pageSize=100").Expect(200).Decode(&pkgs)
			before := e.count(b, `SELECT COUNT(*) FROM bookings`)
			n := 0
			for b.Loop() {
				body := fmt.Sprintf(`{"packageId":%q,"scheduledDate":"2027-01-%02dT09:00:00+09:00","participants":1,`+
					`"customRequest":"Benchmark booking %d: vegetarian lunch please."}`, pkgs.Data[n%len(pkgs.Data)].ID, 1+n%28, n)
				serve(b, e.srv, "POST", "/api/v1/bookings", tourist.token, body, http.StatusCreated)
				n++
			}
			if got := e.count(b, `SELECT COUNT(*) FROM bookings`) - before; got != n {
				b.Fatalf("%d bookings stored, %d created", got, n)
			}
		})
	}
}

func BenchmarkWriteMessageSend(b *testing.B) {
	for _, eng := range storetest.Engines() {
		b.Run(string(eng), func(b *testing.B) {
			e := newEnv(b, options{noIdP: true}, eng)
			tourist := e.register(b, "bench-writer@example.com", "TOURIST")
			var conv struct{ Data struct{ ID string } }
			e.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(tourist.token)...).Expect(201).Decode(&conv)
			path := "/api/v1/conversations/" + conv.Data.ID + "/messages"
			n := 0
			for b.Loop() {
				body := fmt.Sprintf(`{"content":"Benchmark message %d: is the tour still available next week?"}`, n)
				serve(b, e.srv, "POST", path, tourist.token, body, http.StatusCreated)
				n++
			}
			if got := e.count(b, `SELECT COUNT(*) FROM messages WHERE conversation_id = $1`, conv.Data.ID); got != n {
				b.Fatalf("%d messages stored, %d sent", got, n)
			}
		})
	}
}
