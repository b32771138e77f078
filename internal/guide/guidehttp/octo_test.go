package guidehttp_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// octoEnv is a guide server with a reseller and its keys, and a client
// that checks every OCTO answer against the OCTO document.
type octoEnv struct {
	*bookingEnv
	octo     *apitest.Client
	reseller user
	live     string // octo:sell key, live
	test     string // octo:sell key, test
}

func newOctoEnv(t *testing.T, engine store.Engine) *octoEnv {
	t.Helper()
	b := newBookingEnv(t, engine)
	doc, err := octoDoc()
	if err != nil {
		t.Fatal(err)
	}
	o := &octoEnv{bookingEnv: b, octo: apitest.New(t, b.srv, doc), reseller: b.register(t, "reseller@example.com", "TOURIST")}
	o.live = b.apiKey(t, o.reseller, "octo:sell")
	var res struct{ Data struct{ Key string } }
	b.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "certification", "scopes": []string{"octo:sell"}, "mode": "test"},
		bearer(o.reseller.token)...).Expect(201).Decode(&res)
	o.test = res.Data.Key
	return o
}

// call sends an OCTO request with key, asking for octo/content in
// Japanese.
func (o *octoEnv) call(key, method, path string, body any, headers ...string) *apitest.Response {
	h := append([]string{"Authorization", "Bearer " + key, "Octo-Capabilities", "octo/content", "Accept-Language", "ja-JP, en;q=0.5"}, headers...)
	return o.octo.Do(method, path, body, h...)
}

// octoErr checks an OCTO error answer.
func octoErr(t *testing.T, res *apitest.Response, code string) map[string]any {
	t.Helper()
	m := res.Expect(400).JSON()
	if m["error"] != code || m["errorMessage"] == "" {
		t.Fatalf("want %s, got %s", code, res.Body)
	}
	return m
}

type octoAvail struct {
	ID, Status string
	Available  bool
}

// starts lists the product's starts over the week from two days on.
func (o *octoEnv) starts(t *testing.T, key, product string) []octoAvail {
	t.Helper()
	from := o.clock.Now().Add(48 * time.Hour)
	var out []octoAvail
	o.call(key, "POST", "/octo/availability/", map[string]any{"productId": product, "optionId": "DEFAULT",
		"localDateStart": from.Format(time.DateOnly), "localDateEnd": from.AddDate(0, 0, 7).Format(time.DateOnly)}).Expect(200).Decode(&out)
	return out
}

func (o *octoEnv) freeStart(t *testing.T, product string) string {
	t.Helper()
	for _, s := range o.starts(t, o.live, product) {
		if s.Available {
			return s.ID
		}
	}
	t.Fatalf("no free start of %s", product)
	return ""
}

type octoBooking struct {
	UUID, Status, SupplierReference, AvailabilityID string
	DeliveryMethods                                 []string
	Voucher                                         *struct {
		RedemptionMethod string
		DeliveryOptions  []struct{ DeliveryFormat, DeliveryValue string }
	}
	ResellerReference            *string
	UTCExpiresAt, UTCConfirmedAt *string
	TestMode, Cancellable        bool
	Cancellation                 *struct{ Refund string }
	UnitItems                    []struct{ UUID string }
}

func (o *octoEnv) reserve(t *testing.T, key, product, start string, extra map[string]any, headers ...string) *apitest.Response {
	t.Helper()
	body := map[string]any{"productId": product, "optionId": "DEFAULT", "availabilityId": start,
		"unitItems": []map[string]any{{"unitId": "adult"}, {"unitId": "adult"}}}
	for k, v := range extra {
		body[k] = v
	}
	return o.call(key, "POST", "/octo/bookings/", body, headers...)
}

// TestOctoFlow: a reseller reads the supplier and products, finds a free
// start, holds it (once, however often the reserve is sent), confirms it
// into a marketplace booking the expert sees with the reseller's name and
// reference and accepts, and cancels it; every answer matches the OCTO
// document, and the time is taken from the hold on, for every door.
func TestOctoFlow(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			o := newOctoEnv(t, engine)
			res := o.call(o.live, "GET", "/octo/supplier/", nil).Expect(200)
			if res.Header.Get("Octo-Capabilities") != "octo/content" || res.Header.Get("Content-Language") != "ja" {
				t.Errorf("headers: %v", res.Header)
			}
			o.call(o.live, "GET", "/octo/supplier", nil).Expect(200)
			o.call(o.live, "GET", "/octo/capabilities/", nil).Expect(200)
			var products []struct {
				ID, TimeZone, Title              string
				DeliveryFormats, DeliveryMethods []string
				Options                          []struct{ AvailabilityLocalStartTimes []string }
			}
			o.call(o.live, "GET", "/octo/products/", nil).Expect(200).Decode(&products)
			found := false
			for _, p := range products {
				found = found || p.ID == o.packageID
			}
			if !found || len(products[0].Options[0].AvailabilityLocalStartTimes) == 0 || products[0].Title == "" {
				t.Fatalf("products: %d, package %s listed: %v", len(products), o.packageID, found)
			}
			// The validator wants at least one of each; the voucher is the reference.
			if p := products[0]; !slices.Equal(p.DeliveryFormats, []string{"QRCODE"}) || !slices.Equal(p.DeliveryMethods, []string{"VOUCHER"}) {
				t.Errorf("delivery: %v %v", p.DeliveryFormats, p.DeliveryMethods)
			}
			o.call(o.live, "GET", "/octo/products/"+o.packageID, nil).Expect(200)
			// Without octo/content: no content fields, and no capability echoed.
			plain := o.octo.Get("/octo/products/"+o.packageID, "Authorization", "Bearer "+o.live).Expect(200)
			if strings.Contains(string(plain.Body), `"title"`) || plain.Header.Get("Octo-Capabilities") != "" {
				t.Errorf("content without octo/content: %s", plain.Body)
			}
			from := o.clock.Now().Add(48 * time.Hour)
			var days []struct{ LocalDate, Status string }
			o.call(o.live, "POST", "/octo/availability/calendar", map[string]any{"productId": o.packageID, "optionId": "DEFAULT",
				"localDateStart": from.Format(time.DateOnly), "localDateEnd": from.AddDate(0, 0, 89).Format(time.DateOnly)}).Expect(200).Decode(&days)
			if len(days) != 90 {
				t.Fatalf("calendar: %d days", len(days))
			}

			start := o.freeStart(t, o.packageID)
			ref := map[string]any{"resellerReference": "RES-1"}
			var hold octoBooking
			o.reserve(t, o.live, o.packageID, start, ref).Expect(200).Decode(&hold)
			gotHold := map[string]any{
				"status": hold.Status, "expiresSet": hold.UTCExpiresAt != nil, "unitItems": len(hold.UnitItems),
				"testMode": hold.TestMode, "deliveryMethods": hold.DeliveryMethods, "voucherSet": hold.Voucher != nil,
			}
			if hold.Voucher != nil {
				gotHold["voucherDeliveryOptions"] = len(hold.Voucher.DeliveryOptions)
			}
			wantHold := map[string]any{
				"status": "ON_HOLD", "expiresSet": true, "unitItems": 2,
				"testMode": false, "deliveryMethods": []string{"VOUCHER"}, "voucherSet": true,
				"voucherDeliveryOptions": 0,
			}
			if diff := cmp.Diff(wantHold, gotHold); diff != "" {
				t.Fatalf("hold (-want +got):\n%s", diff)
			}
			wantExp := o.clock.Now().Add(30 * time.Minute).Truncate(time.Second).Format("2006-01-02T15:04:05Z")
			if *hold.UTCExpiresAt != wantExp {
				t.Errorf("utcExpiresAt %s, want %s", *hold.UTCExpiresAt, wantExp)
			}
			var again octoBooking
			o.reserve(t, o.live, o.packageID, start, ref).Expect(200).Decode(&again)
			if again.UUID != hold.UUID {
				t.Errorf("the same reserve made a second hold: %s, %s", hold.UUID, again.UUID)
			}
			if n := o.count(t, `SELECT COUNT(*) FROM octo_bookings`); n != 1 {
				t.Errorf("%d holds stored", n)
			}
			for _, s := range o.starts(t, o.live, o.packageID) {
				if s.ID == start && (s.Available || s.Status != "SOLD_OUT") {
					t.Errorf("held start still available: %+v", s)
				}
			}
			// A traveller may still ask for the time through REST (a request
			// takes no time), but the expert cannot accept it over the hold.
			var asked struct{ Data struct{ ID string } }
			o.Do("POST", "/api/v1/bookings", map[string]any{"packageId": o.packageID, "scheduledDate": start}, bearer(o.tourist.token)...).
				Expect(201).Decode(&asked)
			res = o.Do("POST", "/api/v1/bookings/"+asked.Data.ID+"/accept", nil, bearer(o.expert.token)...)
			if res.Status != 409 || res.ErrorCode() != "CONFLICT" {
				t.Errorf("accepting a REST booking over a hold: %d %s", res.Status, res.Body)
			}
			o.Do("POST", "/api/v1/bookings/"+asked.Data.ID+"/cancel", nil, bearer(o.tourist.token)...).Expect(200)
			octoErr(t, o.reserve(t, o.live, o.packageID, start, nil), "UNPROCESSABLE_ENTITY")

			var ext octoBooking
			o.call(o.live, "POST", "/octo/bookings/"+hold.UUID+"/extend", map[string]any{"expirationMinutes": 15}).Expect(200).Decode(&ext)
			if ext.UTCExpiresAt == nil || *ext.UTCExpiresAt <= *hold.UTCExpiresAt {
				t.Errorf("extend: %v after %v", ext.UTCExpiresAt, *hold.UTCExpiresAt)
			}

			contact := map[string]any{"fullName": "Mei Chan", "firstName": "Mei", "lastName": "Chan", "emailAddress": "mei@example.com", "notes": "Vegetarian"}
			var booked octoBooking
			o.call(o.live, "POST", "/octo/bookings/"+hold.UUID+"/confirm", map[string]any{"contact": contact, "resellerReference": "RES-1"}).
				Expect(200).Decode(&booked)
			gotBooked := map[string]any{
				"status": booked.Status, "expiresSet": booked.UTCExpiresAt != nil,
				"confirmedSet": booked.UTCConfirmedAt != nil, "cancellable": booked.Cancellable,
			}
			wantBooked := map[string]any{"status": "PENDING", "expiresSet": false, "confirmedSet": true, "cancellable": true}
			if diff := cmp.Diff(wantBooked, gotBooked); diff != "" {
				t.Fatalf("confirmed (-want +got):\n%s", diff)
			}
			gotVoucher := map[string]any{"set": booked.Voucher != nil}
			if v := booked.Voucher; v != nil {
				gotVoucher["redemptionMethod"] = v.RedemptionMethod
				gotVoucher["deliveryOptions"] = len(v.DeliveryOptions)
				if len(v.DeliveryOptions) > 0 {
					gotVoucher["format"] = v.DeliveryOptions[0].DeliveryFormat
					gotVoucher["value"] = v.DeliveryOptions[0].DeliveryValue
				}
			}
			wantVoucher := map[string]any{
				"set": true, "redemptionMethod": "MANIFEST", "deliveryOptions": 1,
				"format": "QRCODE", "value": booked.SupplierReference,
			}
			if diff := cmp.Diff(wantVoucher, gotVoucher); diff != "" {
				t.Errorf("voucher (-want +got):\n%s", diff)
			}
			var bookingID string
			if err := o.db.QueryRow(`SELECT booking_id FROM octo_bookings WHERE id = $1`, hold.UUID).Scan(&bookingID); err != nil {
				t.Fatal(err)
			}
			d := o.detail(t, o.expert, bookingID)
			gotDetail := map[string]any{"resellerSet": d.Reseller != nil, "participants": d.Participants, "status": d.Status}
			if d.Reseller != nil {
				gotDetail["octoUUID"] = d.Reseller.OctoUUID
				gotDetail["reference"] = d.Reseller.Reference
			}
			wantDetail := map[string]any{
				"resellerSet": true, "participants": 2, "status": "PENDING",
				"octoUUID": hold.UUID, "reference": new("RES-1"),
			}
			if diff := cmp.Diff(wantDetail, gotDetail); diff != "" {
				t.Fatalf("the expert's booking (-want +got):\n%s", diff)
			}
			o.Do("POST", "/api/v1/bookings/"+bookingID+"/accept", nil, bearer(o.expert.token)...).Expect(200)
			var got octoBooking
			o.call(o.live, "GET", "/octo/bookings/"+hold.UUID, nil).Expect(200).Decode(&got)
			if got.Status != "CONFIRMED" {
				t.Errorf("after the expert accepted: %s", got.Status)
			}
			if n := o.count(t, `SELECT COUNT(*) FROM events WHERE type = 'booking.confirmed' AND data LIKE '%`+hold.UUID+`%'`); n != 1 {
				t.Errorf("booking.confirmed events with the uuid: %d", n)
			}
			var list []octoBooking
			o.call(o.live, "GET", "/octo/bookings/?resellerReference=RES-1", nil).Expect(200).Decode(&list)
			if len(list) != 1 || list[0].UUID != hold.UUID {
				t.Errorf("by reseller reference: %+v", list)
			}
			o.call(o.live, "GET", "/octo/bookings?supplierReference="+got.SupplierReference, nil).Expect(200).Decode(&list)
			if len(list) != 1 {
				t.Errorf("by supplier reference: %+v", list)
			}
			octoErr(t, o.call(o.live, "GET", "/octo/bookings/", nil), "BAD_REQUEST")
			// Another reseller does not see it.
			other := o.register(t, "other-reseller@example.com", "TOURIST")
			otherKey := o.apiKey(t, other, "octo:sell")
			octoErr(t, o.call(otherKey, "GET", "/octo/bookings/"+hold.UUID, nil), "INVALID_BOOKING_UUID")

			var cancelled octoBooking
			o.call(o.live, "POST", "/octo/bookings/"+hold.UUID+"/cancel", map[string]any{"reason": "Plans changed"}).Expect(200).Decode(&cancelled)
			gotCancelled := map[string]any{
				"status": cancelled.Status, "cancellationSet": cancelled.Cancellation != nil, "cancellable": cancelled.Cancellable,
			}
			if cancelled.Cancellation != nil {
				gotCancelled["refund"] = cancelled.Cancellation.Refund
			}
			wantCancelled := map[string]any{"status": "CANCELLED", "cancellationSet": true, "cancellable": false, "refund": "FULL"}
			if diff := cmp.Diff(wantCancelled, gotCancelled); diff != "" {
				t.Errorf("cancelled (-want +got):\n%s", diff)
			}
			if d := o.detail(t, o.expert, bookingID); d.Status != "CANCELLED" {
				t.Errorf("marketplace booking after the cancel: %s", d.Status)
			}
			if n := o.count(t, `SELECT COUNT(*) FROM events WHERE type = 'booking.cancelled' AND data LIKE '%`+hold.UUID+`%'`); n != 1 {
				t.Errorf("booking.cancelled events with the uuid: %d", n)
			}
			octoErr(t, o.call(o.live, "POST", "/octo/bookings/"+hold.UUID+"/cancel", nil), "UNPROCESSABLE_ENTITY")

			// A hold that expires frees its time by itself.
			var short octoBooking
			o.reserve(t, o.live, o.packageID, start, map[string]any{"expirationMinutes": 1}, "Idempotency-Key", "k-1").Expect(200).Decode(&short)
			o.clock.Advance(2 * time.Minute)
			o.call(o.live, "GET", "/octo/bookings/"+short.UUID, nil).Expect(200).Decode(&got)
			if got.Status != "EXPIRED" {
				t.Errorf("after its expiry: %s", got.Status)
			}
			octoErr(t, o.call(o.live, "POST", "/octo/bookings/"+short.UUID+"/confirm", map[string]any{"contact": contact}), "UNPROCESSABLE_ENTITY")
			o.reserve(t, o.live, o.packageID, start, nil).Expect(200)
		})
	}
}

// TestOctoErrors: each wrong request is answered with its OCTO code in
// OCTO's body (status 400, never 404), naming the id at fault.
func TestOctoErrors(t *testing.T) {
	t.Parallel()
	o := newOctoEnv(t, store.SQLite)
	start := o.freeStart(t, o.packageID)
	unknown := "0193a4f5-3c4d-7e5f-8a6b-7c8d9e0f1a2b"
	if m := octoErr(t, o.call(o.live, "GET", "/octo/products/"+unknown, nil), "INVALID_PRODUCT_ID"); m["productId"] != unknown {
		t.Errorf("productId: %v", m)
	}
	octoErr(t, o.call(o.live, "GET", "/octo/products/not-a-product", nil), "INVALID_PRODUCT_ID")
	octoErr(t, o.call(o.live, "POST", "/octo/availability/", map[string]any{"productId": o.packageID, "optionId": "OTHER",
		"localDate": "2030-01-01"}), "INVALID_OPTION_ID")
	octoErr(t, o.call(o.live, "POST", "/octo/availability/", map[string]any{"productId": o.packageID, "optionId": "DEFAULT",
		"localDate": "2030-01-01", "availabilityIds": []string{start}}), "BAD_REQUEST")
	octoErr(t, o.call(o.live, "POST", "/octo/availability/calendar", map[string]any{"productId": o.packageID, "optionId": "DEFAULT"}), "BAD_REQUEST")
	if m := octoErr(t, o.reserve(t, o.live, o.packageID, "2030-01-01T03:17:00Z", nil), "INVALID_AVAILABILITY_ID"); m["availabilityId"] == nil {
		t.Errorf("availabilityId: %v", m)
	}
	octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"unitItems": []map[string]any{{"unitId": "child"}}}), "INVALID_UNIT_ID")
	octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"unitItems": []map[string]any{}}), "UNPROCESSABLE_ENTITY")
	octoErr(t, o.call(o.live, "POST", "/octo/bookings/", map[string]any{"productId": o.packageID, "optionId": "DEFAULT",
		"availabilityId": start}), "UNPROCESSABLE_ENTITY")
	many := make([]map[string]any, 60)
	for i := range many {
		many[i] = map[string]any{"unitId": "adult"}
	}
	octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"unitItems": many}), "UNPROCESSABLE_ENTITY")
	octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"expirationMinutes": 0}), "BAD_REQUEST")
	octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"notes": "a\x00b"}), "BAD_REQUEST")
	if m := octoErr(t, o.call(o.live, "GET", "/octo/bookings/"+unknown, nil), "INVALID_BOOKING_UUID"); m["uuid"] != unknown {
		t.Errorf("uuid: %v", m)
	}
	octoErr(t, o.call(o.live, "POST", "/octo/bookings/nope/confirm", map[string]any{"contact": map[string]any{}}), "INVALID_BOOKING_UUID")
	octoErr(t, o.octo.Get("/octo/supplier/"), "UNAUTHORIZED")
	// No route: OCTO's body too, not the REST envelope, for the same keys.
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/octo/nope", 404, ""},
		{"GET", "/octo/products/" + o.packageID + "/nope", 404, ""},
		{"GET", "/octo", 404, ""},
		{"POST", "/octo/supplier", 405, "GET, HEAD"},
		{"DELETE", "/octo/bookings/" + unknown, 405, "GET, HEAD, PATCH"},
	} {
		res := o.call(o.live, c.method, c.path, nil).Expect(c.status)
		m := res.JSON()
		got := map[string]any{
			"error": m["error"], "errorMessageSet": m["errorMessage"] != "", "code": m["code"], "allow": res.Header.Get("Allow"),
		}
		want := map[string]any{"error": "BAD_REQUEST", "errorMessageSet": true, "code": nil, "allow": c.allow}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.method, c.path, diff)
		}
	}
	octoErr(t, o.octo.Get("/octo/nope"), "UNAUTHORIZED")
	octoErr(t, o.octo.Get("/octo/supplier/", bearer("pk_live_not-a-key")...), "UNAUTHORIZED")
	noScope := o.apiKey(t, o.reseller, "bookings:read")
	octoErr(t, o.octo.Get("/octo/supplier/", bearer(noScope)...), "FORBIDDEN")
	octoErr(t, o.octo.Get("/octo/supplier/", bearer(o.reseller.token)...), "FORBIDDEN")
	// An Idempotency-Key sent again with another request.
	o.reserve(t, o.live, o.packageID, start, nil, "Idempotency-Key", "same").Expect(200)
	octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"notes": "other"}, "Idempotency-Key", "same"), "BAD_REQUEST")
	if n := o.count(t, `SELECT COUNT(*) FROM octo_bookings`); n != 1 {
		t.Errorf("%d bookings stored by refused requests and one hold", n)
	}
}

// TestOctoTestMode: a test key's holds and bookings take no time, make no
// marketplace booking, and are gone a day later.
func TestOctoTestMode(t *testing.T) {
	t.Parallel()
	o := newOctoEnv(t, store.SQLite)
	start := o.freeStart(t, o.packageID)
	var a, b octoBooking
	o.reserve(t, o.test, o.packageID, start, nil).Expect(200).Decode(&a)
	o.reserve(t, o.test, o.packageID, start, nil).Expect(200).Decode(&b)
	if !a.TestMode || a.UUID == b.UUID {
		t.Fatalf("test holds: %+v %+v", a, b)
	}
	o.call(o.test, "POST", "/octo/bookings/"+a.UUID+"/confirm", map[string]any{"contact": map[string]any{"firstName": "T"}}).Expect(200)
	if n := o.count(t, `SELECT COUNT(*) FROM bookings WHERE tourist_id = $1`, o.reseller.id); n != 0 {
		t.Errorf("test bookings made %d marketplace bookings", n)
	}
	o.reserve(t, o.live, o.packageID, start, nil).Expect(200) // the time is still free
	// A test key sees the time a live hold took as sold out, and is
	// refused it as a live key is (the validator's SOLD_OUT scenario).
	for _, s := range o.starts(t, o.test, o.packageID) {
		if s.ID == start && (s.Available || s.Status != "SOLD_OUT") {
			t.Errorf("test key: the held start is %+v", s)
		}
	}
	octoErr(t, o.reserve(t, o.test, o.packageID, start, nil), "UNPROCESSABLE_ENTITY")
	octoErr(t, o.call(o.live, "GET", "/octo/bookings/"+a.UUID, nil), "INVALID_BOOKING_UUID")
	o.clock.Advance(25 * time.Hour)
	octoErr(t, o.call(o.test, "GET", "/octo/bookings/"+a.UUID, nil), "INVALID_BOOKING_UUID")
	n, err := o.store.PurgeOctoTestBookings(t.Context())
	if err != nil || n != 2 {
		t.Errorf("purged %d, %v", n, err)
	}
	if n := o.count(t, `SELECT COUNT(*) FROM octo_bookings WHERE test_mode = TRUE`); n != 0 {
		t.Errorf("%d test bookings left", n)
	}
}

// TestOctoRace: resellers reserving overlapping starts of two packages of
// one expert, and the expert accepting a REST booking at that time, all at
// once: at most one claim stands, and one does.
func TestOctoRace(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			o := newOctoEnv(t, engine)
			var second string
			if err := o.db.QueryRow(`SELECT id FROM packages WHERE expert_id = $1 AND id <> $2 AND listed = TRUE ORDER BY id LIMIT 1`,
				o.expertID, o.packageID).Scan(&second); err != nil {
				t.Fatal(err)
			}
			start := o.freeStart(t, o.packageID)
			// A start of the second package that overlaps start.
			at, _ := time.Parse(time.RFC3339, start)
			var overlapping string
			for _, s := range o.starts(t, o.live, second) {
				st, _ := time.Parse(time.RFC3339, s.ID)
				if s.Available && !st.Before(at) && st.Before(at.Add(time.Hour)) {
					overlapping = s.ID
					break
				}
			}
			if overlapping == "" {
				t.Fatalf("no start of %s overlaps %s", second, start)
			}
			rest := o.book(t, o.tourist, map[string]any{"packageId": o.packageID, "scheduledDate": start})
			keys := []string{o.live}
			for i := range 3 {
				u := o.register(t, fmt.Sprintf("racer%d@example.com", i), "TOURIST")
				keys = append(keys, o.apiKey(t, u, "octo:sell"))
			}
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key, pkg, st := keys[i%len(keys)], o.packageID, start
					if i%2 == 1 {
						pkg, st = second, overlapping
					}
					res := o.reserve(t, key, pkg, st, map[string]any{"resellerReference": fmt.Sprintf("R%d", i)})
					if res.Status != 200 && !strings.Contains(string(res.Body), "UNPROCESSABLE_ENTITY") {
						t.Errorf("reserve: %d %s", res.Status, res.Body)
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := o.Do("POST", "/api/v1/bookings/"+rest+"/accept", nil, bearer(o.expert.token)...)
				if res.Status != 200 && res.Status != 409 {
					t.Errorf("accept: %d %s", res.Status, res.Body)
				}
			}()
			wg.Wait()
			holds := o.count(t, `SELECT COUNT(*) FROM octo_bookings WHERE status = 'ON_HOLD'`)
			accepted := o.count(t, `SELECT COUNT(*) FROM bookings WHERE id = $1 AND status = 'CONFIRMED'`, rest)
			if holds+accepted != 1 {
				t.Errorf("%d holds and %d accepted bookings stand at one time", holds, accepted)
			}
		})
	}
}

// TestOctoIdempotencyKey: a reserve sent again with its Idempotency-Key
// answers the hold it placed as the hold is now, and sent at once from
// many places places one hold; a refusal is not kept, so a retry with the
// key may succeed; the key sent with another request, or with a key of
// the other mode, is refused.
func TestOctoIdempotencyKey(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			o := newOctoEnv(t, engine)
			start := o.freeStart(t, o.packageID)
			type answer struct{ UUID, Status string }
			reserve := func(key string, extra map[string]any) answer {
				t.Helper()
				var b octoBooking
				o.reserve(t, o.live, o.packageID, start, extra, "Idempotency-Key", key).Expect(200).Decode(&b)
				return answer{b.UUID, b.Status}
			}
			first := reserve("k-1", nil)
			if diff := cmp.Diff(answer{first.UUID, "ON_HOLD"}, reserve("k-1", nil)); diff != "" {
				t.Errorf("replay (-want +got):\n%s", diff)
			}
			reused := octoErr(t, o.reserve(t, o.live, o.packageID, start, map[string]any{"notes": "other"}, "Idempotency-Key", "k-1"), "BAD_REQUEST")
			if diff := cmp.Diff("The Idempotency-Key was already used with another request.", reused["errorMessage"]); diff != "" {
				t.Errorf("reused (-want +got):\n%s", diff)
			}
			octoErr(t, o.reserve(t, o.test, o.packageID, start, nil, "Idempotency-Key", "k-1"), "BAD_REQUEST")

			// Refused while the start is held: the retry after it is freed
			// places a hold.
			octoErr(t, o.reserve(t, o.live, o.packageID, start, nil, "Idempotency-Key", "k-2"), "UNPROCESSABLE_ENTITY")
			o.call(o.live, "POST", "/octo/bookings/"+first.UUID+"/cancel", nil).Expect(200)
			second := reserve("k-2", nil)
			if second.UUID == first.UUID || second.Status != "ON_HOLD" {
				t.Errorf("the retry of a refused reserve: %+v", second)
			}
			// The first key's answer is its hold as it is now.
			if diff := cmp.Diff(answer{first.UUID, "CANCELLED"}, reserve("k-1", nil)); diff != "" {
				t.Errorf("replay after a cancel (-want +got):\n%s", diff)
			}
			o.call(o.live, "POST", "/octo/bookings/"+second.UUID+"/cancel", nil).Expect(200)

			answers := make([]answer, 8)
			var wg sync.WaitGroup
			for i := range answers {
				wg.Go(func() {
					var b octoBooking
					res := o.reserve(t, o.live, o.packageID, start, map[string]any{"resellerReference": "SAME"}, "Idempotency-Key", "k-3")
					if res.Status != 200 {
						t.Errorf("concurrent reserve: %d %s", res.Status, res.Body)
						return
					}
					res.Decode(&b)
					answers[i] = answer{b.UUID, b.Status}
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			want := make([]answer, len(answers))
			for i := range want {
				want[i] = answer{answers[0].UUID, "ON_HOLD"}
			}
			if diff := cmp.Diff(want, answers); diff != "" {
				t.Errorf("concurrent reserves with one key (-want +got):\n%s", diff)
			}
			if n := o.count(t, `SELECT COUNT(*) FROM octo_bookings`); n != 3 {
				t.Errorf("%d holds stored, want 3", n)
			}
		})
	}
}

// TestOctoFieldErrors: the fields a reserve gets wrong are named in one
// sentence; a body that cannot be read names its field as it is.
func TestOctoFieldErrors(t *testing.T) {
	t.Parallel()
	o := newOctoEnv(t, store.SQLite)
	start := o.freeStart(t, o.packageID)
	for _, c := range []struct {
		extra map[string]any
		want  string
	}{
		{map[string]any{"contact": map[string]any{"country": strings.Repeat("c", 61)}, "resellerReference": strings.Repeat("r", 101)},
			"contact.country must be at most 60 characters; resellerReference must be at most 100 characters."},
		{map[string]any{"notes": "a\x00b"}, "notes must be valid UTF-8 text without NUL characters"},
	} {
		m := octoErr(t, o.reserve(t, o.live, o.packageID, start, c.extra), "BAD_REQUEST")
		if diff := cmp.Diff(c.want, m["errorMessage"]); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.extra, diff)
		}
	}
}
