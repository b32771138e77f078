package idempotency_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
)

// TestIdempotencyKeys: claim, in progress, reuse, replay, takeover after
// the lock time, and expiry, on both products' databases and every engine.
func TestIdempotencyKeys(t *testing.T) {
	for _, engine := range storetest.Engines() {
		for _, schema := range []store.Schema{guidedb.Schema, propertydb.Schema} {
			t.Run(string(engine)+"/"+schema.Name, func(t *testing.T) {
				t.Parallel()
				db := storetest.MustOpenDB(t, engine, schema)
				clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
				s := idempotency.NewKeys(db, clk, time.Minute)
				ctx := context.Background()

				token, r, err := s.Begin(ctx, "acct", "k1", "h1")
				if err != nil || r != nil || token == "" {
					t.Fatalf("begin: %q %v %v", token, r, err)
				}
				first := &idempotency.Claim{Account: "acct", Key: "k1", Token: token}
				if _, _, err := s.Begin(ctx, "acct", "k1", "h1"); apperr.Code(err) != apperr.IdempotencyInProgress {
					t.Errorf("in progress: %v", err)
				}
				if _, _, err := s.Begin(ctx, "acct", "k1", "h2"); apperr.Code(err) != apperr.IdempotencyInProgress {
					t.Errorf("another request while in progress: %v", err)
				}
				if tok, _, err := s.Begin(ctx, "other", "k1", "h2"); err != nil || tok == "" {
					t.Errorf("another account has its own keys: %v", err)
				}

				// Past the lock time a retry takes the claim over; the first
				// request can no longer record or abandon it.
				clk.Advance(time.Minute)
				token2, r, err := s.Begin(ctx, "acct", "k1", "h1")
				if err != nil {
					t.Fatalf("takeover: %v", err)
				}
				got := map[string]any{"replay": r, "token set": token2 != "", "same token": token2 == token}
				want := map[string]any{"replay": (*idempotency.Response)(nil), "token set": true, "same token": false}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("takeover (-want +got):\n%s", diff)
				}
				second := &idempotency.Claim{Account: "acct", Key: "k1", Token: token2}
				if err := s.Abandon(ctx, first); err != nil {
					t.Fatal(err)
				}
				if err := s.Finish(ctx, first, 201, []byte(`{"first":true}`)); err != nil {
					t.Fatal(err)
				}
				if _, _, err := s.Begin(ctx, "acct", "k1", "h1"); apperr.Code(err) != apperr.IdempotencyInProgress {
					t.Errorf("the first request's late finish counted: %v", err)
				}
				if err := s.Finish(ctx, second, 201, []byte(`{"ok":true}`)); err != nil {
					t.Fatal(err)
				}
				if _, r, err := s.Begin(ctx, "acct", "k1", "h1"); err != nil {
					t.Errorf("replay: %v", err)
				} else if diff := cmp.Diff(&idempotency.Response{Status: 201, Body: []byte(`{"ok":true}`)}, r); diff != "" {
					t.Errorf("replay (-want +got):\n%s", diff)
				}
				if _, _, err := s.Begin(ctx, "acct", "k1", "h2"); apperr.Code(err) != apperr.IdempotencyKeyReused {
					t.Errorf("reused: %v", err)
				}
				// A finished answer is never abandoned.
				if err := s.Abandon(ctx, second); err != nil {
					t.Fatal(err)
				}
				if _, r, _ := s.Begin(ctx, "acct", "k1", "h1"); r == nil {
					t.Error("abandon removed a finished answer")
				}
				clk.Advance(24 * time.Hour)
				if tok, r, err := s.Begin(ctx, "acct", "k1", "h2"); r != nil || err != nil || tok == "" {
					t.Errorf("after 24 h the key is new: %v %v", r, err)
				}
				if n, err := s.Purge(ctx); err != nil || n != 1 {
					t.Errorf("purge: %d %v", n, err)
				}
			})
		}
	}
}

// TestHoldRenewsTheClaim: a request that runs longer than the lock TTL
// keeps its key (retries are told it is in progress), because its claim
// is renewed while it runs; once it is released without a renewal, a
// retry after the TTL takes the key over, as after a crash.
func TestHoldRenewsTheClaim(t *testing.T) {
	t.Parallel()
	const ttl = 600 * time.Millisecond
	for _, engine := range storetest.Engines() {
		db := storetest.MustOpenDB(t, engine, guidedb.Schema)
		s := idempotency.NewKeys(db, clock.System{}, ttl)
		ctx := t.Context()
		token, _, err := s.Begin(ctx, "acct", "long", "h")
		if err != nil {
			t.Fatal(err)
		}
		release := s.Hold(ctx, &idempotency.Claim{Account: "acct", Key: "long", Token: token})
		time.Sleep(3 * ttl)
		if _, _, err := s.Begin(ctx, "acct", "long", "h"); apperr.Code(err) != apperr.IdempotencyInProgress {
			t.Errorf("%s: a held claim was taken over: %v", engine, err)
		}
		release()
		time.Sleep(ttl + ttl/2)
		if tok, _, err := s.Begin(ctx, "acct", "long", "h"); err != nil || tok == "" || tok == token {
			t.Errorf("%s: a claim no longer renewed was not taken over: %q %v", engine, tok, err)
		}
	}
}

// TestDoWaits: a call sent while the first with its key still runs is
// refused at once without Wait; with Wait it gets the first call's answer
// once that is recorded, and runs itself when the first was refused and
// so not kept.
func TestDoWaits(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenDB(t, engine, guidedb.Schema)
			s := idempotency.NewKeys(db, clock.System{}, time.Minute)
			ctx := t.Context()
			call := func(key string, wait time.Duration, ok bool) idempotency.Call {
				return idempotency.Call{Account: "acct", Key: key, Fingerprint: "h", Status: 200, Wait: wait,
					Render: func(any) ([]byte, error) { return []byte(`"first"`), nil },
					Answer: func(any, error) (int, []byte, bool) { return 200, []byte(`"first"`), ok }}
			}
			for _, c := range []struct {
				key  string
				ok   bool // the first call's answer is kept
				want any  // what the waiting call gets
			}{
				{"kept", true, &idempotency.Response{Status: 200, Body: []byte(`"first"`)}},
				{"refused", false, "second"},
			} {
				running, finish := make(chan struct{}), make(chan struct{})
				first := make(chan error, 1)
				go func() {
					_, _, _, err := idempotency.Do(ctx, s, call(c.key, 0, c.ok), func(context.Context) (any, error) {
						close(running)
						<-finish
						return "first", nil
					})
					first <- err
				}()
				<-running
				_, _, _, err := idempotency.Do(ctx, s, call(c.key, 0, c.ok), func(context.Context) (any, error) { return "second", nil })
				if apperr.Code(err) != apperr.IdempotencyInProgress {
					t.Errorf("%s: without Wait: %v", c.key, err)
				}
				time.AfterFunc(100*time.Millisecond, func() { close(finish) })
				result, stored, _, err := idempotency.Do(ctx, s, call(c.key, time.Minute, c.ok), func(context.Context) (any, error) {
					return "second", nil
				})
				if err != nil {
					t.Fatalf("%s: with Wait: %v", c.key, err)
				}
				if err := <-first; err != nil {
					t.Fatalf("%s: first: %v", c.key, err)
				}
				got := result
				if stored != nil {
					got = stored
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s: the waiting call (-want +got):\n%s", c.key, diff)
				}
			}
		})
	}
}
