package propertyhttp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

type feedEvent struct {
	ID   string
	Type string
	Data map[string]any
}

type feedPage struct {
	Data       []feedEvent
	NextCursor *string
	HasMore    bool
}

func (e *env) feed(t *testing.T, key, query string) feedPage {
	t.Helper()
	var p feedPage
	e.Get("/api/v1/events"+query, xkey(key)...).Expect(200).Decode(&p)
	return p
}

func eventTypes(evs []feedEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// TestEventFeed: a key sees its account's bookings and quotes of its mode:
// booking.created, booking.cancelled with the status it moved from,
// quote.expired once the hold is released; another account and the other
// mode see none of them.
func TestEventFeed(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			r := e.tokyoDouble(t)
			d, other := e.signup(t), e.signup(t)
			live, test, otherKey := e.key(t, d, "live"), e.key(t, d, "test"), e.key(t, other, "live")

			var b struct{ ID string }
			e.Do("POST", "/api/v1/bookings", map[string]any{"propertyId": r.propertyID, "roomTypeId": r.roomTypeID, "checkIn": day(10).String(),
				"checkOut": day(12).String(), "guests": 2, "guest": guest}, xkey(live)...).Expect(201).Decode(&b)
			e.Do("POST", "/api/v1/bookings/"+b.ID+"/cancel", nil, xkey(live)...).Expect(200)
			var q struct{ ID string }
			e.Do("POST", "/api/v1/quotes", stay(r, day(14), 2, 2), xkey(live)...).Expect(201).Decode(&q)
			e.clock.Advance(16 * time.Minute)
			if n, err := e.store.ReleaseExpiredHolds(t.Context()); err != nil || n != 1 {
				t.Fatalf("release: %d, %v", n, err)
			}

			p := e.feed(t, live, "")
			if got := eventTypes(p.Data); !slices.Equal(got, []string{"booking.created", "booking.cancelled", "quote.expired"}) || p.HasMore {
				t.Fatalf("feed = %v", got)
			}
			if d := p.Data[0].Data; d["id"] != b.ID || d["status"] != "CONFIRMED" || d["guest"] == nil {
				t.Errorf("booking.created = %v", d)
			}
			if d := p.Data[1].Data; d["status"] != "CANCELLED" || d["previousStatus"] != "CONFIRMED" {
				t.Errorf("booking.cancelled = %v", d)
			}
			expired := p.Data[2].Data
			gotExpired := map[string]any{"id": expired["id"], "status": expired["status"], "previousStatus": expired["previousStatus"], "nights": expired["nights"]}
			wantExpired := map[string]any{"id": q.ID, "status": "expired", "previousStatus": "held", "nights": float64(2)}
			if diff := cmp.Diff(wantExpired, gotExpired); diff != "" {
				t.Errorf("quote.expired (-want +got):\n%s", diff)
			}
			for _, k := range []string{test, otherKey} {
				if n := len(e.feed(t, k, "").Data); n != 0 {
					t.Errorf("another mode or account sees %d events", n)
				}
			}
			if got := eventTypes(e.feed(t, live, "?types=quote.expired&limit=1").Data); !slices.Equal(got, []string{"quote.expired"}) {
				t.Errorf("filtered = %v", got)
			}
			next := e.feed(t, live, "?limit=2")
			if !next.HasMore || len(next.Data) != 2 {
				t.Errorf("page of 2: %+v", next)
			}
			if rest := e.feed(t, live, "?after="+*next.NextCursor); len(rest.Data) != 1 || rest.Data[0].Type != "quote.expired" {
				t.Errorf("next page: %+v", rest)
			}
			if code := e.Get("/api/v1/events?after=0193a4fa-7a8b-7c9d-8e0f-1a2b3c4d5e6f", xkey(live)...).Expect(410).ErrorCode(); code != "GONE" {
				t.Errorf("unknown cursor: %s", code)
			}
			// A key without events:read.
			narrow := e.key(t, d, "live", "bookings:read")
			e.Get("/api/v1/events", xkey(narrow)...).Expect(403)
		})
	}
}

// TestPortalWebhooks: the portal manages endpoints per mode; a live
// booking reaches the live endpoint signed (verified with the Standard
// Webhooks library), not the test one; deliveries, ping and redelivery.
func TestPortalWebhooks(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, options{}, engine)
			r := e.tokyoDouble(t)
			d := e.signup(t)
			live := e.key(t, d, "live")
			liveRC, testRC := apitest.NewReceiver(t), apitest.NewReceiver(t)
			var liveEP, testEP struct {
				ID, Mode, Secret, Status string
				Types                    []string
			}
			e.Do("POST", "/portal/api/webhooks", map[string]any{"url": liveRC.URL, "types": []string{"booking.created", "booking.cancelled"}},
				bearer(d.token)...).Expect(201).Decode(&liveEP)
			e.Do("POST", "/portal/api/webhooks", map[string]any{"url": testRC.URL, "mode": "test"}, bearer(d.token)...).Expect(201).Decode(&testEP)
			if liveEP.Mode != "live" || testEP.Mode != "test" || !strings.HasPrefix(liveEP.Secret, "whsec_") {
				t.Fatalf("endpoints: %+v %+v", liveEP, testEP)
			}
			liveRC.SetSecrets(liveEP.Secret)
			testRC.SetSecrets(testEP.Secret)

			var list struct{ Data []map[string]any }
			e.Get("/portal/api/webhooks", bearer(d.token)...).Expect(200).Decode(&list)
			if len(list.Data) != 2 || list.Data[0]["secret"] != nil || list.Data[1]["mode"] != "test" {
				t.Errorf("list = %v", list.Data)
			}
			other := e.signup(t)
			e.Get("/portal/api/webhooks/"+liveEP.ID, bearer(other.token)...).Expect(404)

			var b struct{ ID string }
			e.Do("POST", "/api/v1/bookings", map[string]any{"propertyId": r.propertyID, "roomTypeId": r.roomTypeID, "checkIn": day(10).String(),
				"checkOut": day(12).String(), "guests": 2, "guest": guest}, xkey(live)...).Expect(201).Decode(&b)
			runner := &jobs.Runner{Jobs: store.NewJobs(e.db, e.clock), Clock: e.clock}
			(&changes.Sender{Store: e.hooks, Client: changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})}).Register(runner)
			if n, err := runner.RunOnce(t.Context()); err != nil || n != 1 {
				t.Fatalf("run: %d, %v", n, err)
			}
			got := liveRC.Unique()
			gotLive := map[string]any{"deliveries": len(got)}
			if len(got) > 0 {
				data, _ := got[0].Body["data"].(map[string]any)
				gotLive["type"], gotLive["verified"], gotLive["id"] = got[0].Type, len(got[0].Verified) > 0 && got[0].Verified[0], data["id"]
			}
			wantLive := map[string]any{"deliveries": 1, "type": "booking.created", "verified": true, "id": b.ID}
			if diff := cmp.Diff(wantLive, gotLive); diff != "" {
				t.Fatalf("live endpoint (-want +got):\n%s\n%+v", diff, got)
			}
			if n := len(testRC.Deliveries()); n != 0 {
				t.Errorf("the test endpoint got %d live deliveries", n)
			}

			var ds struct {
				Data []struct {
					ID, Status, EventID string
					ResponseStatus      *int
					AttemptHistory      []struct {
						Attempt        int
						AttemptedAt    time.Time
						ResponseStatus *int
						Error          *string
					}
				}
			}
			e.Get("/portal/api/webhooks/"+liveEP.ID+"/deliveries", bearer(d.token)...).Expect(200).Decode(&ds)
			gotDeliveries := map[string]any{"deliveries": len(ds.Data)}
			if len(ds.Data) > 0 {
				gotDeliveries["status"], gotDeliveries["responseStatus"], gotDeliveries["eventId"] = ds.Data[0].Status, ds.Data[0].ResponseStatus, ds.Data[0].EventID
			}
			wantDeliveries := map[string]any{"deliveries": 1, "status": "succeeded", "responseStatus": new(200), "eventId": got[0].ID}
			if diff := cmp.Diff(wantDeliveries, gotDeliveries); diff != "" {
				t.Fatalf("deliveries (-want +got):\n%s", diff)
			}
			h := ds.Data[0].AttemptHistory
			gotHistory := map[string]any{"attempts": len(h)}
			if len(h) > 0 {
				gotHistory["attempt"], gotHistory["attemptedAt"], gotHistory["responseStatus"], gotHistory["errorSet"] =
					h[0].Attempt, h[0].AttemptedAt, h[0].ResponseStatus, h[0].Error != nil
			}
			wantHistory := map[string]any{"attempts": 1, "attempt": 1, "attemptedAt": e.clock.Now(), "responseStatus": new(200), "errorSet": false}
			if diff := cmp.Diff(wantHistory, gotHistory); diff != "" {
				t.Errorf("attempt history (-want +got):\n%s", diff)
			}
			e.Do("POST", "/portal/api/webhooks/deliveries/"+ds.Data[0].ID+"/redeliver", nil, bearer(d.token)...).Expect(202)
			e.Do("POST", "/portal/api/webhooks/"+testEP.ID+"/test", nil, bearer(d.token)...).Expect(202)
			if _, err := runner.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			if all := liveRC.Deliveries(); len(all) != 2 || !all[1].Duplicate {
				t.Errorf("redelivery: %+v", all)
			}
			if all := testRC.Deliveries(); len(all) != 1 || all[0].Type != "webhook.test" || !all[0].Verified[0] {
				t.Errorf("ping: %+v", all)
			}

			var upd map[string]any
			e.Do("PATCH", "/portal/api/webhooks/"+liveEP.ID, map[string]any{"description": "Channel manager", "enabled": false},
				bearer(d.token)...).Expect(200).Decode(&upd)
			if upd["status"] != "disabled" || upd["description"] != "Channel manager" {
				t.Errorf("updated: %v", upd)
			}
			e.Do("PATCH", "/portal/api/webhooks/"+liveEP.ID, map[string]any{"mode": "test"}, bearer(d.token)...).Expect(400)
			e.Do("DELETE", "/portal/api/webhooks/"+liveEP.ID, nil, bearer(d.token)...).Expect(200)
			e.Get("/portal/api/webhooks/"+liveEP.ID, bearer(d.token)...).Expect(404)
		})
	}
}
