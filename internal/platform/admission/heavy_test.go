package admission

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// TestBounds: no more jobs run at once than workers, and no more memory
// is held than the budget, however many are started.
func TestBounds(t *testing.T) {
	l := New(3, 100)
	var running, peakJobs, held, peakMem atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		mem := int64(10 + 20*(i%4)) // 10, 30, 50, 70
		wg.Go(func() {
			err := l.Do(context.Background(), mem, func() {
				n, m := running.Add(1), held.Add(mem)
				for p := peakJobs.Load(); n > p && !peakJobs.CompareAndSwap(p, n); p = peakJobs.Load() {
				}
				for p := peakMem.Load(); m > p && !peakMem.CompareAndSwap(p, m); p = peakMem.Load() {
				}
				for range 1000 {
					_ = make([]byte, 64) // some work while holding the slot
				}
				running.Add(-1)
				held.Add(-mem)
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peakJobs.Load() > 3 || peakMem.Load() > 100 {
		t.Errorf("peak %d jobs and %d bytes; bounds 3 and 100", peakJobs.Load(), peakMem.Load())
	}
}

// TestWaitEndsWithContext: a job waiting for a slot gives up when its
// context ends, without running, with a retriable 503.
func TestWaitEndsWithContext(t *testing.T) {
	l := New(1, 100)
	hold, release := make(chan struct{}), make(chan struct{})
	go l.Do(context.Background(), 100, func() { close(hold); <-release })
	<-hold
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	ran := false
	go func() { done <- l.Do(ctx, 1, func() { ran = true }) }()
	cancel()
	err := <-done
	close(release)
	if ran || apperr.Code(err) != apperr.Unavailable {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	// A job larger than the budget still runs, alone.
	if err := l.Do(context.Background(), 1000, func() { ran = true }); err != nil || !ran {
		t.Fatalf("oversized job: %v", err)
	}
}
