package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// TestRedis runs against the Redis at TEST_REDIS_URL (CI sets it).
func TestRedis(t *testing.T) {
	url := os.Getenv("TEST_REDIS_URL")
	if url == "" {
		t.Skip("TEST_REDIS_URL is not set")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	// Two limiters on one Redis are one budget: what replicas share.
	prefix := "test:" + uuid.NewString() + ":"
	a, b := NewRedis(client, prefix), NewRedis(client, prefix)
	l := PerMinute(4)
	allowed := 0
	for i := range 10 {
		lim := a
		if i%2 == 1 {
			lim = b
		}
		res, err := lim.Allow(t.Context(), "k", l)
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed {
			allowed++
		} else if res.RetryAfter <= 0 || res.RetryAfter > 16*time.Second {
			t.Errorf("denied with RetryAfter %v", res.RetryAfter)
		}
	}
	if allowed != 4 {
		t.Errorf("%d of 10 allowed across two limiters, want 4", allowed)
	}
}

type failing struct{}

func (failing) Allow(context.Context, string, Limit) (Result, error) {
	return Result{}, errors.New("connection refused")
}

func TestFallback(t *testing.T) {
	var failures int
	f := &Fallback{Primary: failing{}, Local: NewMemory(clock.NewFake(time.Unix(0, 0))), OnFallback: func(error) { failures++ }}
	for i, want := range []bool{true, true, false} {
		res, err := f.Allow(t.Context(), "ip", PerMinute(2))
		if err != nil || res.Allowed != want {
			t.Fatalf("request %d: %+v %v", i, res, err)
		}
	}
	if failures != 3 {
		t.Errorf("%d failures reported", failures)
	}
	// Unreachable Redis fails fast instead of hanging the request.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	defer client.Close()
	start := time.Now()
	if _, err := NewRedis(client, "x:").Allow(context.Background(), "k", PerMinute(1)); err == nil {
		t.Error("an unreachable Redis allowed a request")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("unreachable Redis took %v", d)
	}
}

// flaky fails while down is set.
type flaky struct{ down *bool }

func (f flaky) Allow(context.Context, string, Limit) (Result, error) {
	if *f.down {
		return Result{}, errors.New("connection refused")
	}
	return Result{Allowed: true}, nil
}

// TestFallbackChanges: an outage is reported once when it starts and once
// when it ends, however many requests it spans.
func TestFallbackChanges(t *testing.T) {
	down := false
	var changes []bool
	f := &Fallback{Primary: flaky{&down}, Local: NewMemory(clock.NewFake(time.Unix(0, 0))), OnChange: func(d bool, _ error) { changes = append(changes, d) }}
	for _, d := range []bool{false, true, true, true, false, false, true} {
		down = d
		if _, err := f.Allow(t.Context(), "k", PerMinute(100)); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(changes) != "[true false true]" {
		t.Errorf("changes = %v", changes)
	}
}
