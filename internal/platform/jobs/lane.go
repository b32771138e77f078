package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// The lane holds the direct jobs (Kind.Direct) the store handed over as
// their transactions committed (Runner.Handoff): they are handled without
// a claim and completed in batches.

const (
	// laneCapacity bounds the jobs the lane holds; past it a job waits
	// for its lease to run out and is claimed then.
	laneCapacity = 4096
	// laneBatch bounds the jobs of one round: handled within one
	// laneTimeout and completed in one statement.
	laneBatch = 256
	// laneTimeout bounds a round's attempts, well inside the lease.
	laneTimeout = 10 * time.Second
)

// lane holds the jobs handed to the runner.
type lane struct {
	mu    sync.Mutex
	jobs  []store.Job
	ready chan struct{} // signalled when jobs is no longer empty
	full  bool          // jobs were dropped since the lane was last below capacity
}

// take queues a job handed over by its committed transaction; it never
// blocks.
func (r *Runner) take(j store.Job) {
	l := r.laneState()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.jobs) >= laneCapacity {
		if !l.full { // once per overflow, not per job
			l.full = true
			r.logger().Warn("worker: lane full; the jobs it drops run once their leases have run out", "first", j.ID, "kind", j.Kind)
		}
		return
	}
	l.full = false
	l.jobs = append(l.jobs, j)
	signal(l.ready)
}

func (r *Runner) laneState() *lane {
	r.laneOnce.Do(func() { r.lane = &lane{ready: make(chan struct{}, 1)} })
	return r.lane
}

// runLane handles the lane's jobs until ctx ends, then those it still
// holds, with jobCtx (once jobCtx ends, their attempts are released, not
// counted).
func (r *Runner) runLane(ctx, jobCtx context.Context) {
	l := r.laneState()
	for {
		select {
		case <-ctx.Done():
			for r.laneRound(jobCtx) > 0 {
			}
			return
		case <-l.ready:
			r.laneRound(jobCtx)
		}
	}
}

// laneRound works through the jobs the lane holds, up to laneBatch of
// them (Runner.work) within laneTimeout, and returns how many it took. A
// job held so long that its lease could run out during the attempt is left
// to the runner that will claim it.
func (r *Runner) laneRound(ctx context.Context) int {
	l := r.laneState()
	l.mu.Lock()
	jobs := l.jobs[:min(len(l.jobs), laneBatch)]
	l.jobs = l.jobs[len(jobs):]
	if len(l.jobs) > 0 {
		signal(l.ready) // the rest make the next round
	}
	l.mu.Unlock()
	if len(jobs) == 0 {
		return 0
	}
	fresh := jobs[:0:0]
	for _, j := range jobs {
		if r.Now().Sub(j.CreatedAt) <= store.DirectLease-laneTimeout {
			fresh = append(fresh, j)
		}
	}
	if err := r.work(ctx, fresh, laneTimeout); err != nil {
		// Jobs not completed run again once their leases have run out.
		r.logger().ErrorContext(ctx, "worker: recording lane jobs' outcomes failed", "err", err)
	}
	return len(jobs)
}
