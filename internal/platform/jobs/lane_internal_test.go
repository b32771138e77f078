package jobs

import (
	"strconv"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// TestLaneBounded: the lane holds at most laneCapacity jobs and drops the
// rest (they run after their leases); a round takes at most laneBatch and
// leaves the rest signalled for the next.
func TestLaneBounded(t *testing.T) {
	t.Parallel()
	r := &Runner{}
	for i := range laneCapacity + 10 {
		r.take(store.Job{ID: strconv.Itoa(i), Kind: "realtime.message"})
	}
	l := r.laneState()
	if len(l.jobs) != laneCapacity || !l.full {
		t.Fatalf("lane holds %d jobs (full %v); want %d", len(l.jobs), l.full, laneCapacity)
	}
	if last := l.jobs[len(l.jobs)-1].ID; last != strconv.Itoa(laneCapacity-1) {
		t.Fatalf("last job held %s; want the last taken before the lane was full", last)
	}
	l.jobs = l.jobs[:laneBatch+1]
	<-l.ready
	// Too old to run within their leases: the round skips them, and has
	// nothing to complete (the runner has no queue to reach).
	for i := range l.jobs {
		l.jobs[i].CreatedAt = r.Now().Add(-store.DirectLease)
	}
	if n := r.laneRound(t.Context()); n != laneBatch {
		t.Fatalf("a round took %d jobs; want %d", n, laneBatch)
	}
	select {
	case <-l.ready:
	default:
		t.Fatal("the job left over was not signalled")
	}
	if len(l.jobs) != 1 {
		t.Fatalf("%d jobs left; want 1", len(l.jobs))
	}
}
