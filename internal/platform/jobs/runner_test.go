package jobs_test

import (
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/jobs"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt, want := range map[int]time.Duration{
		0: 30 * time.Second, 1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 4 * time.Minute,
		7: 32 * time.Minute, 8: time.Hour, 9: time.Hour, 64: time.Hour,
	} {
		if got := jobs.Backoff(attempt); got != want {
			t.Errorf("Backoff(%d) = %v; want %v", attempt, got, want)
		}
	}
}
