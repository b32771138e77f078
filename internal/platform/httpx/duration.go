package httpx

import (
	"strconv"
	"strings"
	"time"
)

// HumanDuration writes d for people: "10 minutes", "1 hour 30 minutes",
// "45 seconds", "1 day", instead of Go's "10m0s". Whole seconds are kept;
// zero parts are left out.
func HumanDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d <= 0 {
		return "0 seconds"
	}
	var parts []string
	for _, u := range []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}} {
		n := d / u.size
		if n == 0 {
			continue
		}
		d -= n * u.size
		s := strconv.FormatInt(int64(n), 10) + " " + u.name
		if n != 1 {
			s += "s"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
