package guidehttp_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// BenchmarkCatalogHTTP is issue 16's catalogue target through the real
// router with the page cache off: list pages of 20 over every documented
// filter, sort and locale, pages 1 to 50, one request at a time (one
// connection), in a seeded random order, at each scale of
// BENCH_CATALOG_SCALES (default 1; ×1000 is 49,000 experts, 129,000
// packages, 36,000 travelogues and takes minutes to load). It reports the
// p50 and p99 in milliseconds and the requests per CPU-second: this
// process's CPU, plus on PostgreSQL the CPU of the database's backends
// (read from /proc; "pg-cpu-unseen" is 1 when they could not be read).
// It also reports the p50 of the first pages alone, which exist at every
// scale (at ×1 most deeper pages are past the end, answered from the
// total), so that their cost compares from ×1 to ×1000, and of the first
// pages that hold 20 items ("page1-full", with their share of the first
// pages): at ×1 a selective filter's first page holds a few, and costs
// less for that, not for the catalogue's size.
// BENCH_CATALOG_SLOWEST=n logs the n slowest requests;
// BENCH_CATALOG_PAGES=1,2 reads only those pages.
// Requests skip the network and the OpenAPI validation of the API tests.
//
//	BENCH_CATALOG_SCALES=1,1000 TEST_POSTGRES_URL=… go test -run '^$' -bench CatalogHTTP -benchtime 2000x ./internal/guide/guidehttp/
func BenchmarkCatalogHTTP(b *testing.B) {
	scales := []int{1}
	if v := os.Getenv("BENCH_CATALOG_SCALES"); v != "" {
		scales = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("BENCH_CATALOG_SCALES=%q: want scales such as 1,1000", v)
			}
			scales = append(scales, n)
		}
	}
	slowest, _ := strconv.Atoi(os.Getenv("BENCH_CATALOG_SLOWEST"))
	pages := []int{1, 2, 10, 25, 50}
	if v := os.Getenv("BENCH_CATALOG_PAGES"); v != "" {
		pages = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 50 {
				b.Fatalf("BENCH_CATALOG_PAGES=%q: want pages such as 1,2 (at most 50)", v)
			}
			pages = append(pages, n)
		}
	}
	for _, eng := range storetest.Engines() {
		for _, scale := range scales {
			b.Run(fmt.Sprintf("%s/x%d", eng, scale), func(b *testing.B) {
				e := newEnv(b, options{noIdP: true, noPageCache: true, scale: scale, publicLimit: 1 << 30}, eng)
				urls := catalogURLs(b, e, pages)
				cpu0, pg0 := processCPU(), backendsCPU(pgBackends(b, e, eng))
				took := make([]time.Duration, 0, b.N)
				var firstPages []time.Duration // the pages 1, which exist at every scale
				var fullFirst []time.Duration  // the pages 1 of 20 items: at ×1 a filter's first page may hold fewer
				var slow []slowPage
				i := 0
				for b.Loop() {
					req := httptest.NewRequest(http.MethodGet, urls[i%len(urls)], nil)
					rec := httptest.NewRecorder()
					start := time.Now()
					e.srv.ServeHTTP(rec, req)
					took = append(took, time.Since(start))
					items := -1 // not counted
					if strings.Contains(urls[i%len(urls)], "&page=1&") {
						firstPages = append(firstPages, took[len(took)-1])
						var page struct{ Data []json.RawMessage }
						if err := json.Unmarshal(rec.Body.Bytes(), &page); err == nil {
							items = len(page.Data)
						}
						if items == 20 {
							fullFirst = append(fullFirst, took[len(took)-1])
						}
					}
					if slowest > 0 {
						slow = append(slow, slowPage{took[len(took)-1], urls[i%len(urls)], items})
					}
					if rec.Code != http.StatusOK {
						b.Fatalf("GET %s: %d %s", urls[i%len(urls)], rec.Code, rec.Body)
					}
					i++
				}
				cpu := processCPU() - cpu0
				if eng == store.Postgres {
					// Backends opened during the run count whole; one that
					// ended during it took its CPU time along.
					pg1 := backendsCPU(pgBackends(b, e, eng))
					for pid, t0 := range pg0 {
						if _, ok := pg1[pid]; !ok || t0 < 0 {
							b.ReportMetric(1, "pg-cpu-unseen")
						}
					}
					for pid, t1 := range pg1 {
						if t1 < 0 {
							b.ReportMetric(1, "pg-cpu-unseen")
							continue
						}
						cpu += t1 - max(pg0[pid], 0)
					}
				}
				slices.Sort(took)
				slices.Sort(firstPages)
				slices.Sort(fullFirst)
				slices.SortFunc(slow, func(a, b slowPage) int { return int(b.took - a.took) })
				for _, p := range slow[:min(slowest, len(slow))] {
					b.Logf("%7.3f ms %2d items %s", float64(p.took.Microseconds())/1000, p.items, p.url)
				}
				at := func(took []time.Duration, q float64) float64 {
					return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000
				}
				b.ReportMetric(at(took, 0.50), "p50-ms")
				b.ReportMetric(at(took, 0.99), "p99-ms")
				if len(firstPages) > 0 {
					b.ReportMetric(at(firstPages, 0.50), "page1-p50-ms")
				}
				if len(fullFirst) > 0 {
					b.ReportMetric(at(fullFirst, 0.50), "page1-full-p50-ms")
					b.ReportMetric(float64(len(fullFirst))/float64(len(firstPages)), "page1-full-share")
				}
				b.ReportMetric(float64(len(took))/cpu.Seconds(), "req/cpu-s")
			})
		}
	}
}

// slowPage is one request of BenchmarkCatalogHTTP, kept to log the
// slowest (BENCH_CATALOG_SLOWEST=n; with -test.v, more than 10).
type slowPage struct {
	took  time.Duration
	url   string
	items int // on a first page; -1 on the others
}

// catalogURLs lists the pages the benchmark reads, shuffled with a fixed
// seed: each list's documented filters (the first two cities, languages
// and specialties the API lists, three countries, two categories), sorts
// and orders, in every locale, at the given pages.
func catalogURLs(b *testing.B, e *env, pages []int) []string {
	var cities struct{ Data []struct{ Name string } }
	e.Get("/api/v1/cities").Expect(200).Decode(&cities)
	var specialties struct{ Data []string }
	e.Get("/api/v1/specialties").Expect(200).Decode(&specialties)
	if len(cities.Data) < 2 || len(specialties.Data) < 2 {
		b.Fatalf("cities %v, specialties %v", cities.Data, specialties.Data)
	}
	expertFilters := []string{"", "city=" + cities.Data[0].Name, "city=" + cities.Data[1].Name, "language=ja", "language=en",
		"specialty=" + specialties.Data[0], "specialty=" + specialties.Data[1], "country=JP", "country=KR", "country=TW"}
	packageFilters := []string{"", "country=JP", "country=CN", "country=KR", "category=food", "category=culture"}
	travelogueFilters := []string{"", "category=food", "category=culture"}
	var urls []string
	add := func(path string, filters, sorts []string) {
		for _, f := range filters {
			for _, sort := range sorts {
				for _, order := range []string{"asc", "desc"} {
					for _, locale := range guide.Locales {
						for _, page := range pages {
							q := fmt.Sprintf("pageSize=20&page=%d&sort=%s&order=%s&locale=%s", page, sort, order, locale)
							if f != "" {
								q += "&" + f
							}
							urls = append(urls, path+"?"+q)
						}
					}
				}
			}
		}
	}
	add("/api/v1/experts", expertFilters, []string{"rating", "reviewCount", "createdAt"})
	add("/api/v1/packages", packageFilters, []string{"basePrice", "duration", "createdAt"})
	add("/api/v1/travelogues", travelogueFilters, []string{"hotScore", "score", "viewCount", "createdAt", "publishedAt"})
	rand.New(rand.NewPCG(16, 16)).Shuffle(len(urls), func(i, j int) { urls[i], urls[j] = urls[j], urls[i] })
	return urls
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pgBackends lists the PostgreSQL backends of the env's database (its
// pool keeps every connection it opens, so the set holds for the run): those
// with its application name, the test's schema (storetest), not those of
// other tests sharing the database.
func pgBackends(b *testing.B, e *env, eng store.Engine) []int {
	if eng != store.Postgres {
		return nil
	}
	rows, err := e.db.QueryContext(b.Context(), `SELECT pid FROM pg_stat_activity
		WHERE application_name = current_setting('application_name') AND backend_type = 'client backend'`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// backendsCPU is the CPU time each of the processes pids has used, from
// /proc/<pid>/stat (in clock ticks of 10 ms); -1 for one that cannot be
// read.
func backendsCPU(pids []int) map[int]time.Duration {
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		out[pid] = -1
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: utime and
		// stime are the 12th and 13th.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 13 {
			continue
		}
		u, _ := strconv.Atoi(fields[11])
		s, _ := strconv.Atoi(fields[12])
		out[pid] = time.Duration(u+s) * 10 * time.Millisecond
	}
	return out
}
