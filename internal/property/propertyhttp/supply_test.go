package propertyhttp_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
)

// newProperty is the body of a property a host creates.
func newProperty(name string) map[string]any {
	return map[string]any{
		"name": name, "type": "guesthouse", "description": "Six rooms by the canal.", "address": "1-2-3 Asakusa, Taito",
		"city": "Tokyo", "countryCode": "JP", "latitude": 35.71, "longitude": 139.79, "timezone": "Asia/Tokyo", "currency": "JPY",
		"checkInTime": "15:00", "checkOutTime": "10:00", "amenities": []string{"wifi", "kitchen"},
		"images": []string{publicURL + "/media/sample/properties/a.jpg"}, "licenseNumber": "M130012345", "cancellationPolicy": "moderate",
	}
}

var newRoomType = map[string]any{"name": "Tatami Twin", "description": "Futons on tatami.", "maxGuests": 2,
	"beds": []map[string]any{{"type": "futon", "count": 2}}, "totalUnits": 4, "basePrice": map[string]any{"amount": 12000, "currency": "JPY"}}

// hostRoom creates an active property of the key's account with one room
// type, whose nights from day(1) to day(31) offer units units at 15000.
func (e *env) hostRoom(t *testing.T, key string, units int) room {
	t.Helper()
	var p property.Property
	e.Do("POST", "/api/v1/properties", newProperty("Canal House"), xkey(key)...).Expect(201).Decode(&p)
	var rt property.RoomType
	e.Do("POST", "/api/v1/properties/"+p.ID+"/room-types", newRoomType, xkey(key)...).Expect(201).Decode(&rt)
	e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"status": "active"}, xkey(key)...).Expect(200)
	e.Do("PATCH", "/api/v1/properties/"+p.ID+"/calendar", calendar(map[string]any{"roomTypeId": rt.ID, "from": day(1).String(),
		"to": day(31).String(), "units": units, "price": map[string]any{"amount": 15000}}), xkey(key)...).Expect(200)
	return room{propertyID: p.ID, roomTypeID: rt.ID, name: rt.Name, units: units, maxGuests: 2}
}

func calendar(updates ...map[string]any) map[string]any { return map[string]any{"updates": updates} }

// nights returns the room type's nights as the key sees them.
func (e *env) nights(t *testing.T, key string, r room, from, to property.Date) []property.Night {
	t.Helper()
	var a property.Availability
	e.Get("/api/v1/properties/"+r.propertyID+"/availability?"+url.Values{
		"from": {from.String()}, "to": {to.String()}, "roomTypeId": {r.roomTypeID},
	}.Encode(), xkey(key)...).Expect(200).Decode(&a)
	return a.RoomTypes[0].Nights
}

// TestPropertyContent: a host creates a draft, seen by its own keys only;
// it becomes active only with a room type, then everyone sees it; PATCH
// changes only the fields sent and null clears the licence; another
// account and the owner's key of the other mode get 404; each change is
// recorded as a property.updated event with its audience.
func TestPropertyContent(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			host, other := e.signup(t), e.signup(t)
			key, hostTest := e.key(t, host, "live"), e.key(t, host, "test")
			otherKey, readOnly := e.key(t, other, "live"), e.key(t, host, "live", "properties:read")

			var p property.Property
			e.Do("POST", "/api/v1/properties", newProperty("Canal House"), xkey(key)...).Expect(201).Decode(&p)
			var firstImage string
			if len(p.Images) > 0 {
				firstImage = p.Images[0]
			}
			gotCreated := map[string]any{"status": p.Status, "name": p.Name, "roomTypes": len(p.RoomTypes), "policy": p.CancellationPolicy.Code,
				"firstImage": firstImage, "licenseSet": p.LicenseNumber != nil}
			wantCreated := map[string]any{"status": "draft", "name": "Canal House", "roomTypes": 0, "policy": "moderate",
				"firstImage": publicURL + "/media/sample/properties/a.jpg", "licenseSet": true}
			if diff := cmp.Diff(wantCreated, gotCreated); diff != "" {
				t.Fatalf("created (-want +got):\n%s", diff)
			}
			var stored string
			if err := e.db.QueryRow(`SELECT images FROM properties WHERE id = $1`, p.ID).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stored, `"/media/sample/properties/a.jpg"`) {
				t.Fatalf("stored images %s: want paths", stored)
			}
			e.Get("/api/v1/properties/"+p.ID, xkey(key)...).Expect(200)
			e.Get("/api/v1/properties/"+p.ID, xkey(otherKey)...).Expect(404)
			e.Get("/api/v1/properties/"+p.ID, xkey(hostTest)...).Expect(404)
			e.Get("/api/v1/properties/"+p.ID+"/availability", xkey(otherKey)...).Expect(404)
			var mine struct {
				Data []property.PropertySummary
				Meta paging.Meta
			}
			e.Get("/api/v1/properties?mine=true", xkey(key)...).Expect(200).Decode(&mine)
			if mine.Meta.Total != 1 || mine.Data[0].ID != p.ID || mine.Data[0].Status != "draft" {
				t.Fatalf("mine: %+v", mine)
			}
			var all struct{ Meta paging.Meta }
			e.Get("/api/v1/properties?city=tokyo&pageSize=100", xkey(otherKey)...).Expect(200).Decode(&all)
			e.Get("/api/v1/properties?mine=true", xkey(otherKey)...).Expect(200).Decode(&mine)
			if mine.Meta.Total != 0 {
				t.Fatalf("another account's mine: %+v", mine)
			}

			// Not active without a room type; writes need the scope and the owner.
			if res := e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"status": "active"}, xkey(key)...).Expect(400); res.ErrorDetails()["status"] == nil {
				t.Fatalf("activate without room type: %s", res.Body)
			}
			e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"name": "Stolen"}, xkey(otherKey)...).Expect(404)
			e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"name": "Stolen"}, xkey(hostTest)...).Expect(404)
			if res := e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"name": "Stolen"}, xkey(readOnly)...).Expect(403); res.ErrorCode() != "INSUFFICIENT_SCOPE" {
				t.Fatal(res.ErrorCode())
			}
			e.Do("POST", "/api/v1/properties", mergeMaps(newProperty("x"), map[string]any{"status": "active"}), xkey(key)...).Expect(400)
			e.Do("POST", "/api/v1/properties", mergeMaps(newProperty("x"), map[string]any{"images": []string{"https://elsewhere.example/a.jpg"}}), xkey(key)...).Expect(400)
			bad := newProperty("x")
			delete(bad, "city")
			if res := e.Do("POST", "/api/v1/properties", bad, xkey(key)...).Expect(400); res.ErrorDetails()["city"] == nil {
				t.Fatalf("missing city: %s", res.Body)
			}

			var rt property.RoomType
			e.Do("POST", "/api/v1/properties/"+p.ID+"/room-types", newRoomType, xkey(key)...).Expect(201).Decode(&rt)
			if rt.TotalUnits != 4 || rt.BasePrice != (property.Money{Amount: 12000, Currency: "JPY"}) || rt.Beds[0].Type != "futon" {
				t.Fatalf("room type: %+v", rt)
			}
			e.Do("POST", "/api/v1/properties/"+p.ID+"/room-types", mergeMaps(newRoomType, map[string]any{"basePrice": map[string]any{"amount": 1, "currency": "USD"}}),
				xkey(key)...).Expect(400)
			var changed property.RoomType
			e.Do("PATCH", "/api/v1/properties/"+p.ID+"/room-types/"+rt.ID, map[string]any{"name": "Tatami Triple", "maxGuests": 3}, xkey(key)...).Expect(200).Decode(&changed)
			if changed.Name != "Tatami Triple" || changed.MaxGuests != 3 || changed.TotalUnits != 4 {
				t.Fatalf("changed room type: %+v", changed)
			}

			var active property.Property
			e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"status": "active", "licenseNumber": nil, "description": "Seven rooms."},
				xkey(key)...).Expect(200).Decode(&active)
			gotActive := map[string]any{"status": active.Status, "licenseSet": active.LicenseNumber != nil, "description": active.Description,
				"name": active.Name, "city": active.City, "roomTypes": len(active.RoomTypes)}
			wantActive := map[string]any{"status": "active", "licenseSet": false, "description": "Seven rooms.",
				"name": "Canal House", "city": "Tokyo", "roomTypes": 1}
			if diff := cmp.Diff(wantActive, gotActive); diff != "" {
				t.Fatalf("activated (-want +got):\n%s", diff)
			}
			e.Get("/api/v1/properties/"+p.ID, xkey(otherKey)...).Expect(200)
			var after struct{ Meta paging.Meta }
			e.Get("/api/v1/properties?city=tokyo&pageSize=100", xkey(otherKey)...).Expect(200).Decode(&after)
			if after.Meta.Total != all.Meta.Total+1 {
				t.Fatalf("search: %d then %d properties", all.Meta.Total, after.Meta.Total)
			}
			if res := e.Do("PATCH", "/api/v1/properties/"+p.ID, map[string]any{"currency": "USD"}, xkey(key)...); res.Status != 400 {
				t.Fatalf("currency change with room types: %d", res.Status)
			}

			// Events: every change, with the owner's audience, and everyone's
			// once the property is active.
			rows, err := e.db.Query(`SELECT e.type, e.data, (SELECT COUNT(*) FROM event_audience a WHERE a.seq = e.seq AND a.audience = '*')
				FROM events e ORDER BY e.seq`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var types []string
			var lastPublic int
			var lastData string
			for rows.Next() {
				var typ, data string
				var public int
				if err := rows.Scan(&typ, &data, &public); err != nil {
					t.Fatal(err)
				}
				types = append(types, typ)
				lastPublic, lastData = public, data
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			var firstType string
			if len(types) > 0 {
				firstType = types[0]
			}
			gotEvents := map[string]any{"count": len(types), "first": firstType, "lastPublic": lastPublic,
				"lastActive": strings.Contains(lastData, `"status":"active"`)}
			wantEvents := map[string]any{"count": 4, "first": "property.updated", "lastPublic": 1, "lastActive": true}
			if diff := cmp.Diff(wantEvents, gotEvents); diff != "" {
				t.Fatalf("events %v (-want +got):\n%s\nlast: %s", types, diff, lastData)
			}
			var ownerAudience int
			if err := e.db.QueryRow(`SELECT COUNT(*) FROM event_audience WHERE audience = $1`, "account:"+host.id+":live").Scan(&ownerAudience); err != nil {
				t.Fatal(err)
			}
			if ownerAudience != 4 {
				t.Fatalf("%d events for the owner", ownerAudience)
			}
		})
	}
}

// TestCalendarPush: the calendar sets units, prices and restrictions over
// ranges and weekdays, a later update winning, and the availability
// endpoint shows it; a test key manages test properties only.
func TestCalendarPush(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	host := e.signup(t)
	key, test := e.key(t, host, "live"), e.key(t, host, "test")
	r := e.hostRoom(t, key, 3)
	var res property.CalendarResult
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(1).String(), "to": day(8).String(), "price": map[string]any{"amount": 20000, "currency": "JPY"}},
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(1).String(), "to": day(8).String(), "daysOfWeek": []string{"fri", "sat"},
			"price": map[string]any{"amount": 30000}, "minStay": 2, "closedToArrival": true},
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(7).String(), "to": day(8).String(), "units": 1, "closed": true},
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(40).String(), "to": day(42).String(), "units": 2},
	), xkey(key)...).Expect(200).Decode(&res)
	if res.UpdatedNights != 9 {
		t.Fatalf("updatedNights %d, want 9", res.UpdatedNights)
	}
	ns := e.nights(t, key, r, day(1), day(8))
	for _, n := range ns {
		weekend := n.Date.Weekday().String() == "Friday" || n.Date.Weekday().String() == "Saturday"
		wantPrice, wantMin := int64(20000), 1
		if weekend {
			wantPrice, wantMin = 30000, 2
		}
		if n.Price.Amount != wantPrice || n.MinStay != wantMin || n.ClosedToArrival != weekend {
			t.Errorf("%s: %+v", n.Date, n)
		}
	}
	if n := ns[6]; !n.Closed || n.AvailableUnits != 1 {
		t.Errorf("day 7: %+v", n)
	}
	// A night set for the first time takes the room type's base price.
	if ns := e.nights(t, key, r, day(40), day(41)); ns[0].AvailableUnits != 2 || ns[0].Price.Amount != 12000 || ns[0].Closed {
		t.Errorf("first set night: %+v", ns[0])
	}
	// The test key does not manage the live property.
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(map[string]any{"roomTypeId": r.roomTypeID,
		"from": day(1).String(), "to": day(2).String(), "units": 0}), xkey(test)...).Expect(404)
	// A test property is the test key's, and live keys do not see it.
	tr := e.hostRoom(t, test, 2)
	e.Get("/api/v1/properties/"+tr.propertyID, xkey(key)...).Expect(404)
	if n := e.available(t, test, tr, day(3)); n != 2 {
		t.Fatalf("test property: %d units", n)
	}

	// Validation, each naming the field; nothing changes.
	too := make([]map[string]any, property.MaxCalendarUpdates+1)
	for i := range too {
		too[i] = map[string]any{"roomTypeId": r.roomTypeID, "from": day(1).String(), "to": day(2).String(), "units": 1}
	}
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(too...), xkey(key)...).Expect(400)
	for field, u := range map[string]map[string]any{
		"updates[0].from":           {"from": "2026-11-01", "to": day(2).String(), "units": 1},
		"updates[0].to":             {"from": day(1).String(), "to": "2029-01-01", "units": 1},
		"updates[0].daysOfWeek":     {"from": day(1).String(), "to": day(2).String(), "units": 1, "daysOfWeek": []string{"funday"}},
		"updates[0].units":          {"from": day(1).String(), "to": day(2).String(), "units": -1},
		"updates[0].price.currency": {"from": day(1).String(), "to": day(2).String(), "price": map[string]any{"amount": 1, "currency": "USD"}},
		"updates[0]":                {"from": day(1).String(), "to": day(2).String()},
	} {
		u["roomTypeId"] = r.roomTypeID
		res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(u), xkey(key)...).Expect(400)
		if res.ErrorDetails()[field] == nil {
			t.Errorf("%s: %s", field, res.Body)
		}
	}
	unknown := map[string]any{"roomTypeId": tr.roomTypeID, "from": day(1).String(), "to": day(2).String(), "units": 1}
	if res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(unknown), xkey(key)...).Expect(400); res.ErrorDetails()["updates[0].roomTypeId"] == nil {
		t.Errorf("another property's room type: %s", res.Body)
	}
	if n := e.available(t, key, r, day(1)); n != 3 {
		t.Fatalf("refused pushes changed the calendar: %d units", n)
	}

	// Idempotency-Key: the same push replays; the events are not doubled.
	push := calendar(map[string]any{"roomTypeId": r.roomTypeID, "from": day(2).String(), "to": day(4).String(), "units": 2})
	idem := append(xkey(key), "Idempotency-Key", "push-1")
	var before int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM events WHERE type = 'availability.updated'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", push, idem...).Expect(200)
	if res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", push, idem...).Expect(200); res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("not replayed")
	}
	var after int
	var data string
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM events WHERE type = 'availability.updated'`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if err := e.db.QueryRow(`SELECT data FROM events WHERE type = 'availability.updated' ORDER BY seq DESC LIMIT 1`).Scan(&data); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		PropertyID  string   `json:"propertyId"`
		RoomTypeIDs []string `json:"roomTypeIds"`
		From, To    string
	}
	json.Unmarshal([]byte(data), &ev)
	got := map[string]any{"events": after, "propertyId": ev.PropertyID, "roomTypeIds": len(ev.RoomTypeIDs), "from": ev.From, "to": ev.To}
	want := map[string]any{"events": before + 1, "propertyId": r.propertyID, "roomTypeIds": 1, "from": day(2).String(), "to": day(4).String()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("event (-want +got):\n%s\n%s", diff, data)
	}
}

// TestInventoryConflict: units below what is booked and held answer 409
// INVENTORY_CONFLICT with the night and its counts, and change nothing;
// a room type with bookings to come cannot be deleted.
func TestInventoryConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	host := e.signup(t)
	key := e.key(t, host, "live")
	r := e.hostRoom(t, key, 2)
	guestKey := e.key(t, e.signup(t), "live")
	var b property.Booking
	e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, day(10), 1, 2), map[string]any{"guest": guest}), xkey(guestKey)...).Expect(201).Decode(&b)
	e.Do("POST", "/api/v1/quotes", stay(r, day(10), 1, 2), xkey(guestKey)...).Expect(201)

	res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(1).String(), "to": day(20).String(), "price": map[string]any{"amount": 99}},
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(9).String(), "to": day(12).String(), "units": 1},
	), xkey(key)...).Expect(409)
	if res.ErrorCode() != "INVENTORY_CONFLICT" {
		t.Fatalf("%s", res.Body)
	}
	conflicts, _ := res.ErrorDetails()["conflicts"].([]any)
	if len(conflicts) != 1 {
		t.Fatalf("conflicts: %s", res.Body)
	}
	c := conflicts[0].(map[string]any)
	gotConflict := map[string]any{"date": c["date"], "units": c["units"], "booked": c["booked"], "held": c["held"], "roomTypeId": c["roomTypeId"]}
	wantConflict := map[string]any{"date": day(10).String(), "units": 1.0, "booked": 1.0, "held": 1.0, "roomTypeId": r.roomTypeID}
	if diff := cmp.Diff(wantConflict, gotConflict); diff != "" {
		t.Fatalf("conflict (-want +got):\n%s", diff)
	}
	if ns := e.nights(t, key, r, day(9), day(11)); ns[0].Price.Amount != 15000 || ns[0].AvailableUnits != 2 || ns[1].AvailableUnits != 0 {
		t.Fatalf("the refused push changed the calendar: %+v", ns)
	}
	// Exactly what is booked and held: fine.
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(10).String(), "to": day(11).String(), "units": 2}), xkey(key)...).Expect(200)
	// Once the hold has expired it no longer counts.
	e.clock.Advance(16 * 60 * 1e9)
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(
		map[string]any{"roomTypeId": r.roomTypeID, "from": day(10).String(), "to": day(11).String(), "units": 1}), xkey(key)...).Expect(200)

	del := "/api/v1/properties/" + r.propertyID + "/room-types/" + r.roomTypeID
	if res := e.Do("DELETE", del, nil, xkey(key)...).Expect(409); res.ErrorCode() != "CONFLICT" {
		t.Fatal(res.ErrorCode())
	}
	e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(guestKey)...).Expect(200)
	// The last room type of an active property stays until it is inactive.
	e.Do("DELETE", del, nil, xkey(key)...).Expect(409)
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID, map[string]any{"status": "inactive"}, xkey(key)...).Expect(200)
	e.Get("/api/v1/properties/"+r.propertyID, xkey(guestKey)...).Expect(404)
	e.Do("DELETE", del, nil, xkey(key)...).Expect(204)
	var p property.Property
	e.Get("/api/v1/properties/"+r.propertyID, xkey(key)...).Expect(200).Decode(&p)
	if len(p.RoomTypes) != 0 {
		t.Fatalf("room types after delete: %+v", p.RoomTypes)
	}
	e.Get("/api/v1/bookings/"+b.ID, xkey(guestKey)...).Expect(200)
	e.Do("DELETE", del, nil, xkey(key)...).Expect(404)
}

// TestPushBookRace: hosts cutting units and guests booking the same last
// units at once never oversell, on every engine: each push either applies
// (and then what is sold fits its units) or answers INVENTORY_CONFLICT,
// and the counters always fit the units.
func TestPushBookRace(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newEnv(t, options{}, engine)
			host := e.signup(t)
			key := e.key(t, host, "live")
			guestKey := e.key(t, e.signup(t), "live")
			r := e.hostRoom(t, key, 4)
			const n = 24
			night := day(15)
			got := parallel(n, func(i int) int {
				if i%2 == 0 {
					units := 2 + i%5 // 2..6 units: cuts below the sales fail
					res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(map[string]any{"roomTypeId": r.roomTypeID,
						"from": night.AddDays(-1).String(), "to": night.AddDays(2).String(), "units": units}), xkey(key)...)
					if res.Status == 409 && res.ErrorCode() != "INVENTORY_CONFLICT" {
						t.Errorf("push: %s", res.Body)
					}
					return 1000 + res.Status
				}
				res := e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, night, 1, 2), map[string]any{"guest": guest}), xkey(guestKey)...)
				if res.Status == 409 && res.ErrorCode() != "UNAVAILABLE" {
					t.Errorf("booking: %s", res.Body)
				}
				return res.Status
			})
			gotStatuses := map[string]any{"someBooked": got[201] != 0, "somePushed": got[1200] != 0,
				"bookings": got[201] + got[409], "pushes": got[1200] + got[1409]}
			wantStatuses := map[string]any{"someBooked": true, "somePushed": true, "bookings": n / 2, "pushes": n / 2}
			if diff := cmp.Diff(wantStatuses, gotStatuses); diff != "" {
				t.Fatalf("statuses %v (-want +got):\n%s", got, diff)
			}
			var sold, held, total, confirmed int
			if err := e.db.QueryRow(`SELECT sold, held, total_units FROM calendar WHERE room_type_id = $1 AND night = $2`, r.roomTypeID, night).Scan(&sold, &held, &total); err != nil {
				t.Fatal(err)
			}
			if err := e.db.QueryRow(`SELECT COUNT(*) FROM bookings WHERE room_type_id = $1 AND status = 'CONFIRMED'`, r.roomTypeID).Scan(&confirmed); err != nil {
				t.Fatal(err)
			}
			if sold != confirmed || sold+held > total || confirmed != got[201] {
				t.Fatalf("sold %d held %d of %d units; %d confirmed, %d created", sold, held, total, confirmed, got[201])
			}
			if a := e.available(t, guestKey, r, night); a != total-sold {
				t.Fatalf("available %d, want %d", a, total-sold)
			}
			// The latest push that applied set the units; a cut below the
			// sales now is refused.
			if sold > 0 {
				e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(map[string]any{"roomTypeId": r.roomTypeID,
					"from": night.String(), "to": night.AddDays(1).String(), "units": sold - 1}), xkey(key)...).Expect(409)
			}
			t.Logf("%s: %v; sold %d of %d", engine, got, sold, total)
		})
	}
}

// TestCalendarBounds: the whole of a 730-day-ahead push of a room type
// fits one request, and nights after it are refused.
func TestCalendarBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	key := e.key(t, e.signup(t), "live")
	r := e.hostRoom(t, key, 1)
	today := property.NewDate(2026, 11, 22)
	var res property.CalendarResult
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(map[string]any{"roomTypeId": r.roomTypeID,
		"from": today.String(), "to": today.AddDays(property.MaxCalendarAhead + 1).String(), "units": 1}), xkey(key)...).Expect(200).Decode(&res)
	if res.UpdatedNights != property.MaxCalendarAhead+1 {
		t.Fatalf("updatedNights %d", res.UpdatedNights)
	}
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", calendar(map[string]any{"roomTypeId": r.roomTypeID,
		"from": today.String(), "to": today.AddDays(property.MaxCalendarAhead + 2).String(), "units": 1}), xkey(key)...).Expect(400)
}

// TestPortalProperties: the portal's Properties page reads and edits the
// signed-in developer's own properties of the mode asked for.
func TestPortalProperties(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	host, other := e.signup(t), e.signup(t)
	r := e.hostRoom(t, e.key(t, host, "live"), 3)
	var mine struct {
		Data []property.PropertySummary
		Meta paging.Meta
	}
	e.Get("/portal/api/properties", bearer(host.token)...).Expect(200).Decode(&mine)
	if mine.Meta.Total != 1 || mine.Data[0].ID != r.propertyID {
		t.Fatalf("mine: %+v", mine)
	}
	e.Get("/portal/api/properties?mode=test", bearer(host.token)...).Expect(200).Decode(&mine)
	if mine.Meta.Total != 0 {
		t.Fatalf("test mode: %+v", mine)
	}
	e.Get("/portal/api/properties?mode=sandbox", bearer(host.token)...).Expect(400)
	push := calendar(map[string]any{"roomTypeId": r.roomTypeID, "from": day(5).String(), "to": day(7).String(), "units": 1, "closedToArrival": true})
	e.Do("PATCH", "/portal/api/properties/"+r.propertyID+"/calendar", push, bearer(other.token)...).Expect(404)
	e.Get("/portal/api/properties/"+r.propertyID+"/availability", bearer(other.token)...).Expect(404)
	e.Do("PATCH", "/portal/api/properties/"+r.propertyID+"/calendar", push, bearer(host.token)...).Expect(200)
	var a property.Availability
	e.Get("/portal/api/properties/"+r.propertyID+"/availability?from="+day(5).String()+"&to="+day(6).String(), bearer(host.token)...).Expect(200).Decode(&a)
	if n := a.RoomTypes[0].Nights[0]; n.AvailableUnits != 1 || !n.ClosedToArrival {
		t.Fatalf("night: %+v", n)
	}
}

// TestCalendarBodyLimit: a push of the most updates allowed, each setting
// every field, is more than the 64 KiB other bodies get; the calendar
// routes take it (with and without Idempotency-Key, which reads the body
// first), one more update is a 400 naming updates, and a body over the
// calendar's own limit is a 413 that changes nothing. Other routes keep
// 64 KiB.
func TestCalendarBodyLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	host := e.signup(t)
	key := e.key(t, host, "live")
	r := e.hostRoom(t, key, 3)
	full := func(n, from int) map[string]any {
		updates := make([]map[string]any, n)
		for i := range updates {
			night := day(1).AddDays(from + i)
			updates[i] = map[string]any{"roomTypeId": r.roomTypeID, "from": night.String(), "to": night.AddDays(1).String(),
				"daysOfWeek": []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, "units": i % 5,
				"price": map[string]any{"amount": 10000 + i, "currency": "JPY"}, "minStay": 1 + i%3,
				"closed": i%7 == 0, "closedToArrival": i%2 == 0, "closedToDeparture": i%3 == 0}
		}
		return calendar(updates...)
	}
	body, _ := json.Marshal(full(property.MaxCalendarUpdates, 0))
	if len(body) <= 64<<10 {
		t.Fatalf("the push is %d bytes: not over the general limit, so it proves nothing", len(body))
	}
	check := func(offset int) {
		t.Helper()
		for _, window := range [][2]int{{0, 300}, {300, property.MaxCalendarUpdates}} {
			ns := e.nights(t, key, r, day(1).AddDays(window[0]), day(1).AddDays(window[1]))
			for j, n := range ns {
				i := window[0] + j
				got := map[string]any{"units": n.AvailableUnits, "price": n.Price.Amount, "minStay": n.MinStay, "closed": n.Closed,
					"closedToArrival": n.ClosedToArrival, "closedToDeparture": n.ClosedToDeparture}
				want := map[string]any{"units": i % 5, "price": int64(10000 + i + offset), "minStay": 1 + i%3, "closed": i%7 == 0,
					"closedToArrival": i%2 == 0, "closedToDeparture": i%3 == 0}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("night %d (-want +got):\n%s", i, diff)
				}
			}
		}
	}
	var res property.CalendarResult
	e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", body, append(xkey(key), "Idempotency-Key", "big-push")...).Expect(200).Decode(&res)
	if res.UpdatedNights != property.MaxCalendarUpdates {
		t.Fatalf("updatedNights %d", res.UpdatedNights)
	}
	check(0)
	// The portal route, without a key: Decode reads the body.
	portal := full(property.MaxCalendarUpdates, 0)
	for _, u := range portal["updates"].([]map[string]any) {
		u["price"].(map[string]any)["amount"] = u["price"].(map[string]any)["amount"].(int) + 1
	}
	e.Do("PATCH", "/portal/api/properties/"+r.propertyID+"/calendar", portal, bearer(host.token)...).Expect(200).Decode(&res)
	if res.UpdatedNights != property.MaxCalendarUpdates {
		t.Fatalf("portal updatedNights %d", res.UpdatedNights)
	}
	check(1)

	if res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", full(property.MaxCalendarUpdates+1, 0), xkey(key)...).Expect(400); res.ErrorDetails()["updates"] == nil {
		t.Fatalf("501 updates: %s", res.Body)
	}
	huge := `{"updates": [` + strings.Repeat(" ", 512<<10) + `]}`
	for _, h := range [][]string{xkey(key), append(xkey(key), "Idempotency-Key", "huge-push")} {
		if res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID+"/calendar", huge, h...).Expect(413); res.ErrorCode() != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("over the limit: %s", res.Body)
		}
	}
	if res := e.Do("PATCH", "/portal/api/properties/"+r.propertyID+"/calendar", huge, bearer(host.token)...).Expect(413); res.ErrorCode() != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("portal over the limit: %s", res.Body)
	}
	check(1)
	// Other routes keep the general limit.
	padded := `{"name": "Canal House"` + strings.Repeat(" ", 64<<10) + `}`
	if res := e.Do("PATCH", "/api/v1/properties/"+r.propertyID, padded, xkey(key)...).Expect(413); res.ErrorCode() != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("property over 64 KiB: %s", res.Body)
	}
}
