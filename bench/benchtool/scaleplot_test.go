package main

import (
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runOutput is the scale section's output as bench/run.sh writes it: the
// benchmarks run with GOMAXPROCS=1, so their names carry no "-N" suffix,
// and the property date search reports cpu-ms/op before its percentiles.
const runOutput = `goos: linux
goarch: amd64
pkg: github.com/wayfarer-asia/platform/internal/guide/guidedb
cpu: AMD EPYC
BenchmarkCatalogScale/sqlite/x1/experts-p1         	     300	    313830 ns/op	         0.2590 p50-ms	         0.8700 p99-ms
BenchmarkCatalogScale/sqlite/x1/packages-JP-p1     	     300	    313830 ns/op	         0.2590 p50-ms	         0.8700 p99-ms
BenchmarkCatalogScale/sqlite/x1/experts-recount    	     300	      9485 ns/op	         0.007000 p50-ms	         0.01600 p99-ms
BenchmarkCatalogScale/sqlite/x10/experts-p1        	     300	    793828 ns/op	         0.3800 p50-ms	        14.05 p99-ms
BenchmarkCatalogScale/sqlite/x10/packages-JP-p1    	     300	    299146 ns/op	         0.2550 p50-ms	         0.6450 p99-ms
PASS
pkg: github.com/wayfarer-asia/platform/internal/property/propertydb
BenchmarkPropertyDateSearch/sqlite/x1         	     200	    878295 ns/op	         0.8542 cpu-ms/op	         0.7080 p50-ms	         2.985 p99-ms	   40861 B/op	     566 allocs/op
PASS
pkg: github.com/wayfarer-asia/platform/internal/guide/guidehttp
BenchmarkCatalogHTTP/sqlite/x1         	    2000	    188621 ns/op	         0.06300 p50-ms	         0.7690 p99-ms	         0.4270 page1-full-p50-ms	         0.4355 page1-full-share	         0.3410 page1-p50-ms	      5309 req/cpu-s
BenchmarkCatalogHTTP/sqlite/x10        	    2000	    420610 ns/op	         0.3290 p50-ms	         1.474 p99-ms	         0.5230 page1-full-p50-ms	         0.9538 page1-full-share	         0.5100 page1-p50-ms	      2438 req/cpu-s
PASS
`

func TestParseScaleLine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       scalePoint
		ok         bool
	}{{
		name: "GOMAXPROCS=1, no suffix",
		line: "BenchmarkCatalogScale/sqlite/x10/packages-JP-p1    \t     300\t    299146 ns/op\t         0.2550 p50-ms\t         0.6450 p99-ms",
		want: scalePoint{engine: "sqlite", series: "packages-JP-p1", scale: 10, p50: 0.255, p99: 0.645},
		ok:   true,
	}, {
		name: "GOMAXPROCS=8, suffixed",
		line: "BenchmarkCatalogScale/postgres/x100/packages-JP-p1-8 \t 300\t 299146 ns/op\t 3.2 p50-ms\t 12.5 p99-ms",
		want: scalePoint{engine: "postgres", series: "packages-JP-p1", scale: 100, p50: 3.2, p99: 12.5},
		ok:   true,
	}, {
		name: "through the router, metrics after the percentiles",
		line: "BenchmarkCatalogHTTP/postgres/x1000         \t    2000\t    420610 ns/op\t         1.310 p50-ms\t         3.190 p99-ms\t         1.234 page1-full-p50-ms\t      651 req/cpu-s",
		want: scalePoint{engine: "postgres", series: httpCase, scale: 1000, p50: 1.31, p99: 3.19},
		ok:   true,
	}, {
		name: "through the router, suffixed",
		line: "BenchmarkCatalogHTTP/sqlite/x1-2 \t 2000\t 188621 ns/op\t 0.06300 p50-ms\t 0.7690 p99-ms",
		want: scalePoint{engine: "sqlite", series: httpCase, scale: 1, p50: 0.063, p99: 0.769},
		ok:   true,
	}, {
		name: "a fractional ns/op",
		line: "BenchmarkCatalogScale/sqlite/x1/experts-p1 \t 300\t 950.5 ns/op\t 0.2 p50-ms\t 0.9 p99-ms",
		want: scalePoint{engine: "sqlite", series: "experts-p1", scale: 1, p50: 0.2, p99: 0.9},
		ok:   true,
	}, {
		name: "the recount is no page",
		line: "BenchmarkCatalogScale/sqlite/x1/experts-recount    \t     300\t      9485 ns/op\t         0.007000 p50-ms\t         0.01600 p99-ms",
	}, {
		name: "the property date search is no catalogue page",
		line: "BenchmarkPropertyDateSearch/sqlite/x1         \t     200\t    878295 ns/op\t         0.8542 cpu-ms/op\t         0.7080 p50-ms\t         2.985 p99-ms",
	}, {
		name: "no p99",
		line: "BenchmarkCatalogScale/sqlite/x1/experts-p1 \t 300\t 313830 ns/op\t 0.2590 p50-ms",
	}, {
		name: "not a result",
		line: "pkg: github.com/wayfarer-asia/platform/internal/guide/guidedb",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseScaleLine(tc.line)
			if ok != tc.ok || got != tc.want {
				t.Errorf("parseScaleLine(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestScalePlotReadsRunOutput draws the plot from the output bench/run.sh
// writes, as its scale section does.
func TestScalePlotReadsRunOutput(t *testing.T) {
	var series []string
	for _, line := range strings.Split(runOutput, "\n") {
		if p, ok := parseScaleLine(line); ok {
			series = append(series, p.engine+"/"+p.series)
		}
	}
	want := []string{"sqlite/experts-p1", "sqlite/packages-JP-p1", "sqlite/experts-p1", "sqlite/packages-JP-p1", "sqlite/" + httpCase, "sqlite/" + httpCase}
	if !slices.Equal(series, want) {
		t.Fatalf("points read = %v, want %v", series, want)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "scale.txt"), filepath.Join(dir, "scale.png")
	if err := os.WriteFile(in, []byte(runOutput), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := scalePlot([]string{"-in", in, "-out", out}); err != nil {
		t.Fatalf("scaleplot: %v", err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatalf("scale.png: %v", err)
	}
}

func TestScalePlotRefusesOutputWithoutPages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "scale.txt")
	only := "BenchmarkPropertyDateSearch/sqlite/x1 \t 200\t 878295 ns/op\t 0.8542 cpu-ms/op\t 0.7080 p50-ms\t 2.985 p99-ms\nPASS\n"
	if err := os.WriteFile(in, []byte(only), 0o600); err != nil {
		t.Fatal(err)
	}
	err := scalePlot([]string{"-in", in, "-out", filepath.Join(dir, "scale.png")})
	if err == nil || !strings.Contains(err.Error(), "no benchmark lines with p50-ms and p99-ms") {
		t.Fatalf("scaleplot on output without catalogue pages: err = %v, want the no-lines error", err)
	}
}
