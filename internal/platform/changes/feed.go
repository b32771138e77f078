package changes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// EventTTL is how long the change feed keeps an event.
const EventTTL = 30 * 24 * time.Hour

// AudienceAll is the audience of an event every caller of the API may see.
const AudienceAll = "*"

// eventsLock keeps PostgreSQL's feed gap-free for readers paging by seq
// (SQLite's single writer commits in seq order by itself). A writer holds
// it shared from just before its event's seq is drawn until its commit, so
// writers never wait for each other (an exclusive lock held to the commit
// queued every event-writing transaction, its WAL flush included, behind
// the last). A reader takes it exclusive for a moment: that waits out the
// writers in flight, and the highest seq it then reads is its horizon.
// Every seq up to the horizon is committed or rolled back and every seq
// drawn later is above it, so a page that stops there never passes an
// event that commits late.
const eventsLock = 7_401_001

// Event is one change, as the feed and the webhooks carry it.
type Event struct {
	ID        string          `json:"id"` // UUIDv7
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

// Feed is the change feed of one database.
type Feed struct {
	db    *store.DB
	clock clock.Clock
	jobs  *store.Jobs
	// PublicURL is the API's external base URL: image paths ("/media/…")
	// in an event's data are made absolute on it, as the API shows them.
	PublicURL string
}

// NewFeed returns the change feed of db.
func NewFeed(db *store.DB, c clock.Clock) *Feed {
	return &Feed{db: db, clock: c, jobs: store.NewJobs(db, c)}
}

// media is implemented by resources that refer to images (as
// media.Referrer).
type media interface{ MediaRefs(f func(ref *string)) }

// Record writes the event of a change in q, the change's transaction, so
// that a crash can never leave a change without its event or an event
// without its change. data is the resource as the API returns it after the
// change; audience names who may see it (account keys, or AudienceAll).
// The event's webhook deliveries are enqueued in q too.
func (s *Feed) Record(ctx context.Context, q store.Querier, typ string, audience []string, data any) (ev Event, err error) {
	defer store.Wrap(&err, "record %s event", typ)
	body, err := json.Marshal(data)
	if err != nil {
		return Event{}, err
	}
	if _, ok := data.(media); ok {
		if body, err = s.resolveMedia(data, body); err != nil {
			return Event{}, err
		}
	}
	ev = Event{ID: store.NewID(), Type: typ, CreatedAt: s.clock.Now(), Data: body}
	// Every audience, once.
	var audiences []string
	for _, a := range audience {
		if a != "" && !slices.Contains(audiences, a) {
			audiences = append(audiences, a)
		}
	}
	var seq int64
	var hooks bool // whether a webhook endpoint may want the event
	all := slices.Contains(audiences, AudienceAll)
	if s.db.Engine == store.Postgres {
		// One round trip: the shared lock is taken before the row (and
		// its seq) is made, the audiences go in with it, and it tells
		// whether any endpoint of the audience is live (usually none, and
		// then fanOut's query is not needed).
		err = q.QueryRowContext(ctx, `WITH l AS (SELECT pg_advisory_xact_lock_shared($5)),
			e AS (INSERT INTO events (id, type, data, created_at)
				SELECT $1::text, $2::text, $3::text, $4::timestamptz FROM l RETURNING seq),
			a AS (INSERT INTO event_audience (audience, seq) SELECT unnest($6::text[]), seq FROM e)
			SELECT seq, EXISTS (SELECT 1 FROM webhook_endpoints WHERE status <> 'disabled' AND ($7 OR audience = ANY ($6::text[])))
			FROM e`, ev.ID, ev.Type, string(body), ev.CreatedAt, eventsLock, audiences, all).Scan(&seq, &hooks)
		if err != nil {
			return Event{}, err
		}
	} else {
		// As on PostgreSQL, the insert tells whether any endpoint of the
		// audience is live: fanOut's query, a visible part of a booking's
		// CPU when it ran for every event, runs only then.
		// The audience's endpoints are found by webhook_endpoints_audience
		// (an empty IN list matches none).
		w, live := &store.Where{Args: []any{ev.ID, ev.Type, string(body), ev.CreatedAt}}, "status <> 'disabled'"
		if !all {
			live += " AND audience IN (" + w.ArgStrings(audiences) + ")"
		}
		// #nosec G202 -- only $N placeholders are concatenated; values are bound.
		if err := q.QueryRowContext(ctx, `INSERT INTO events (id, type, data, created_at) VALUES ($1, $2, $3, $4)
			RETURNING seq, EXISTS (SELECT 1 FROM webhook_endpoints WHERE `+live+`)`, w.Args...).Scan(&seq, &hooks); err != nil {
			return Event{}, err
		}
		if len(audiences) > 0 {
			values, audArgs := make([]string, len(audiences)), []any{seq}
			for i, a := range audiences {
				audArgs = append(audArgs, a)
				values[i] = "($" + strconv.Itoa(i+2) + ", $1)"
			}
			// #nosec G202 -- only $N placeholders are concatenated; values are bound.
			if _, err := q.ExecContext(ctx, `INSERT INTO event_audience (audience, seq) VALUES `+strings.Join(values, ", "), audArgs...); err != nil {
				return Event{}, err
			}
		}
	}
	if !hooks {
		return ev, nil
	}
	if err := fanOut(ctx, q, s.jobs, ev, audience); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// resolveMedia makes the image paths of data absolute, on a copy decoded
// from body: data itself (and what it points to, such as the caller's
// user) stays as it is.
func (s *Feed) resolveMedia(data any, body []byte) ([]byte, error) {
	relative := func(ref string) bool { return strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "//") }
	// Most events have no path to resolve (a text message from a user
	// without a picture): they keep body, without the copy.
	some := false
	data.(media).MediaRefs(func(ref *string) { some = some || relative(*ref) })
	if !some {
		return body, nil
	}
	cp := reflect.New(reflect.TypeOf(data))
	if err := json.Unmarshal(body, cp.Interface()); err != nil {
		return nil, err
	}
	m, ok := cp.Elem().Interface().(media)
	if !ok {
		return body, nil
	}
	m.MediaRefs(func(ref *string) {
		if relative(*ref) {
			*ref = s.PublicURL + *ref
		}
	})
	return json.Marshal(m)
}

// Filter selects a page of the feed.
type Filter struct {
	Audience []string // the caller's account keys; AudienceAll is added
	After    string   // an event id; "" starts at the oldest event kept
	Types    []string // empty: every type
	Exclude  []string // types never returned, whatever Types says
	Limit    int
}

// Find returns the events the audience may see after the cursor, oldest
// first, and whether more follow. Errors: apperr.Gone when the cursor names
// no event kept (unknown, or older than EventTTL).
func (s *Feed) Find(ctx context.Context, f Filter) (evs []Event, more bool, err error) {
	defer store.Wrap(&err, "find events after %q", f.After)
	w := &store.Where{}
	if s.db.Engine == store.Postgres {
		h, err := s.horizon(ctx)
		if err != nil {
			return nil, false, err
		}
		w.And("a.seq <= " + w.Arg(h))
	}
	if f.After != "" {
		var seq int64
		err := s.db.QueryRowContext(ctx, `SELECT seq FROM events WHERE id = $1 AND created_at > $2`,
			f.After, s.clock.Now().Add(-EventTTL)).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			e := apperr.Errorf(apperr.Gone, "The cursor %q names no event the feed still keeps (events are kept %d days); start again without after.",
				f.After, int(EventTTL.Hours()/24))
			e.Details = map[string]any{"after": f.After}
			return nil, false, e
		} else if err != nil {
			return nil, false, err
		}
		w.And("a.seq > " + w.Arg(seq))
	}
	audience := append([]string{AudienceAll}, f.Audience...)
	in := make([]string, len(audience))
	for i, a := range audience {
		in[i] = w.Arg(a)
	}
	w.And("a.audience IN (" + strings.Join(in, ", ") + ")")
	w.And("e.created_at > " + w.Arg(s.clock.Now().Add(-EventTTL)))
	if len(f.Types) > 0 {
		types := make([]string, len(f.Types))
		for i, t := range f.Types {
			types[i] = w.Arg(t)
		}
		w.And("e.type IN (" + strings.Join(types, ", ") + ")")
	}
	if len(f.Exclude) > 0 {
		types := make([]string, len(f.Exclude))
		for i, t := range f.Exclude {
			types[i] = w.Arg(t)
		}
		w.And("e.type NOT IN (" + strings.Join(types, ", ") + ")")
	}
	// #nosec G202 -- only $N placeholders are concatenated; values are bound.
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT e.seq, e.id, e.type, e.data, e.created_at
		FROM event_audience a JOIN events e ON e.seq = a.seq`+w.String()+` ORDER BY e.seq LIMIT `+w.Arg(f.Limit+1), w.Args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	evs = []Event{}
	for rows.Next() {
		var seq int64
		var ev Event
		var data string
		if err := rows.Scan(&seq, &ev.ID, &ev.Type, &data, &ev.CreatedAt); err != nil {
			return nil, false, err
		}
		ev.Data, ev.CreatedAt = json.RawMessage(data), ev.CreatedAt.UTC()
		evs = append(evs, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(evs) > f.Limit {
		return evs[:f.Limit], true, nil
	}
	return evs, false, nil
}

// horizon returns the highest seq a PostgreSQL reader may page to (see
// eventsLock). The seq is read while the lock is held, in a statement of
// its own so that its snapshot sees the writers the lock waited for.
func (s *Feed) horizon(ctx context.Context) (h int64, err error) {
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, eventsLock); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&h)
	})
	return h, err
}

// Purge forgets events older than EventTTL.
func (s *Feed) Purge(ctx context.Context) (n int, err error) {
	defer store.Wrap(&err, "purge events")
	// The audience rows go first: SQLite enforces the cascade only with
	// foreign keys on, and this does not depend on it.
	cutoff := s.clock.Now().Add(-EventTTL)
	if _, err := s.db.ExecContext(ctx, `DELETE FROM event_audience WHERE seq IN (SELECT seq FROM events WHERE created_at <= $1)`, cutoff); err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM events WHERE created_at <= $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("delete: %w", err)
	}
	m, err := res.RowsAffected()
	return int(m), err
}
