package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportRendersSummaryAgain renders a summary of a full run
// (testdata/summary.json, bench/summary.json of 24 Nov at 08215fa) into a
// new file, then again into the same file: the headline comes first, and
// a second report replaces both sections instead of adding to them.
func TestReportRendersSummaryAgain(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "BENCHMARKS.md")
	if err := os.WriteFile(md, []byte("# Benchmarks\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-aggregates", filepath.Join("testdata", "summary.json"), "-workers", "50", "-md", md,
		"-png", filepath.Join(dir, "latency.png"), "-png-link", "latency.png", "-run", "the last full run"}
	for range 2 {
		if err := report(args); err != nil {
			t.Fatalf("report: %v", err)
		}
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, marker := range []string{headlineSection.begin, headlineSection.end, resultsSection.begin, resultsSection.end, "## Headline", "## Results"} {
		if n := strings.Count(s, marker); n != 1 {
			t.Errorf("%q appears %d times, want once", marker, n)
		}
	}
	head, results := strings.Index(s, headlineSection.begin), strings.Index(s, resultsSection.begin)
	if head < 0 || results < head {
		t.Fatalf("headline at %d, results at %d: want the headline first", head, results)
	}
	headline := s[head:strings.Index(s, headlineSection.end)]
	for _, want := range []string{
		"Run of the last full run.",
		"| `list` | 40266 | 38031 | 70166 | 756 | 0.57 | 53.28 | 5.0 / 4.4 ms | ≥ 0.6 × ceiling, SQLite: **missed** (0.57);",
		"| `quotebook` | 4988 | 1014 | – | – | – | – | 24.1 / 7.5 ms |",
		"peak RSS < 150 MB: **missed** (277 MB)",
	} {
		if !strings.Contains(headline, want) {
			t.Errorf("headline lacks %q:\n%s", want, headline)
		}
	}
	if !strings.Contains(s[results:], "| Catalogue list ≥ 0.6 × ceiling (SQLite) | 40266 ÷ 70166 req per CPU-second = 0.57") {
		t.Errorf("the results section lacks the targets of issue 10")
	}
}

// TestHeadlineLeavesOutWorkloadsNotRun: a run of some WORKLOADS has no
// row, and no verdict, for the others.
func TestHeadlineLeavesOutWorkloadsNotRun(t *testing.T) {
	var list []*Agg
	if err := readJSON(filepath.Join("testdata", "summary.json"), &list); err != nil {
		t.Fatal(err)
	}
	aggs := map[string]*Agg{}
	for _, a := range list {
		if a.Workload == "list" || a.Workload == "peer_list" {
			aggs[key(a.System, a.DB, a.Workload, a.Phase)] = a
		}
	}
	get := func(system, db, w, phase string) *Agg { return aggs[key(system, db, w, phase)] }
	got := headline(get, evaluate(get, map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}), "")
	if !strings.Contains(got, "| `list` | 40266 | 38031 | 70166 | 756 |") {
		t.Errorf("headline lacks the list row:\n%s", got)
	}
	for _, w := range []string{"detail", "packages", "booking_user", "booking_key", "message", "mixed", "quotebook"} {
		if strings.Contains(got, "| `"+w+"` |") {
			t.Errorf("headline has a row for %s, which did not run:\n%s", w, got)
		}
	}
}
