package propertyhttp_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
)

// TestIntegratorJourney walks what an integrator does with the README and
// the OpenAPI document: sign up, get a test key, search Tokyo for two
// guests next month, read, quote, book, list, get and cancel.
func TestIntegratorJourney(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			d := e.signup(t)
			var me struct{ Developer property.Developer }
			e.Get("/portal/api/me", bearer(d.token)...).Expect(200).Decode(&me)
			if me.Developer.Email != d.email || me.Developer.ID != d.id {
				t.Fatalf("me: %+v", me.Developer)
			}
			var created struct {
				ID, Key, KeyPrefix, Mode string
				Scopes                   []string
			}
			e.Do("POST", "/portal/api/keys", map[string]any{"name": "journey", "mode": "test"}, bearer(d.token)...).Expect(201).Decode(&created)
			gotKey := map[string]any{"testPrefix": strings.HasPrefix(created.Key, "pk_test_"),
				"keyPrefixIsHead": len(created.Key) >= 12 && created.KeyPrefix == created.Key[:12], "mode": created.Mode, "scopes": len(created.Scopes)}
			wantKey := map[string]any{"testPrefix": true, "keyPrefixIsHead": true, "mode": "test", "scopes": len(property.Scopes)}
			if diff := cmp.Diff(wantKey, gotKey); diff != "" {
				t.Fatalf("created key (-want +got):\n%s", diff)
			}
			key := created.Key

			// Search Tokyo for two guests next month.
			checkIn, checkOut := day(10), day(13)
			var found struct {
				Data []property.PropertySummary
				Meta paging.Meta
			}
			q := url.Values{"city": {"tokyo"}, "checkIn": {checkIn.String()}, "checkOut": {checkOut.String()}, "guests": {"2"}, "sort": {"price"}}
			e.Get("/api/v1/properties?"+q.Encode(), xkey(key)...).Expect(200).Decode(&found)
			if found.Meta.Total < 3 || len(found.Data) != found.Meta.Total {
				t.Fatalf("Tokyo for two next month: %+v", found.Meta)
			}
			for i, p := range found.Data {
				if p.City != "Tokyo" || p.LowestTotal == nil || p.LowestTotal.Currency != "JPY" {
					t.Fatalf("result %+v", p)
				}
				if i > 0 && p.LowestTotal.Amount < found.Data[i-1].LowestTotal.Amount {
					t.Error("sort=price is not by lowestTotal")
				}
			}
			// Without the stay every Tokyo property is listed, lowestTotal null.
			var all struct {
				Data []property.PropertySummary
				Meta paging.Meta
			}
			e.Get("/api/v1/properties?city=TOK", bearer(key)...).Expect(200).Decode(&all)
			if all.Meta.Total < found.Meta.Total || all.Data[0].LowestTotal != nil {
				t.Errorf("Tokyo without a stay: %+v", all.Meta)
			}
			pick := found.Data[0]

			// Detail and availability.
			var p property.Property
			e.Get("/api/v1/properties/"+pick.ID, xkey(key)...).Expect(200).Decode(&p)
			gotDetail := map[string]any{"id": p.ID, "timezone": p.Timezone, "twoRoomTypes": len(p.RoomTypes) >= 2, "policySet": p.CancellationPolicy.Code != ""}
			wantDetail := map[string]any{"id": pick.ID, "timezone": "Asia/Tokyo", "twoRoomTypes": true, "policySet": true}
			if diff := cmp.Diff(wantDetail, gotDetail); diff != "" {
				t.Fatalf("detail (-want +got):\n%s", diff)
			}
			var a property.Availability
			e.Get("/api/v1/properties/"+pick.ID+"/availability?from="+checkIn.String()+"&to="+checkOut.String(), xkey(key)...).Expect(200).Decode(&a)
			if len(a.RoomTypes) != len(p.RoomTypes) {
				t.Fatalf("availability of %d room types, want %d", len(a.RoomTypes), len(p.RoomTypes))
			}
			// The room type that makes lowestTotal.
			var r room
			var nights []property.Night
			for i, ra := range a.RoomTypes {
				var sum int64
				ok := p.RoomTypes[i].MaxGuests >= 2
				for _, n := range ra.Nights {
					sum += n.Price.Amount
					ok = ok && !n.Closed && n.AvailableUnits > 0
				}
				if ok && sum == pick.LowestTotal.Amount {
					r = room{propertyID: pick.ID, roomTypeID: ra.RoomTypeID, name: ra.Name}
					nights = ra.Nights
					break
				}
			}
			if r.roomTypeID == "" {
				t.Fatalf("no room type of %s totals %d", pick.Name, pick.LowestTotal.Amount)
			}
			liveKey := e.key(t, d, "live")
			liveBefore := e.available(t, liveKey, r, checkIn)

			// Quote: it holds a unit of every night (of the test inventory).
			var quote property.Quote
			e.Do("POST", "/api/v1/quotes", stay(r, checkIn, 3, 2), xkey(key)...).Expect(201).Decode(&quote)
			gotQuote := map[string]any{"total": quote.Total, "nights": quote.Nights, "nightly": len(quote.Nightly), "test": quote.Test,
				"expiresAt": quote.ExpiresAt, "policy": quote.CancellationPolicy.Code}
			wantQuote := map[string]any{"total": *pick.LowestTotal, "nights": 3, "nightly": 3, "test": true,
				"expiresAt": e.clock.Now().Add(15 * time.Minute), "policy": p.CancellationPolicy.Code}
			if diff := cmp.Diff(wantQuote, gotQuote); diff != "" {
				t.Fatalf("quote (-want +got):\n%s", diff)
			}
			for i, n := range nights {
				if quote.Nightly[i].Date != n.Date || quote.Nightly[i].Price != n.Price {
					t.Errorf("nightly %d: %+v, calendar %+v", i, quote.Nightly[i], n)
				}
			}
			if got := e.available(t, key, r, checkIn); got != nights[0].AvailableUnits-1 {
				t.Errorf("after the quote the test inventory has %d, want %d", got, nights[0].AvailableUnits-1)
			}
			if got := e.available(t, liveKey, r, checkIn); got != liveBefore {
				t.Errorf("a test quote changed live availability: %d, was %d", got, liveBefore)
			}

			// Book from the quote.
			var b property.Booking
			e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": quote.ID, "guest": guest, "externalReference": "TRIP-42",
				"specialRequests": "Late arrival, around 23:00."}, xkey(key)...).Expect(201).Decode(&b)
			gotBooking := map[string]any{"status": b.Status, "test": b.Test, "quoteId": b.QuoteID, "total": b.Total, "nights": b.Nights,
				"email": b.Guest.Email, "country": b.Guest.Country, "feeSet": b.CancellationFee != nil,
				"externalReference": b.ExternalReference, "cancelledAtSet": b.CancelledAt != nil}
			wantBooking := map[string]any{"status": "CONFIRMED", "test": true, "quoteId": &quote.ID, "total": quote.Total, "nights": 3,
				"email": "mei.tan@example.com", "country": new("SG"), "feeSet": false,
				"externalReference": new("TRIP-42"), "cancelledAtSet": false}
			if diff := cmp.Diff(wantBooking, gotBooking); diff != "" {
				t.Fatalf("booking (-want +got):\n%s", diff)
			}
			if got := e.available(t, key, r, checkIn); got != nights[0].AvailableUnits-1 {
				t.Errorf("after booking the quote: %d available, want %d", got, nights[0].AvailableUnits-1)
			}
			e.Do("POST", "/api/v1/bookings", map[string]any{"quoteId": quote.ID, "guest": guest}, xkey(key)...).Expect(422)

			// A second, direct booking to list with filters.
			e.clock.Advance(time.Minute)
			var direct property.Booking
			e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, day(20), 2, 1), map[string]any{"guest": guest}), bearer(key)...).Expect(201).Decode(&direct)
			if direct.QuoteID != nil || direct.Nights != 2 {
				t.Fatalf("direct booking: %+v", direct)
			}
			list := func(q string) []property.Booking {
				t.Helper()
				var res struct {
					Data []property.Booking
					Meta paging.Meta
				}
				e.Get("/api/v1/bookings?"+q, xkey(key)...).Expect(200).Decode(&res)
				if len(res.Data) > res.Meta.Total || (res.Meta.Page == 1 && res.Meta.Total != len(res.Data)) {
					t.Fatalf("%s: meta %+v for %d", q, res.Meta, len(res.Data))
				}
				return res.Data
			}
			ids := func(bs []property.Booking) []string {
				var out []string
				for _, b := range bs {
					out = append(out, b.ID)
				}
				return out
			}
			for q, want := range map[string][]string{
				"":                                  {direct.ID, b.ID},
				"sort=checkIn&order=asc":            {b.ID, direct.ID},
				"status=CONFIRMED":                  {direct.ID, b.ID},
				"status=CANCELLED":                  nil,
				"propertyId=" + r.propertyID:        {direct.ID, b.ID},
				"checkInFrom=2026-12-11":            {direct.ID},
				"checkInTo=2026-12-10":              {b.ID},
				"externalReference=TRIP-42":         {b.ID},
				"updatedSince=2026-11-22T09:00:30Z": {direct.ID},
				"pageSize=1&page=2":                 {b.ID},
			} {
				if got := ids(list(q)); strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("bookings?%s = %v, want %v", q, got, want)
				}
			}
			var got property.Booking
			e.Get("/api/v1/bookings/"+b.ID, xkey(key)...).Expect(200).Decode(&got)
			if got.ID != b.ID || got.Total != b.Total {
				t.Errorf("get: %+v", got)
			}

			// Cancel: the fee of the policy now (far ahead of check-in, the
			// free window of every policy but non-refundable), nights back.
			var cancelled property.Booking
			e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(key)...).Expect(200).Decode(&cancelled)
			wantFee := property.Money{Currency: "JPY"}
			if p.CancellationPolicy.Code == property.PolicyNonRefundable {
				wantFee = b.Total
			}
			gotCancelled := map[string]any{"status": cancelled.Status, "fee": cancelled.CancellationFee,
				"cancelledAtSet": cancelled.CancelledAt != nil, "updatedAt": cancelled.UpdatedAt}
			wantCancelled := map[string]any{"status": "CANCELLED", "fee": &wantFee, "cancelledAtSet": true, "updatedAt": e.clock.Now()}
			if diff := cmp.Diff(wantCancelled, gotCancelled); diff != "" {
				t.Fatalf("cancelled (-want +got):\n%s", diff)
			}
			if got := e.available(t, key, r, checkIn); got != nights[0].AvailableUnits {
				t.Errorf("after the cancel: %d available, want %d", got, nights[0].AvailableUnits)
			}
			if res := e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(key)...).Expect(422); res.ErrorCode() != "INVALID_STATE" {
				t.Errorf("second cancel: %s", res.Body)
			}
			if ids := ids(list("status=CANCELLED")); len(ids) != 1 || ids[0] != b.ID {
				t.Errorf("cancelled list: %v", ids)
			}

			// Another account, and the live key of the same one, see none of it.
			other := e.key(t, e.signup(t), "test")
			e.Get("/api/v1/bookings/"+b.ID, xkey(other)...).Expect(404)
			e.Do("POST", "/api/v1/bookings/"+direct.ID+"/cancel", nil, xkey(other)...).Expect(404)
			e.Get("/api/v1/bookings/"+b.ID, xkey(liveKey)...).Expect(404)
			var none struct{ Meta paging.Meta }
			e.Get("/api/v1/bookings", xkey(liveKey)...).Expect(200).Decode(&none)
			e.Get("/api/v1/bookings", xkey(other)...).Expect(200)
			if none.Meta.Total != 0 {
				t.Errorf("the live key lists %d test bookings", none.Meta.Total)
			}
			e.Get("/api/v1/bookings/not-a-uuid", xkey(key)...).Expect(404)
			e.Get("/api/v1/properties/00000000-0000-7000-8000-000000000000", xkey(key)...).Expect(404)
			e.Get("/api/v1/properties/"+pick.ID+"/availability?roomTypeId=00000000-0000-7000-8000-000000000000", xkey(key)...).Expect(404)
		})
	}
}

func mergeMaps(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestCancellationFees cancels under each policy inside its penalty window.
func TestCancellationFees(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	key := e.key(t, e.signup(t), "live")
	r := e.tokyoDouble(t)
	// Check-in tomorrow at 15:00 in Tokyo is 21 hours away.
	tomorrow := property.NewDate(2026, 11, 23)
	e.setNight(t, r.roomTypeID, tomorrow.AddDays(1), "price = 20000")
	e.setNight(t, r.roomTypeID, tomorrow, "price = 18000")
	for _, c := range []struct {
		policy string
		fee    int64
	}{
		{property.PolicyFlexible, 18000},      // the first night
		{property.PolicyModerate, 19000},      // 50% of 38000
		{property.PolicyStrict, 38000},        // within 7 days: all
		{property.PolicyNonRefundable, 38000}, // always all
	} {
		e.exec(t, `UPDATE properties SET cancellation_policy = $1 WHERE id = $2`, c.policy, r.propertyID)
		var b property.Booking
		e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, tomorrow, 2, 2), map[string]any{"guest": guest}), xkey(key)...).Expect(201).Decode(&b)
		if b.CancellationPolicy.Code != c.policy || b.Total.Amount != 38000 {
			t.Fatalf("booked under %s: %+v", c.policy, b)
		}
		if c.policy != property.PolicyNonRefundable && (b.FreeCancellationUntil == nil || !b.FreeCancellationUntil.Before(e.clock.Now())) {
			t.Errorf("%s: freeCancellationUntil %v should be past", c.policy, b.FreeCancellationUntil)
		}
		// The policy booked under stays, whatever the property changes to.
		e.exec(t, `UPDATE properties SET cancellation_policy = 'flexible' WHERE id = $1`, r.propertyID)
		e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(key)...).Expect(200).Decode(&b)
		if b.CancellationFee == nil || b.CancellationFee.Amount != c.fee || b.CancellationFee.Currency != "JPY" {
			t.Errorf("%s: fee %+v, want %d", c.policy, b.CancellationFee, c.fee)
		}
	}
	// After the stay, a booking can no longer be cancelled.
	var b property.Booking
	e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, tomorrow, 1, 2), map[string]any{"guest": guest}), xkey(key)...).Expect(201).Decode(&b)
	e.clock.Advance(3 * 24 * time.Hour)
	e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(key)...).Expect(422)
}
