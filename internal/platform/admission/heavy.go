// Package admission bounds the work a request may start that takes much CPU
// or memory: decoding an uploaded image, hashing or checking a password,
// drawing a sample picture. Each job holds one worker slot (there are as
// many as cores) and its share of a memory budget while it runs; when
// either is spent, further jobs queue, first come first served, for as
// long as their request's context allows, instead of taking every core
// and the process's memory.
package admission

import (
	"context"
	"runtime"

	"golang.org/x/sync/semaphore"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Memory is the budget shared by the jobs that run at once, in bytes: one
// decode of the largest image accepted (128 MB for 16 megapixels of
// 16-bit colour) with room for a few password hashes beside it.
const Memory = 192 << 20

// Limiter admits jobs within a number of workers and a memory budget.
type Limiter struct {
	workers, memory *semaphore.Weighted
	budget          int64
}

// New returns a limiter of the given workers and memory budget in bytes.
func New(workers int, memory int64) *Limiter {
	return &Limiter{workers: semaphore.NewWeighted(int64(workers)), memory: semaphore.NewWeighted(memory), budget: memory}
}

// Default is the process-wide limiter: GOMAXPROCS workers, Memory bytes.
var Default = New(runtime.GOMAXPROCS(0), Memory)

// Do runs fn on Default; see Limiter.Do.
func Do(ctx context.Context, mem int64, fn func()) error { return Default.Do(ctx, mem, fn) }

// Do runs fn once a worker and mem bytes of the budget are free (a job
// larger than the whole budget waits for all of it). If ctx ends first,
// fn does not run and the error is ErrBusy: SERVICE_UNAVAILABLE,
// retriable (or the client has gone, and hears nothing). After a job of
// half the budget or more, a garbage collection runs before its share is
// released.
func (l *Limiter) Do(ctx context.Context, mem int64, fn func()) error {
	mem = min(max(mem, 0), l.budget)
	// Memory first: a large job waiting for its share holds no worker
	// that a small one could use.
	if err := l.memory.Acquire(ctx, mem); err != nil {
		return ErrBusy
	}
	defer l.memory.Release(mem)
	if err := l.workers.Acquire(ctx, 1); err != nil {
		return ErrBusy
	}
	defer l.workers.Release(1)
	fn()
	if 2*mem >= l.budget {
		// The job's memory is garbage now. Collected before the next job
		// may start, it is reused; left to the collector's pace (which
		// lets the heap grow to twice what was live, and that was during
		// this job), the next large job would grow the heap by as much.
		runtime.GC()
	}
	return nil
}

// ErrBusy is the error of a job whose context ended while it waited.
var ErrBusy = &apperr.Error{Code: apperr.Unavailable, Message: "The server is busy with other costly requests; retry shortly.", RetryAfter: 1}
