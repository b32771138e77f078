package guidehttp_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

type feedEvent struct {
	ID        string
	Type      string
	CreatedAt time.Time
	Data      map[string]any
}

type feedPage struct {
	Data       []feedEvent
	NextCursor *string
	HasMore    bool
}

// feed reads the whole feed of a credential after the cursor.
func (e *env) feed(t *testing.T, token, query string) feedPage {
	t.Helper()
	var p feedPage
	e.Get("/api/v1/events"+query, bearer(token)...).Expect(200).Decode(&p)
	return p
}

func types(evs []feedEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// TestBookingCreatedEvent checks that booking.created, built from the
// request and the expert read before the insert (not read back), carries
// the booking exactly as its traveller reads it, with and without a
// package, and with a date finer than the microseconds PostgreSQL keeps.
func TestBookingCreatedEvent(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			start := b.clock.Now().Add(72*time.Hour + 123456789*time.Nanosecond).In(time.FixedZone("", 9*3600))
			ids := []string{
				b.book(t, b.tourist, map[string]any{"packageId": b.packageID, "participants": 2, "scheduledDate": start.Format(time.RFC3339Nano),
					"scheduledEndDate": start.Add(3 * time.Hour).Format(time.RFC3339Nano), "customRequest": "Vegetarian, please.", "meetingLocation": "Hotel lobby"}),
				b.book(t, b.tourist, map[string]any{"expertId": b.expertID}),
			}
			p := b.feed(t, b.tourist.token, "")
			if len(p.Data) != len(ids) {
				t.Fatalf("feed = %v", types(p.Data))
			}
			for i, id := range ids {
				raw, err := json.Marshal(p.Data[i].Data)
				if err != nil {
					t.Fatal(err)
				}
				var got guide.BookingDetail
				if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatal(err)
				}
				if want := b.detail(t, b.tourist, id); !reflect.DeepEqual(got, want) {
					t.Errorf("booking.created data:\n%+v\nGET /bookings/%s:\n%+v", got, id, want)
				}
			}
		})
	}
}

// TestEventFeed walks a booking's life cycle, a message and a key's
// cancellation, and reads the feed of each party: every change has its
// event, in order, with the resource after the change and the status it
// moved from; strangers see nothing; the cursor pages and expires.
func TestEventFeed(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			id := b.book(t, b.tourist, nil)
			for _, step := range []string{"accept", "start", "complete"} {
				b.Do("POST", "/api/v1/bookings/"+id+"/"+step, nil, bearer(b.expert.token)...).Expect(200)
			}
			b.Do("POST", "/api/v1/bookings/"+id+"/review", map[string]any{"rating": 5}, bearer(b.tourist.token)...).Expect(201)

			want := []string{"booking.created", "booking.confirmed", "booking.started", "booking.completed", "review.created"}
			for _, who := range []user{b.tourist, b.expert} {
				p := b.feed(t, who.token, "")
				gotFeed := map[string]any{"types": types(p.Data), "hasMore": p.HasMore, "cursorSet": p.NextCursor != nil}
				wantFeed := map[string]any{"types": want, "hasMore": false, "cursorSet": true}
				if p.NextCursor != nil && len(p.Data) > 4 {
					gotFeed["cursor"] = *p.NextCursor
					wantFeed["cursor"] = p.Data[4].ID
				}
				if diff := cmp.Diff(wantFeed, gotFeed); diff != "" {
					t.Fatalf("feed of %s (-want +got):\n%s", who.email, diff)
				}
				if !slices.IsSortedFunc(p.Data, func(a, b feedEvent) int { return cmpString(a.ID, b.ID) }) {
					t.Errorf("ids are not in order: %v", p.Data)
				}
			}
			p := b.feed(t, b.tourist.token, "")
			created, confirmed, review := p.Data[0].Data, p.Data[1].Data, p.Data[4].Data
			if created["id"] != id || created["status"] != "PENDING" || created["previousStatus"] != nil {
				t.Errorf("booking.created data = %v", created)
			}
			if confirmed["status"] != "CONFIRMED" || confirmed["previousStatus"] != "PENDING" || confirmed["confirmedAt"] == nil {
				t.Errorf("booking.confirmed data = %v", confirmed)
			}
			if review["bookingId"] != id || review["rating"] != float64(5) {
				t.Errorf("review.created data = %v", review)
			}
			if img, _ := confirmed["expert"].(map[string]any)["image"].(string); img != "" && img[0] == '/' {
				t.Errorf("image %q is not absolute", img)
			}
			if n := len(b.feed(t, b.stranger.token, "").Data); n != 0 {
				t.Errorf("a stranger sees %d events", n)
			}

			// Types and paging.
			p = b.feed(t, b.tourist.token, "?types=booking.started,review.created")
			if got := types(p.Data); !slices.Equal(got, []string{"booking.started", "review.created"}) {
				t.Errorf("filtered = %v", got)
			}
			var paged []string
			cursor := ""
			for range 5 {
				p := b.feed(t, b.tourist.token, "?limit=2"+cursor)
				paged = append(paged, types(p.Data)...)
				if !p.HasMore {
					break
				}
				cursor = "&after=" + *p.NextCursor
			}
			if !slices.Equal(paged, want) {
				t.Errorf("paged = %v", paged)
			}
			last := b.feed(t, b.tourist.token, "?after="+p.Data[1].ID)
			if len(last.Data) != 0 || last.HasMore || *last.NextCursor != p.Data[1].ID {
				t.Errorf("after the last: %+v", last)
			}

			// Errors.
			b.Get("/api/v1/events?after=0193a4fa-7a8b-7c9d-8e0f-1a2b3c4d5e6f", bearer(b.tourist.token)...).Expect(410)
			if code := b.Get("/api/v1/events?types=booking.exploded", bearer(b.tourist.token)...).Expect(400).ErrorCode(); code != "VALIDATION_ERROR" {
				t.Errorf("unknown type: %s", code)
			}
			b.Get("/api/v1/events?limit=101", bearer(b.tourist.token)...).Expect(400)
			b.Get("/api/v1/events").Expect(401)
			// 30 days on, the events (and so the cursor) are gone.
			b.clock.Advance(31 * 24 * time.Hour)
			fresh := b.tokenFor(t, b.tourist.email)
			b.Get("/api/v1/events?after="+p.Data[0].ID, bearer(fresh.token)...).Expect(410)
			if n, err := b.store.Events().Purge(t.Context()); err != nil || n != 5 {
				t.Errorf("purge = %d, %v", n, err)
			}
		})
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestEventFeedKeysAndActions: a key needs events:read; a key's
// cancellation records action.pending, then action.confirmed with the
// booking.cancelled it caused; messages record message.created for both
// parties.
func TestEventFeedKeysAndActions(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	id := b.book(t, b.tourist, nil)
	noScope := b.apiKey(t, b.tourist, "bookings:write")
	if code := b.Get("/api/v1/events", bearer(noScope)...).Expect(403).ErrorCode(); code != "INSUFFICIENT_SCOPE" {
		t.Errorf("key without events:read: %s", code)
	}
	key := b.apiKey(t, b.tourist, "bookings:write", "events:read")
	var pending struct{ ActionID string }
	b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(key)...).Expect(202).Decode(&pending)
	b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(b.tourist.token)...).Expect(200)

	p := b.feed(t, key, "")
	if got := types(p.Data); !slices.Equal(got, []string{"booking.created", "action.pending", "booking.cancelled", "action.confirmed"}) {
		t.Fatalf("feed = %v", got)
	}
	if d := p.Data[2].Data; d["status"] != "CANCELLED" || d["previousStatus"] != "PENDING" {
		t.Errorf("booking.cancelled = %v", d)
	}
	if d := p.Data[3].Data; d["actionId"] != pending.ActionID || d["status"] != "confirmed" || d["previousStatus"] != "pending" {
		t.Errorf("action.confirmed = %v", d)
	}
	// The expert sees the booking's events, not the traveller's actions.
	if got := types(b.feed(t, b.expert.token, "").Data); !slices.Equal(got, []string{"booking.created", "booking.cancelled"}) {
		t.Errorf("expert's feed = %v", got)
	}

	var conv struct{ Data struct{ ID string } }
	var handle string
	if err := b.db.QueryRow(`SELECT handle FROM users WHERE id = $1`, b.expert.id).Scan(&handle); err != nil {
		t.Fatal(err)
	}
	b.Do("POST", "/api/v1/conversations", map[string]any{"expertHandle": handle}, bearer(b.stranger.token)...).Decode(&conv)
	if conv.Data.ID == "" {
		t.Fatal("no conversation")
	}
	b.Do("POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", map[string]any{"content": "Hello!", "messageType": "TEXT"},
		bearer(b.stranger.token)...).Expect(201)
	for _, who := range []user{b.stranger, b.expert} {
		evs := b.feed(t, who.token, "?types=message.created").Data
		if len(evs) != 1 || evs[0].Data["content"] != "Hello!" || evs[0].Data["conversationId"] != conv.Data.ID {
			t.Errorf("message events of %s = %v", who.email, evs)
		}
	}
	if n := len(b.feed(t, b.tourist.token, "?types=message.created").Data); n != 0 {
		t.Errorf("the traveller of the booking sees %d messages of another conversation", n)
	}
}

// TestKeyFeedWithholdsMessages: a participant's API key with events:read
// never reads the conversation's messages from the feed (left out of its
// pages; 403 when named), while the participants' user tokens do; and the
// supply side's package.updated, which the feed carries, is a type the
// feed accepts by name and documents.
func TestKeyFeedWithholdsMessages(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			b := newBookingEnv(t, engine)
			var handle string
			if err := b.db.QueryRow(`SELECT handle FROM users WHERE id = $1`, b.expert.id).Scan(&handle); err != nil {
				t.Fatal(err)
			}
			var conv struct{ Data struct{ ID string } }
			b.Do("POST", "/api/v1/conversations", map[string]any{"expertHandle": handle}, bearer(b.stranger.token)...).Expect(201).Decode(&conv)
			b.Do("POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", map[string]any{"content": "Meet at the north gate?", "messageType": "TEXT"},
				bearer(b.stranger.token)...).Expect(201)
			b.Do("PATCH", "/api/v1/packages/"+b.packageID, map[string]any{"title": map[string]any{"ko": "산책"}}, bearer(b.expert.token)...).Expect(200)

			for _, who := range []user{b.stranger, b.expert} {
				key := b.apiKey(t, who, "events:read")
				p := b.feed(t, key, "")
				if slices.Contains(types(p.Data), guide.EventMessageCreated) {
					t.Errorf("the feed of %s's key carries messages: %v", who.email, types(p.Data))
				}
				for _, ev := range p.Data {
					if ev.Data["content"] != nil {
						t.Errorf("%s event of %s's key holds content: %v", ev.Type, who.email, ev.Data)
					}
				}
				for _, q := range []string{"?types=message.created", "?types=booking.created,message.created"} {
					res := b.Get("/api/v1/events"+q, bearer(key)...).Expect(403)
					if code := res.ErrorCode(); code != "FORBIDDEN" || strings.Contains(string(res.Body), "north gate") {
						t.Errorf("%s by %s's key: %s", q, who.email, res.Body)
					}
				}
				// The user token of the same participant reads the message.
				evs := b.feed(t, who.token, "?types=message.created").Data
				if len(evs) != 1 || evs[0].Data["content"] != "Meet at the north gate?" {
					t.Errorf("message events of %s = %v", who.email, evs)
				}
			}

			// package.updated is named, documented and read, by tokens and keys.
			key := b.apiKey(t, b.expert, "events:read")
			for _, cred := range []string{b.expert.token, key} {
				evs := b.feed(t, cred, "?types=package.updated").Data
				if len(evs) != 1 || evs[0].Data["id"] != b.packageID {
					t.Errorf("package.updated = %v", evs)
				}
			}
			doc, err := guideDoc()
			if err != nil {
				t.Fatal(err)
			}
			var documented []string
			for _, v := range doc.Components.Schemas["EventType"].Value.Enum {
				documented = append(documented, v.(string))
			}
			if !slices.Equal(documented, guide.EventTypes) {
				t.Errorf("EventType enum %v, the feed's types %v", documented, guide.EventTypes)
			}
			var recorded []string
			rows, err := b.db.Query(`SELECT DISTINCT type FROM events`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var typ string
				if err := rows.Scan(&typ); err != nil {
					t.Fatal(err)
				}
				recorded = append(recorded, typ)
			}
			for _, typ := range recorded {
				if !slices.Contains(guide.EventTypes, typ) {
					t.Errorf("the feed carries %s, which it does not name", typ)
				}
			}
		})
	}
}
