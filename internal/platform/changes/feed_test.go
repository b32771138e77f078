package changes_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
)

// page is what one call of Find answers: the events' ids, in order, and
// whether more follow.
type page struct {
	IDs  []string
	More bool
}

func pageOf(evs []changes.Event, more bool) page {
	p := page{More: more}
	for _, e := range evs {
		p.IDs = append(p.IDs, e.ID)
	}
	return p
}

// TestEvents: an event is seen by its audience only, in order, paged by
// cursor and filtered by type; an unknown or expired cursor is GONE; purge
// forgets old events. Concurrent writers' events are each read once.
func TestEvents(t *testing.T) {
	for _, engine := range storetest.Engines() {
		for _, schema := range []store.Schema{guidedb.Schema, propertydb.Schema} {
			t.Run(string(engine)+"/"+schema.Name, func(t *testing.T) {
				t.Parallel()
				db := storetest.MustOpenDB(t, engine, schema)
				clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
				s := changes.NewFeed(db, clk)
				ctx := context.Background()
				record := func(typ string, audience ...string) changes.Event {
					t.Helper()
					var ev changes.Event
					if err := db.InTx(ctx, func(tx *sql.Tx) (err error) {
						ev, err = s.Record(ctx, tx, typ, audience, map[string]any{"n": typ})
						return err
					}); err != nil {
						t.Fatal(err)
					}
					return ev
				}
				a1 := record("booking.created", "alice", "bob")
				record("booking.created", "carol")
				pub := record("availability.updated", changes.AudienceAll)
				a2 := record("booking.cancelled", "alice")
				// A rolled-back change leaves no event.
				db.InTx(ctx, func(tx *sql.Tx) error {
					s.Record(ctx, tx, "booking.created", []string{"alice"}, nil)
					return fmt.Errorf("the change failed")
				})

				evs, more, err := s.Find(ctx, changes.Filter{Audience: []string{"alice"}, Limit: 2})
				if err != nil {
					t.Fatalf("first page: %v", err)
				}
				if diff := cmp.Diff(page{[]string{a1.ID, pub.ID}, true}, pageOf(evs, more)); diff != "" {
					t.Fatalf("first page (-want +got):\n%s", diff)
				}
				if string(evs[0].Data) != `{"n":"booking.created"}` {
					t.Errorf("data: %s", evs[0].Data)
				}
				evs, more, err = s.Find(ctx, changes.Filter{Audience: []string{"alice"}, After: evs[1].ID, Limit: 2})
				if err != nil {
					t.Fatalf("second page: %v", err)
				}
				if diff := cmp.Diff(page{[]string{a2.ID}, false}, pageOf(evs, more)); diff != "" {
					t.Fatalf("second page (-want +got):\n%s", diff)
				}
				evs, _, _ = s.Find(ctx, changes.Filter{Audience: []string{"alice"}, Types: []string{"booking.cancelled"}, Limit: 10})
				if len(evs) != 1 || evs[0].ID != a2.ID {
					t.Errorf("by type: %+v", evs)
				}
				if evs, _, _ := s.Find(ctx, changes.Filter{Audience: []string{"dave"}, Limit: 10}); len(evs) != 1 || evs[0].ID != pub.ID {
					t.Errorf("a stranger sees only public events: %+v", evs)
				}
				if _, _, err := s.Find(ctx, changes.Filter{Audience: []string{"alice"}, After: "01a00000-0000-7000-8000-000000000000", Limit: 10}); apperr.Code(err) != apperr.Gone {
					t.Errorf("unknown cursor: %v", err)
				}

				// Writers racing: every event read once, in one order.
				var wg sync.WaitGroup
				for w := range 6 {
					wg.Go(func() {
						for i := range 5 {
							if err := db.InTx(ctx, func(tx *sql.Tx) error {
								_, err := s.Record(ctx, tx, fmt.Sprintf("race.%d.%d", w, i), []string{"racer"}, nil)
								return err
							}); err != nil {
								t.Error(err)
							}
						}
					})
				}
				wg.Wait()
				seen, after := map[string]bool{}, ""
				for {
					evs, more, err := s.Find(ctx, changes.Filter{Audience: []string{"racer"}, After: after, Limit: 7})
					if err != nil {
						t.Fatal(err)
					}
					for _, ev := range evs {
						if ev.Type != "availability.updated" && seen[ev.ID] {
							t.Errorf("%s read twice", ev.ID)
						}
						seen[ev.ID] = true
						after = ev.ID
					}
					if !more {
						break
					}
				}
				if len(seen) != 31 {
					t.Errorf("%d events read, want 30 raced + 1 public", len(seen))
				}

				clk.Advance(changes.EventTTL + time.Second)
				if _, _, err := s.Find(ctx, changes.Filter{Audience: []string{"alice"}, After: a1.ID, Limit: 10}); apperr.Code(err) != apperr.Gone {
					t.Errorf("expired cursor: %v", err)
				}
				if n, err := s.Purge(ctx); err != nil || n != 34 {
					t.Errorf("purge: %d %v", n, err)
				}
			})
		}
	}
}

// TestEventsReaderRacesWriters: a reader paging by cursor while writers
// commit out of seq order (each holds its transaction open a random moment
// after its event; some roll back) reads every committed event exactly
// once. Without the reader's horizon on PostgreSQL it passes over events
// whose transaction commits after a later one's.
func TestEventsReaderRacesWriters(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			s := changes.NewFeed(db, clock.System{})
			ctx := context.Background()
			hold := `SELECT $1`
			if engine == store.Postgres {
				hold = `SELECT pg_sleep($1)`
			}
			var mu sync.Mutex
			committed := map[string]bool{}
			var writers sync.WaitGroup
			for w := range 8 {
				writers.Go(func() {
					for i := range 25 {
						var ev changes.Event
						err := db.InTx(ctx, func(tx *sql.Tx) (err error) {
							if ev, err = s.Record(ctx, tx, "race", []string{"racer"}, nil); err != nil {
								return err
							}
							if _, err := tx.ExecContext(ctx, hold, float64((w*7+i*3)%5)/1000); err != nil {
								return err
							}
							if (w+i)%6 == 0 {
								return errRolledBack
							}
							return nil
						})
						if err != nil && !errors.Is(err, errRolledBack) {
							t.Error(err)
							return
						}
						if err == nil {
							mu.Lock()
							committed[ev.ID] = true
							mu.Unlock()
						}
					}
				})
			}
			done := make(chan struct{})
			go func() { writers.Wait(); close(done) }()
			seen, after := map[string]int{}, ""
			read := func() {
				for {
					evs, more, err := s.Find(ctx, changes.Filter{Audience: []string{"racer"}, After: after, Limit: 5})
					if err != nil {
						t.Fatal(err)
					}
					for _, ev := range evs {
						seen[ev.ID]++
						after = ev.ID
					}
					if !more {
						return
					}
				}
			}
			for running := true; running; {
				select {
				case <-done:
					running = false
				default:
				}
				read() // once more after the writers finished: it must find every event left
			}
			for id := range committed {
				if seen[id] != 1 {
					t.Errorf("event %s read %d times", id, seen[id])
				}
			}
			if len(seen) != len(committed) {
				t.Errorf("%d events read, %d committed", len(seen), len(committed))
			}
		})
	}
}

// TestEventsLateCommit: on PostgreSQL, a reader that comes while an event's
// transaction is still open, after a later event committed, waits for it:
// it never returns the later event without the earlier one.
func TestEventsLateCommit(t *testing.T) {
	if os.Getenv("TEST_POSTGRES_URL") == "" {
		t.Skip("PostgreSQL only: SQLite's writers commit one at a time")
	}
	db := storetest.MustOpenDB(t, store.Postgres, guidedb.Schema)
	s := changes.NewFeed(db, clock.System{})
	ctx := context.Background()
	slow, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	early, err := s.Record(ctx, slow, "early", []string{"racer"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var late changes.Event
	if err := db.InTx(ctx, func(tx *sql.Tx) (err error) {
		late, err = s.Record(ctx, tx, "late", []string{"racer"}, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		evs []changes.Event
		err error
	}
	got := make(chan page, 1)
	go func() {
		evs, _, err := s.Find(ctx, changes.Filter{Audience: []string{"racer"}, Limit: 10})
		got <- page{evs, err}
	}()
	// Commit the slow transaction once the reader waits for it (or has
	// answered without waiting, which the check below refuses).
	for waiting := false; !waiting; {
		select {
		case p := <-got:
			got <- p
			waiting = true
		default:
			if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted)`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	p := <-got
	if p.err != nil {
		t.Fatal(p.err)
	}
	var ids []string
	for _, ev := range p.evs {
		ids = append(ids, ev.ID)
	}
	if len(ids) != 2 || ids[0] != early.ID || ids[1] != late.ID {
		t.Errorf("read %v, want the early event %s then the late %s", ids, early.ID, late.ID)
	}
}

var errRolledBack = errors.New("the change failed")
