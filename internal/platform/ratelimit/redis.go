package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis is a Limiter whose counters live in Redis, shared by every replica.
// It runs GCRA in a Lua script, with Redis's clock, so replicas whose
// clocks drift still agree.
type Redis struct {
	limiter *redis_rate.Limiter
	prefix  string
}

// NewRedis returns a limiter on the client; keys are stored under prefix.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{limiter: redis_rate.NewLimiter(client), prefix: prefix}
}

// Allow counts one request for key. It fails when Redis cannot be reached
// in time; the caller decides whether to refuse or fall back.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
	defer cancel()
	res, err := r.limiter.Allow(ctx, r.prefix+key, redis_rate.Limit{Rate: l.Rate, Burst: l.Rate, Period: l.Period})
	if err != nil {
		return Result{}, fmt.Errorf("rate limiter: %w", err)
	}
	now := time.Now()
	out := Result{Allowed: res.Allowed > 0, Limit: l.Rate, Remaining: res.Remaining, ResetAt: now.Add(res.ResetAfter)}
	if !out.Allowed {
		out.RetryAfter = res.RetryAfter
	}
	return out, nil
}

// Fallback is a Limiter that asks Primary and, when Primary fails, counts
// in Local instead, so that a service whose shared limiter is down keeps
// serving every route with a limit per replica rather than failing or
// going unlimited. OnFallback, if set, hears of each failure (for a
// metric); OnChange, if set, hears once when Primary starts failing and
// once when it answers again (for the log).
type Fallback struct {
	Primary    Limiter
	Local      Limiter
	OnFallback func(error)
	OnChange   func(down bool, err error)
	down       atomic.Bool
}

// Allow counts one request for key.
func (f *Fallback) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	res, err := f.Primary.Allow(ctx, key, l)
	if err == nil {
		if f.down.CompareAndSwap(true, false) && f.OnChange != nil {
			f.OnChange(false, nil)
		}
		return res, nil
	}
	if f.OnFallback != nil {
		f.OnFallback(err)
	}
	if f.down.CompareAndSwap(false, true) && f.OnChange != nil {
		f.OnChange(true, err)
	}
	return f.Local.Allow(ctx, key, l)
}
