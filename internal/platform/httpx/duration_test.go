package httpx

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		10 * time.Minute:                      "10 minutes",
		time.Minute:                           "1 minute",
		15 * time.Minute:                      "15 minutes",
		time.Hour:                             "1 hour",
		90 * time.Minute:                      "1 hour 30 minutes",
		24 * time.Hour:                        "1 day",
		45*time.Second + 400*time.Millisecond: "45 seconds",
		1 * time.Second:                       "1 second",
		0:                                     "0 seconds",
	} {
		if got := HumanDuration(d); got != want {
			t.Errorf("HumanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
