package propertyhttp_test

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/property"
)

func expectRateHeaders(t *testing.T, res *apitest.Response, limit int) {
	t.Helper()
	if res.Header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) || res.Header.Get("X-RateLimit-Remaining") == "" || res.Header.Get("X-RateLimit-Reset") == "" {
		t.Errorf("%d response without the rate-limit headers: %v", res.Status, res.Header)
	}
}

// TestKeyAuthentication: 401 without a key, with a malformed, unknown,
// revoked or rotated-over-24-hours key; both headers work; scopes hold.
func TestKeyAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{keyLimit: 100})
	d := e.signup(t)
	key := e.key(t, d, "test")
	const path = "/api/v1/properties?pageSize=1"
	for name, h := range map[string][]string{
		"no key":         nil,
		"not a key":      xkey("hello"),
		"unknown key":    xkey("pk_test_0000000000000000000000000000000000000000"),
		"bad scheme":     {"Authorization", "Basic " + key},
		"portal token":   bearer(d.token),
		"empty bearer":   {"Authorization", "Bearer "},
		"unknown bearer": bearer("pk_live_0000000000000000000000000000000000000000"),
	} {
		res := e.Get(path, h...).Expect(401)
		if res.ErrorCode() != "UNAUTHORIZED" {
			t.Errorf("%s: %s", name, res.Body)
		}
		expectRateHeaders(t, res, 100)
	}
	expectRateHeaders(t, e.Get(path, xkey(key)...).Expect(200), 100)
	e.Get(path, bearer(key)...).Expect(200)
	// Unknown paths under /api/v1 are guarded too.
	e.Get("/api/v1/nothing-here").Expect(401)
	e.Get("/api/v1/nothing-here", xkey(key)...).Expect(404)
	e.Do("DELETE", "/api/v1/quotes", nil, xkey(key)...).Expect(405)

	// Revoked: 401 at once.
	var keys struct{ Data []property.Key }
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	if len(keys.Data) != 1 || keys.Data[0].LastUsedAt == nil {
		t.Fatalf("keys: %+v", keys.Data)
	}
	e.Do("DELETE", "/portal/api/keys/"+keys.Data[0].ID, nil, bearer(d.token)...).Expect(204)
	e.Get(path, xkey(key)...).Expect(401)
	e.Do("DELETE", "/portal/api/keys/"+keys.Data[0].ID, nil, bearer(d.token)...).Expect(404)

	// Rotated: both keys work for 24 hours, then only the new one.
	old := e.key(t, d, "live")
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	var rotated struct {
		ID, Key, Mode, Name string
	}
	e.Do("POST", "/portal/api/keys/"+keys.Data[0].ID+"/rotate", nil, bearer(d.token)...).Expect(201).Decode(&rotated)
	if diff := cmp.Diff(map[string]any{"live": true, "new": true, "mode": "live", "name": "live key"},
		map[string]any{"live": strings.HasPrefix(rotated.Key, "pk_live_"), "new": rotated.Key != old, "mode": rotated.Mode, "name": rotated.Name}); diff != "" {
		t.Fatalf("rotated (-want +got):\n%s", diff)
	}
	e.Do("POST", "/portal/api/keys/"+keys.Data[0].ID+"/rotate", nil, bearer(d.token)...).Expect(422)
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	gotKeys := map[string]any{"keys": len(keys.Data)}
	if len(keys.Data) > 1 {
		gotKeys["replaced by"], gotKeys["expires at"] = keys.Data[1].ReplacedBy, keys.Data[1].ExpiresAt
	}
	expires := e.clock.Now().Add(24 * time.Hour)
	wantKeys := map[string]any{"keys": 2, "replaced by": &rotated.ID, "expires at": &expires}
	if diff := cmp.Diff(wantKeys, gotKeys); diff != "" {
		t.Fatalf("keys after rotation (-want +got):\n%s", diff)
	}
	e.Get(path, xkey(old)...).Expect(200)
	e.Get(path, xkey(rotated.Key)...).Expect(200)
	e.clock.Advance(24*time.Hour - time.Second)
	e.Get(path, xkey(old)...).Expect(200)
	e.clock.Advance(2 * time.Second)
	e.Get(path, xkey(old)...).Expect(401)
	e.Get(path, xkey(rotated.Key)...).Expect(200)
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	if len(keys.Data) != 1 || keys.Data[0].ID != rotated.ID {
		t.Errorf("keys after the grace: %+v", keys.Data)
	}

	// Scopes.
	readOnly := e.key(t, d, "test", "properties:read")
	e.Get(path, xkey(readOnly)...).Expect(200)
	for _, c := range []struct{ method, path, scope string }{
		{"POST", "/api/v1/quotes", "bookings:write"},
		{"POST", "/api/v1/bookings", "bookings:write"},
		{"GET", "/api/v1/bookings", "bookings:read"},
	} {
		res := e.Do(c.method, c.path, map[string]any{}, xkey(readOnly)...).Expect(403)
		if res.ErrorCode() != "INSUFFICIENT_SCOPE" || res.ErrorDetails()["requiredScope"] != c.scope {
			t.Errorf("%s %s: %s", c.method, c.path, res.Body)
		}
	}
	bookingsOnly := e.key(t, d, "test", "bookings:read")
	e.Get(path, xkey(bookingsOnly)...).Expect(403)

	// The document needs no key.
	res := e.Get("/api/v1/openapi.json").Expect(200)
	expectRateHeaders(t, res, 100)
	if !strings.Contains(string(res.Body), `"version":"1.0.0"`) {
		t.Error("openapi.json lacks info.version 1.0.0")
	}
	e.Get("/docs/errors/UNAVAILABLE").Expect(200)
	e.Get("/media/sample/properties/shinjuku-gardenview-hotel-1.jpg").Expect(200)
}

// TestValidation: 400 naming the field for bad dates, ranges, pages and
// bodies.
func TestValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	key := e.key(t, e.signup(t), "test")
	r := e.tokyoDouble(t)
	avail := "/api/v1/properties/" + r.propertyID + "/availability?"
	for path, field := range map[string]string{
		"/api/v1/properties?pageSize=0":                                               "pageSize",
		"/api/v1/properties?pageSize=101":                                             "pageSize",
		"/api/v1/properties?page=0":                                                   "page",
		"/api/v1/properties?sort=cheapest":                                            "sort",
		"/api/v1/properties?country=US":                                               "country",
		"/api/v1/properties?amenities=wifi,jacuzzi":                                   "amenities",
		"/api/v1/properties?minPrice=-1":                                              "minPrice",
		"/api/v1/properties?minPrice=500&maxPrice=100":                                "maxPrice",
		"/api/v1/properties?checkIn=2026-12-10&checkOut=2026-12-12":                   "guests",
		"/api/v1/properties?checkIn=2026-12-1&checkOut=2026-12-12&guests=2":           "checkIn",
		"/api/v1/properties?checkIn=2026-12-10&checkOut=2026-12-32&guests=2":          "checkOut",
		"/api/v1/properties?checkIn=2026-12-10&checkOut=2026-12-10&guests=2":          "checkOut",
		"/api/v1/properties?checkIn=2026-12-12&checkOut=2026-12-10&guests=2":          "checkOut",
		"/api/v1/properties?checkIn=2026-12-01&checkOut=2027-01-15&guests=2":          "checkOut",
		"/api/v1/properties?checkIn=2026-11-20&checkOut=2026-11-23&guests=2":          "checkIn",
		"/api/v1/properties?checkIn=2026-12-10&checkOut=2026-12-12&guests=0":          "guests",
		avail + "from=2026-12-10&to=2026-12-09":                                       "to",
		avail + "from=2026-12-10&to=2026-12-10":                                       "to",
		avail + "from=2026-12-01&to=2027-12-03":                                       "to",
		avail + "from=12/10/2026":                                                     "from",
		avail + "roomTypeId=42":                                                       "roomTypeId",
		"/api/v1/bookings?pageSize=500":                                               "pageSize",
		"/api/v1/bookings?status=PENDING":                                             "status",
		"/api/v1/bookings?updatedSince=yesterday":                                     "updatedSince",
		"/api/v1/bookings?checkInFrom=2026-12-10&checkInTo=2026-12-01":                "checkInTo",
		"/api/v1/bookings?propertyId=abc":                                             "propertyId",
		"/api/v1/bookings?checkInFrom=2026-13-01":                                     "checkInFrom",
		"/api/v1/properties?checkIn=2026-12-10&checkOut=2026-12-12&guests=2&page=abc": "page",
	} {
		res := e.Get(path, xkey(key)...).Expect(400)
		if _, ok := res.ErrorDetails()[field]; !ok || res.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: details %v, want %s", path, res.ErrorDetails(), field)
		}
	}
	// 366 nights are fine; the calendar beyond the sample is closed.
	var a property.Availability
	e.Get(avail+"from=2026-11-22&to=2027-11-23&roomTypeId="+r.roomTypeID, xkey(key)...).Expect(200).Decode(&a)
	if n := len(a.RoomTypes[0].Nights); n != 366 || !a.RoomTypes[0].Nights[365].Closed || a.RoomTypes[0].Nights[0].Closed {
		t.Errorf("366 nights: %d", n)
	}
	for _, c := range []struct {
		path  string
		body  any
		field string
	}{
		{"/api/v1/quotes", map[string]any{}, "propertyId"},
		{"/api/v1/quotes", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"checkIn": "2026-12-10T15:00:00Z"}), "checkIn"},
		{"/api/v1/quotes", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"checkOut": "2026-12-09"}), "checkOut"},
		{"/api/v1/quotes", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"guests": 21}), "guests"},
		{"/api/v1/quotes", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"guests": "two"}), "guests"},
		{"/api/v1/quotes", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"roomTypeId": "standard"}), "roomTypeId"},
		{"/api/v1/quotes", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"rooms": 2}), "rooms"},
		{"/api/v1/quotes", stay(r, property.NewDate(2026, 11, 21), 2, 2), "checkIn"},
		{"/api/v1/quotes", stay(r, day(1), 31, 2), "checkOut"},
		{"/api/v1/quotes", "{not json", "body"},
		{"/api/v1/bookings", map[string]any{"guest": guest}, "quoteId"},
		{"/api/v1/bookings", map[string]any{"quoteId": "00000000-0000-7000-8000-000000000000", "propertyId": r.propertyID, "guest": guest}, "quoteId"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1)), "guest"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": map[string]any{"firstName": "A", "lastName": "B"}}), "guest.email"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": mergeMaps(guest, map[string]any{"email": "not-an-email"})}), "guest.email"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": mergeMaps(guest, map[string]any{"firstName": " "})}), "guest.firstName"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": mergeMaps(guest, map[string]any{"country": "Singapore"})}), "guest.country"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": mergeMaps(guest, map[string]any{"phone": "call me"})}), "guest.phone"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": guest, "externalReference": strings.Repeat("x", 101)}), "externalReference"},
		{"/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"guest": guest, "specialRequests": strings.Repeat("x", 1001)}), "specialRequests"},
	} {
		res := e.Do("POST", c.path, c.body, xkey(key)...).Expect(400)
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%s %v: details %v, want %s", c.path, c.body, res.ErrorDetails(), c.field)
		}
	}
	e.Do("POST", "/api/v1/quotes", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"propertyId": "00000000-0000-7000-8000-000000000000"}), xkey(key)...).Expect(404)
	e.Do("POST", "/api/v1/quotes", mergeMaps(stay(r, day(10), 1, 1), map[string]any{"roomTypeId": "00000000-0000-7000-8000-000000000000"}), xkey(key)...).Expect(404)
	e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": "00000000-0000-7000-8000-000000000000", "guest": guest}, xkey(key)...).Expect(404)
}

// TestUnavailable: 409 UNAVAILABLE with each reason and the night at fault.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	key := e.key(t, e.signup(t), "live")
	r := e.tokyoDouble(t)
	e.setNight(t, r.roomTypeID, day(11), "closed = TRUE")
	e.setNight(t, r.roomTypeID, day(14), "closed_to_arrival = TRUE")
	e.setNight(t, r.roomTypeID, day(16), "closed_to_departure = TRUE")
	e.setNight(t, r.roomTypeID, day(18), "min_stay = 3")
	e.setNight(t, r.roomTypeID, day(23), "sold = total_units")
	for _, c := range []struct {
		body   map[string]any
		reason string
		date   string
	}{
		{stay(r, day(10), 3, 2), "closed", "2026-12-11"},
		{stay(r, day(14), 1, 2), "closed_to_arrival", "2026-12-14"},
		{stay(r, day(15), 1, 2), "closed_to_departure", "2026-12-16"},
		{stay(r, day(18), 2, 2), "min_stay", "2026-12-18"},
		{stay(r, day(22), 2, 2), "sold_out", "2026-12-23"},
		{stay(r, day(25), 1, 3), "max_guests", ""},
		{stay(r, property.NewDate(2027, 3, 1), 2, 2), "closed", "2027-03-01"}, // beyond the calendar
	} {
		for _, path := range []string{"/api/v1/quotes", "/api/v1/bookings"} {
			res := e.Do("POST", path, mergeMaps(c.body, map[string]any{"guest": guest}), xkey(key)...)
			if path == "/api/v1/quotes" {
				res = e.Do("POST", path, c.body, xkey(key)...)
			}
			res.Expect(409)
			det := res.ErrorDetails()
			if res.ErrorCode() != "UNAVAILABLE" || det["reason"] != c.reason || (c.date != "" && det["date"] != c.date) {
				t.Errorf("%s %v: %s", path, c.body, res.Body)
			}
		}
	}
	// The calendar shows what the errors said.
	var a property.Availability
	e.Get("/api/v1/properties/"+r.propertyID+"/availability?from=2026-12-11&to=2026-12-24&roomTypeId="+r.roomTypeID, xkey(key)...).Expect(200).Decode(&a)
	n := a.RoomTypes[0].Nights
	gotNights := map[string]any{
		"12-11 closed":              n[0].Closed,
		"12-14 closed to arrival":   n[3].ClosedToArrival,
		"12-16 closed to departure": n[5].ClosedToDeparture,
		"12-18 min stay":            n[7].MinStay,
		"12-23 available units":     n[12].AvailableUnits,
	}
	wantNights := map[string]any{"12-11 closed": true, "12-14 closed to arrival": true, "12-16 closed to departure": true, "12-18 min stay": 3, "12-23 available units": 0}
	if diff := cmp.Diff(wantNights, gotNights); diff != "" {
		t.Errorf("calendar (-want +got):\n%s", diff)
	}
	// And the search agrees: a stay over the sold-out night is not offered
	// in this room type, whose total would be lower.
	var found struct{ Data []property.PropertySummary }
	e.Get("/api/v1/properties?"+url.Values{"city": {"Tokyo"}, "checkIn": {"2026-12-22"}, "checkOut": {"2026-12-24"}, "guests": {"2"}}.Encode(),
		xkey(key)...).Expect(200).Decode(&found)
	for _, p := range found.Data {
		if p.ID == r.propertyID && p.LowestTotal.Amount == n[11].Price.Amount+n[12].Price.Amount {
			t.Errorf("the search offers the sold-out room type: %+v", p)
		}
	}
}

// TestExpiredQuote: past QUOTE_TTL the quote answers 410 and its units are
// back.
func TestExpiredQuote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{quoteTTL: 5 * time.Minute})
	key := e.key(t, e.signup(t), "live")
	r := e.tokyoDouble(t)
	e.setNight(t, r.roomTypeID, day(12), "sold = total_units - 1")
	var q property.Quote
	e.Do("POST", "/api/v1/quotes", stay(r, day(12), 1, 2), xkey(key)...).Expect(201).Decode(&q)
	if !q.ExpiresAt.Equal(e.clock.Now().Add(5 * time.Minute)) {
		t.Errorf("expiresAt %v", q.ExpiresAt)
	}
	if got := e.available(t, key, r, day(12)); got != 0 {
		t.Fatalf("held last unit still shows %d", got)
	}
	e.Do("POST", "/api/v1/quotes", stay(r, day(12), 1, 2), xkey(key)...).Expect(409)
	e.clock.Advance(5*time.Minute + time.Second)
	if got := e.available(t, key, r, day(12)); got != 1 {
		t.Errorf("after expiry the unit shows %d", got)
	}
	res := e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": q.ID, "guest": guest}, xkey(key)...).Expect(410)
	if res.ErrorCode() != "GONE" || res.ErrorDetails()["expiresAt"] == nil {
		t.Errorf("expired quote: %s", res.Body)
	}
	if n, err := e.store.ReleaseExpiredHolds(t.Context()); err != nil || n != 1 {
		t.Errorf("ReleaseExpiredHolds = %d, %v", n, err)
	}
	e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": q.ID, "guest": guest}, xkey(key)...).Expect(410)
	e.Do("POST", "/api/v1/quotes", stay(r, day(12), 1, 2), xkey(key)...).Expect(201)
}

// TestRateLimits: the three headers on every response, 429 with
// Retry-After per key and per IP, and the usage the portal reports.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{keyLimit: 3})
	d := e.signup(t)
	key := e.key(t, d, "test")
	other := e.key(t, d, "live")
	for i := range 3 {
		res := e.Get("/api/v1/properties?pageSize=1", xkey(key)...).Expect(200)
		expectRateHeaders(t, res, 3)
		if res.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
			t.Errorf("request %d: remaining %s", i, res.Header.Get("X-RateLimit-Remaining"))
		}
	}
	res := e.Get("/api/v1/properties?pageSize=1", xkey(key)...).Expect(429)
	expectRateHeaders(t, res, 3)
	if res.ErrorCode() != "RATE_LIMITED" || res.Header.Get("Retry-After") != "20" || res.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429: %v %s", res.Header, res.Body)
	}
	reset, _ := strconv.ParseInt(res.Header.Get("X-RateLimit-Reset"), 10, 64)
	if reset <= e.clock.Now().Unix() {
		t.Errorf("X-RateLimit-Reset %d is not in the future", reset)
	}
	e.Do("POST", "/api/v1/quotes", map[string]any{}, xkey(key)...).Expect(429)
	// Another key has its own budget.
	e.Get("/api/v1/bookings", xkey(other)...).Expect(200)
	// The budget refills evenly: one request after 20 s.
	e.clock.Advance(20 * time.Second)
	e.Get("/api/v1/bookings", xkey(key)...).Expect(200)
	e.Get("/api/v1/bookings", xkey(key)...).Expect(429)

	// Without a valid key, per client IP: 401 until the budget is spent.
	e.RemoteAddr = "198.51.100.7:5000"
	for range 3 {
		expectRateHeaders(t, e.Get("/api/v1/bookings").Expect(401), 3)
	}
	res = e.Get("/api/v1/bookings", xkey("pk_test_nope")...).Expect(429)
	expectRateHeaders(t, res, 3)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// The OpenAPI document and the sample pictures share that budget.
	e.Get("/api/v1/openapi.json").Expect(429)
	e.Get("/media/sample/properties/shinjuku-gardenview-hotel-1.jpg").Expect(429)
	e.RemoteAddr = "203.0.113.50:5000"
	img := e.Get("/media/sample/properties/shinjuku-gardenview-hotel-1.jpg").Expect(200)
	expectRateHeaders(t, img, 3)
	if img.Header.Get("X-RateLimit-Remaining") != "2" || img.Header.Get("ETag") == "" {
		t.Errorf("sample picture headers %v", img.Header)
	}
	e.RemoteAddr = "192.0.2.1:1234"

	// Usage: per day and key, from memory and after a flush alike.
	check := func() {
		t.Helper()
		var u struct {
			From, To string
			Data     []property.UsageDay
		}
		e.Get("/portal/api/usage", bearer(d.token)...).Expect(200).Decode(&u)
		if u.To != "2026-11-22" || u.From != "2026-10-24" || len(u.Data) != 2 {
			t.Fatalf("usage: %+v", u)
		}
		byPrefix := map[string]property.UsageDay{}
		for _, x := range u.Data {
			byPrefix[x.KeyPrefix] = x
		}
		if k := byPrefix[key[:12]]; k.Requests != 7 || k.RateLimited != 3 || k.Date.String() != "2026-11-22" {
			t.Errorf("test key usage: %+v", k)
		}
		if k := byPrefix[other[:12]]; k.Requests != 1 || k.RateLimited != 0 {
			t.Errorf("live key usage: %+v", k)
		}
	}
	check()
	if err := e.store.FlushUsage(t.Context(), e.usage); err != nil {
		t.Fatal(err)
	}
	check()
	for q, field := range map[string]string{
		"from=2026-11-30&to=2026-11-01": "to",
		"from=2025-01-01&to=2026-11-22": "to",
		"from=yesterday":                "from",
	} {
		res := e.Get("/portal/api/usage?"+q, bearer(d.token)...).Expect(400)
		if _, ok := res.ErrorDetails()[field]; !ok {
			t.Errorf("usage?%s: %s", q, res.Body)
		}
	}
	var past struct{ Data []property.UsageDay }
	e.Get("/portal/api/usage?from=2025-11-22&to=2026-11-21", bearer(d.token)...).Expect(200).Decode(&past)
	if len(past.Data) != 0 {
		t.Errorf("usage before today: %+v", past.Data)
	}
}

// TestIdempotency: replay, reuse with another body, in progress.
func TestIdempotency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	key := e.key(t, d, "live")
	r := e.tokyoDouble(t)
	body := mergeMaps(stay(r, day(10), 2, 2), map[string]any{"guest": guest})
	idem := func(k string) []string { return append(xkey(key), "Idempotency-Key", k) }

	var first, again property.Booking
	res := e.Do("POST", "/api/v1/bookings", body, idem("book-1")...).Expect(201)
	res.Decode(&first)
	firstBody := res.Body
	if res.Header.Get("Idempotent-Replayed") != "" {
		t.Error("the first response says it is replayed")
	}
	before := e.available(t, key, r, day(10))
	// The same body, even spaced differently, replays.
	res = e.Do("POST", "/api/v1/bookings", body, idem("book-1")...).Expect(201)
	res.Decode(&again)
	if res.Header.Get("Idempotent-Replayed") != "true" || again.ID != first.ID || !bytes.Equal(res.Body, firstBody) {
		t.Fatalf("replay: %v %s", res.Header, res.Body)
	}
	expectRateHeaders(t, res, 1000)
	if got := e.available(t, key, r, day(10)); got != before {
		t.Errorf("a replay booked again: %d available, was %d", got, before)
	}
	var n int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM bookings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d bookings after a replay", n)
	}
	// Another body with the key: 422.
	res = e.Do("POST", "/api/v1/bookings", mergeMaps(body, map[string]any{"guests": 1}), idem("book-1")...).Expect(422)
	if res.ErrorCode() != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("reuse: %s", res.Body)
	}
	// Another path with the key: 422 as well.
	e.Do("POST", "/api/v1/quotes", stay(r, day(10), 2, 2), idem("book-1")...).Expect(422)
	// Another account has its own keys.
	otherKey := e.key(t, e.signup(t), "live")
	e.Do("POST", "/api/v1/quotes", stay(r, day(10), 2, 2), append(xkey(otherKey), "Idempotency-Key", "book-1")...).Expect(201)
	// While the first request runs: 409.
	if _, _, err := e.keys.Begin(t.Context(), d.id, "running", "whatever"); err != nil {
		t.Fatal(err)
	}
	res = e.Do("POST", "/api/v1/bookings/"+first.ID+"/cancel", nil, idem("running")...).Expect(409)
	if res.ErrorCode() != "IDEMPOTENCY_IN_PROGRESS" {
		t.Errorf("in progress: %s", res.Body)
	}
	// Errors replay too: a cancel twice with one key is one cancel.
	e.Do("POST", "/api/v1/bookings/"+first.ID+"/cancel", nil, idem("cancel-1")...).Expect(200)
	res = e.Do("POST", "/api/v1/bookings/"+first.ID+"/cancel", nil, idem("cancel-1")...).Expect(200)
	if res.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("cancel not replayed")
	}
	e.Do("POST", "/api/v1/bookings/"+first.ID+"/cancel", nil, xkey(key)...).Expect(422)
	e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, day(10), 2, 5), map[string]any{"guest": guest}), idem("too-many")...).Expect(409)
	res = e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, day(10), 2, 5), map[string]any{"guest": guest}), idem("too-many")...).Expect(409)
	if res.Header.Get("Idempotent-Replayed") != "true" || res.ErrorDetails()["reason"] != "max_guests" {
		t.Errorf("replayed 409: %v %s", res.Header, res.Body)
	}
	// Kept 24 hours.
	e.clock.Advance(24*time.Hour + time.Second)
	e.Do("POST", "/api/v1/bookings", mergeMaps(body, map[string]any{"guests": 1}), idem("book-1")...).Expect(201)
	// A bad key is a 400 naming the header.
	res = e.Do("POST", "/api/v1/quotes", stay(r, day(10), 2, 2), idem(strings.Repeat("k", 256))...).Expect(400)
	if _, ok := res.ErrorDetails()["Idempotency-Key"]; !ok {
		t.Errorf("long key: %s", res.Body)
	}

	// Key creation: the replay carries the same key id, never the key.
	var k1, k2 struct {
		ID  string
		Key *string
	}
	h := append(bearer(d.token), "Idempotency-Key", "new-key")
	e.Do("POST", "/portal/api/keys", map[string]any{"name": "ci", "mode": "test"}, h...).Expect(201).Decode(&k1)
	res = e.Do("POST", "/portal/api/keys", map[string]any{"name": "ci", "mode": "test"}, h...).Expect(201)
	res.Decode(&k2)
	if diff := cmp.Diff(map[string]any{"first has the key": true, "replay has the key": false, "same id": true, "replayed": "true"},
		map[string]any{"first has the key": k1.Key != nil, "replay has the key": k2.Key != nil, "same id": k1.ID == k2.ID, "replayed": res.Header.Get("Idempotent-Replayed")}); diff != "" {
		t.Fatalf("key creation replay (-want +got):\n%s", diff)
	}
	var stored string
	if err := e.db.QueryRow(`SELECT CAST(response_body AS TEXT) FROM idempotency_keys WHERE key = 'new-key'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, *k1.Key) {
		t.Error("the new API key is stored in the idempotency record")
	}
}

// TestPortal covers the portal's failures.
func TestPortal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	d := e.signup(t)
	res := e.Do("POST", "/portal/api/signup", map[string]string{"email": strings.ToUpper(d.email), "password": "another-password", "name": "Copy"}).Expect(409)
	if res.ErrorCode() != "EMAIL_ALREADY_REGISTERED" {
		t.Errorf("duplicate signup: %s", res.Body)
	}
	for body, field := range map[string]string{
		`{"email":"x","password":"correct-horse-1","name":"Xi"}`:                   "email",
		`{"email":"x@example.com","password":"short","name":"Xi"}`:                 "password",
		`{"email":"x@example.com","password":"correct-horse-1"}`:                   "name",
		`{"email":"x@example.com","password":"correct-horse-1","name":"Xi","a":1}`: "a",
	} {
		res := e.Do("POST", "/portal/api/signup", body).Expect(400)
		if _, ok := res.ErrorDetails()[field]; !ok {
			t.Errorf("%s: %s", body, res.Body)
		}
	}
	e.Do("POST", "/portal/api/login", map[string]string{"email": d.email, "password": "wrong-password"}).Expect(401)
	e.Do("POST", "/portal/api/login", map[string]string{"email": "nobody@example.com", "password": "correct-horse-1"}).Expect(401)
	// A login password is judged as at signup, and as on the guide API:
	// shorter than 8 characters is a 400 naming it, not a wrong password.
	if res := e.Do("POST", "/portal/api/login", map[string]string{"email": d.email, "password": "short"}).Expect(400); res.ErrorDetails()["password"] == nil {
		t.Errorf("short login password: %s", res.Body)
	}
	// Names are judged trimmed.
	if res := e.Do("POST", "/portal/api/signup", map[string]string{"email": "trim@example.com", "password": "correct-horse-1", "name": "  X  "}).Expect(400); res.ErrorDetails()["name"] == nil {
		t.Errorf("one-letter name in spaces: %s", res.Body)
	}
	var login struct {
		Token     string
		Developer property.Developer
	}
	e.Do("POST", "/portal/api/login", map[string]string{"email": d.email, "password": "correct-horse-1"}).Expect(200).Decode(&login)
	if login.Developer.ID != d.id || login.Token == "" {
		t.Errorf("login: %+v", login)
	}
	e.Get("/portal/api/me").Expect(401)
	e.Get("/portal/api/me", bearer("not-a-token")...).Expect(401)
	key := e.key(t, d, "test")
	e.Get("/portal/api/me", bearer(key)...).Expect(401)
	// The session cookie holds the same token; cross-site writes are refused.
	e.Get("/portal/api/me", "Cookie", "pp_session="+login.Token).Expect(200)
	e.Do("POST", "/portal/api/keys", map[string]any{"name": "x", "mode": "test"}, "Cookie", "pp_session="+login.Token, "Sec-Fetch-Site", "cross-site").Expect(403)
	e.Do("POST", "/portal/api/keys", map[string]any{"name": "x", "mode": "test"}, "Cookie", "pp_session="+login.Token, "Sec-Fetch-Site", "same-origin").Expect(201)
	for body, field := range map[string]string{
		`{"name":"k"}`:                                  "mode",
		`{"name":"k","mode":"prod"}`:                    "mode",
		`{"mode":"live"}`:                               "name",
		`{"name":"k","mode":"live","scopes":[]}`:        "scopes",
		`{"name":"k","mode":"live","scopes":["admin"]}`: "scopes",
		`{"name":"k","mode":"live","expiresInDays":30}`: "expiresInDays",
	} {
		res := e.Do("POST", "/portal/api/keys", body, bearer(d.token)...).Expect(400)
		if _, ok := res.ErrorDetails()[field]; !ok {
			t.Errorf("%s: %s", body, res.Body)
		}
	}
	// Keys of another account are not found.
	other := e.signup(t)
	var keys struct{ Data []property.Key }
	e.Get("/portal/api/keys", bearer(d.token)...).Expect(200).Decode(&keys)
	e.Do("DELETE", "/portal/api/keys/"+keys.Data[0].ID, nil, bearer(other.token)...).Expect(404)
	e.Do("POST", "/portal/api/keys/"+keys.Data[0].ID+"/rotate", nil, bearer(other.token)...).Expect(404)
	e.Do("DELETE", "/portal/api/keys/42", nil, bearer(d.token)...).Expect(404)
	// The demo account follows DEMO_PASSWORD.
	e.Do("POST", "/portal/api/login", map[string]string{"email": property.DemoEmail, "password": "demo-password"}).Expect(401)
	hash := mustHash(t, "demo-password")
	if err := e.store.SetDemoPassword(t.Context(), hash); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/portal/api/login", map[string]string{"email": property.DemoEmail, "password": "demo-password"}).Expect(200)
}

// TestPortalRateLimits: sign-ins are limited per client IP.
func TestPortalRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{portalAuthLimit: 2})
	for i := range 2 {
		e.Do("POST", "/portal/api/login", map[string]string{"email": fmt.Sprintf("x%d@example.com", i), "password": "wrong-password"}).Expect(401)
	}
	res := e.Do("POST", "/portal/api/login", map[string]string{"email": "x@example.com", "password": "wrong-password"}).Expect(429)
	expectRateHeaders(t, res, 2)
	e.RemoteAddr = "203.0.113.9:80"
	e.Do("POST", "/portal/api/signup", map[string]string{"email": "fresh@example.com", "password": "correct-horse-1", "name": "Fresh"}).Expect(201)
}

func mustHash(t *testing.T, password string) string {
	t.Helper()
	h, err := auth.HashPassword(t.Context(), password)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
