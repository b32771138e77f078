package guide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseTime: dates are accepted only as RFC 3339 within 2000–2100, in
// UTC at microsecond precision.
func FuzzParseTime(f *testing.F) {
	for _, seed := range []string{"2027-01-15T09:00:00+09:00", "2027-01-15", "tomorrow", "9999-12-31T23:59:59Z", "2027-02-30T00:00:00Z", "2027-01-15T09:00:00.123456789Z", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, ok := parseTime(s)
		if !ok {
			return
		}
		got := map[string]any{
			"utc": tm.Location() == time.UTC, "yearInRange": tm.Year() >= 2000 && tm.Year() <= 2100,
			"wholeMicroseconds": tm.Nanosecond()%1000 == 0,
		}
		want := map[string]any{"utc": true, "yearInRange": true, "wholeMicroseconds": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q parsed to %v (-want +got):\n%s", s, tm, diff)
		}
	})
}
