package clock

import (
	"testing"
	"time"
)

func TestLoadLocation(t *testing.T) {
	t.Parallel()
	for range 2 { // the second time from the cache
		loc, err := LoadLocation("Asia/Tokyo")
		if err != nil {
			t.Fatal(err)
		}
		if _, off := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Zone(); off != 9*3600 {
			t.Fatalf("Asia/Tokyo offset %d, want %d", off, 9*3600)
		}
	}
	for _, bad := range []string{"Mars/Olympus_Mons", "../../etc/passwd"} {
		if _, err := LoadLocation(bad); err == nil {
			t.Errorf("LoadLocation(%q): no error", bad)
		}
		if _, ok := locations.Load(bad); ok {
			t.Errorf("%q was cached", bad)
		}
	}
}
