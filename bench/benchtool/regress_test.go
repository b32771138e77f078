package main

import (
	"strings"
	"testing"
)

// TestRegressions divides each of our workloads by its ceiling (quotebook
// by booking_user's), takes the median of the runs, and names the
// workloads past the tolerance and those the run lacks.
func TestRegressions(t *testing.T) {
	results := strings.Join([]string{
		`{"system":"ceiling","db":"","workload":"booking_user","phase":"max","perCore":60000}`,
		`{"system":"ceiling","db":"","workload":"list","phase":"max","perCore":50000}`,
		`{"system":"ours","db":"sqlite","workload":"booking_user","phase":"max","perCore":5000}`,
		`{"system":"ours","db":"sqlite","workload":"booking_user","phase":"max","perCore":6000}`,
		`{"system":"ours","db":"sqlite","workload":"booking_user","phase":"max","perCore":7000}`,
		`{"system":"ours","db":"sqlite","workload":"booking_user","phase":"fixed","perCore":100}`,
		`{"system":"ours","db":"sqlite","workload":"list","phase":"max","perCore":25000}`,
		`{"system":"ours","db":"sqlite","workload":"quotebook","phase":"max","perCore":2000}`,
	}, "\n")
	got, err := costRatios(strings.NewReader(results))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"sqlite/booking_user": 10, "sqlite/list": 2, "sqlite/quotebook": 30}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("ratios %v, want %v", got, want)
	}
	b := Baseline{Tolerance: 1.5, Ratios: map[string]float64{"sqlite/booking_user": 6.5, "sqlite/list": 1.5, "sqlite/quotebook": 20, "postgres/message": 30}}
	bad := regressions(b, got)
	if len(bad) != 2 || !strings.HasPrefix(bad[0], "postgres/message: not measured") || !strings.HasPrefix(bad[1], "sqlite/booking_user: costs 10.0×") {
		t.Errorf("regressions = %q", bad)
	}
}
