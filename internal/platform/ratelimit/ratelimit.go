// Package ratelimit decides whether a caller may make another request.
// Both implementations use GCRA (the generic cell rate algorithm): a
// bucket of Rate requests that refills evenly over Period.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// Limit allows Rate requests per Period, all of them at once if the bucket
// is full.
type Limit struct {
	Rate   int
	Period time.Duration
}

// PerMinute returns a limit of n requests a minute.
func PerMinute(n int) Limit { return Limit{Rate: n, Period: time.Minute} }

// Result is the outcome of one request against a limit.
type Result struct {
	Allowed    bool
	Limit      int
	Remaining  int
	RetryAfter time.Duration // when denied: until one request is allowed
	ResetAt    time.Time     // when the bucket is full again
}

// Limiter counts requests per key.
type Limiter interface {
	Allow(ctx context.Context, key string, l Limit) (Result, error)
}

// Memory is a Limiter for a single process.
type Memory struct {
	clock clock.Clock
	mu    sync.Mutex
	tat   map[string]time.Time // theoretical arrival time per key
	calls int
}

// NewMemory returns an empty in-process limiter.
func NewMemory(c clock.Clock) *Memory {
	return &Memory{clock: c, tat: make(map[string]time.Time)}
}

// Allow counts one request for key.
func (m *Memory) Allow(_ context.Context, key string, l Limit) (Result, error) {
	now := m.clock.Now()
	interval := l.Period / time.Duration(l.Rate)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls%4096 == 0 {
		m.prune(now)
	}
	tat := m.tat[key]
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	allowAt := newTAT.Add(-l.Period)
	if now.Before(allowAt) {
		return Result{Limit: l.Rate, RetryAfter: allowAt.Sub(now), ResetAt: tat}, nil
	}
	m.tat[key] = newTAT
	remaining := int(now.Sub(allowAt) / interval)
	return Result{Allowed: true, Limit: l.Rate, Remaining: remaining, ResetAt: newTAT}, nil
}

// prune forgets keys whose bucket is full again, so memory stays bounded
// by the number of recently active callers.
func (m *Memory) prune(now time.Time) {
	for k, t := range m.tat {
		if !t.After(now) {
			delete(m.tat, k)
		}
	}
}
