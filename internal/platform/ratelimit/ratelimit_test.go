package ratelimit

import (
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

func TestMemoryBurstThenRefill(t *testing.T) {
	c := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemory(c)
	l := PerMinute(3)
	for i, want := range []int{2, 1, 0} {
		r, _ := m.Allow(t.Context(), "ip", l)
		if !r.Allowed || r.Remaining != want || r.Limit != 3 {
			t.Fatalf("request %d: %+v", i+1, r)
		}
	}
	r, _ := m.Allow(t.Context(), "ip", l)
	if r.Allowed || r.RetryAfter != 20*time.Second || r.Remaining != 0 {
		t.Fatalf("fourth request: %+v", r)
	}
	if !r.ResetAt.Equal(c.Now().Add(time.Minute)) {
		t.Fatalf("reset at %v", r.ResetAt)
	}
	if other, _ := m.Allow(t.Context(), "other", l); !other.Allowed {
		t.Fatal("keys are not independent")
	}
	c.Advance(20 * time.Second)
	if r, _ := m.Allow(t.Context(), "ip", l); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("after refill of one: %+v", r)
	}
	c.Advance(time.Minute)
	if r, _ := m.Allow(t.Context(), "ip", l); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("after full refill: %+v", r)
	}
}

func TestMemoryPrune(t *testing.T) {
	c := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemory(c)
	m.Allow(t.Context(), "a", PerMinute(10))
	c.Advance(time.Hour)
	m.prune(c.Now())
	if len(m.tat) != 0 {
		t.Fatalf("stale keys kept: %d", len(m.tat))
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := NewMemory(clock.System{})
	l := PerMinute(1 << 30)
	for b.Loop() {
		m.Allow(b.Context(), "key", l)
	}
}
