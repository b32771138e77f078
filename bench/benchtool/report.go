package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Agg is the median of a workload's runs on one system and phase.
type Agg struct {
	System, DB, Workload, Phase string
	Runs                        int
	Throughput, TMin, TMax      float64
	Rate, TargetRate            float64
	P50, P99                    float64
	Success                     float64 // lowest of the runs
	Failed                      int     // non-2xx answers and transport errors, all runs
	Locked                      int
	BytesIn                     float64
	CPU, CoreBusy, PerCore      float64
	CPUBasis                    string
	PeakRSSKB                   int64
	Errors                      []string
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func aggregate(runs []Run) map[string]*Agg {
	groups := map[string][]Run{}
	for _, r := range runs {
		k := key(r.System, r.DB, r.Workload, r.Phase)
		groups[k] = append(groups[k], r)
	}
	out := map[string]*Agg{}
	for k, rs := range groups {
		a := &Agg{System: rs[0].System, DB: rs[0].DB, Workload: rs[0].Workload, Phase: rs[0].Phase, Runs: len(rs), Success: 1}
		var tp, rate, p50, p99, bytes, cpu, busy, perCore []float64
		for _, r := range rs {
			tp, rate, p50, p99 = append(tp, r.Throughput), append(rate, r.Rate), append(p50, r.P50ms), append(p99, r.P99ms)
			bytes, cpu, busy, perCore = append(bytes, r.BytesIn), append(cpu, r.CPU), append(busy, r.CoreBusy), append(perCore, r.PerCore)
			a.CPUBasis = r.CPUBasis
			a.Success = min(a.Success, r.Success)
			for code, n := range r.Status {
				if !strings.HasPrefix(code, "2") {
					a.Failed += n
				}
			}
			a.Locked += r.Locked
			a.PeakRSSKB = max(a.PeakRSSKB, r.PeakRSSKB)
			a.TargetRate = r.TargetRate
			for _, e := range r.Errors {
				if !slices.Contains(a.Errors, e) && len(a.Errors) < 3 {
					a.Errors = append(a.Errors, e)
				}
			}
		}
		a.Throughput, a.TMin, a.TMax = median(tp), slices.Min(tp), slices.Max(tp)
		a.Rate, a.P50, a.P99, a.BytesIn, a.CPU = median(rate), median(p50), median(p99), median(bytes), median(cpu)
		a.CoreBusy, a.PerCore = median(busy), median(perCore)
		out[k] = a
	}
	return out
}

func key(system, db, workload, phase string) string {
	return system + "|" + db + "|" + workload + "|" + phase
}

// ceilingOf names the ceiling measurement a workload is compared with: a
// booking made with a key sends and receives what one made with a user
// token does.
func ceilingOf(w string) string {
	if w == "booking_key" {
		return "booking_user"
	}
	return w
}

// report writes the headline and results sections of BENCHMARKS.md, the
// latency plot and the summary for machines.
func report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	results := fs.String("results", "", "results.jsonl")
	aggregates := fs.String("aggregates", "", "instead of -results: the summary JSON of an earlier report, rendered again")
	workers := fs.Int("workers", 0, "the connections of the run (with -aggregates, which does not hold them)")
	md := fs.String("md", "BENCHMARKS.md", "markdown file whose headline and results sections are replaced")
	png := fs.String("png", "bench/latency.png", "latency plot")
	pngLink := fs.String("png-link", "bench/latency.png", "the plot's path as linked from the markdown file")
	summary := fs.String("summary", "", "summary JSON (optional)")
	machine := fs.String("machine", "", "file with the machine description and the exact commands (markdown)")
	run := fs.String("run", "", "the run's date, machine and commit, for the headline")
	fs.Parse(args)
	var aggs map[string]*Agg
	conns := fmt.Sprint(*workers)
	if *aggregates != "" {
		var list []*Agg
		if err := readJSON(*aggregates, &list); err != nil {
			return err
		}
		aggs = map[string]*Agg{}
		for _, a := range list {
			aggs[key(a.System, a.DB, a.Workload, a.Phase)] = a
		}
	} else {
		runs, err := loadRuns(*results)
		if err != nil {
			return err
		}
		aggs = aggregate(runs)
		if *workers == 0 {
			conns = workersOf(runs)
		}
	}
	get := func(system, db, w, phase string) *Agg { return aggs[key(system, db, w, phase)] }
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	if *machine != "" {
		m, err := os.ReadFile(filepath.Clean(*machine))
		if err != nil {
			return err
		}
		b.Write(m)
		p("\n")
	}
	dbs := []string{"sqlite", "postgres"}
	dbName := map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}

	// Summary.
	p("### Summary\n\n")
	p("Each cell: the median throughput of the runs with %s connections sending as fast as they can (`-rate=0`), the server's CPU use during them, "+
		"and the throughput **per second of server CPU time** (req/s ÷ CPU share) — the figure the ratios use, because on two cores vegeta's own core "+
		"saturates before a fast server's does (a server CPU well under 100%% means the client was the limit). "+
		"On PostgreSQL the CPU counts our server and the PostgreSQL backends of its database.\n\n", conns)
	p("| Workload | answer | ours, SQLite | ours, PostgreSQL | ceiling (bare net/http) | peer (PocketBase) |\n")
	p("|---|---:|---:|---:|---:|---:|\n")
	for _, w := range ourWorkloads {
		row := []string{"`" + w + "`", "–"}
		if a := get("ours", "sqlite", w, "max"); a != nil {
			row[1] = fmt.Sprintf("%.0f B", a.BytesIn)
		}
		for _, db := range dbs {
			row = append(row, tpCell(get("ours", db, w, "max")))
		}
		row = append(row, tpCell(get("ceiling", "", ceilingOf(w), "max")), tpCell(get("peer", "sqlite", peerOf[w], "max")))
		p("| %s |\n", strings.Join(row, " | "))
	}
	p("\nRatios, per second of server CPU time (in brackets: the plain req/s ratio):\n\n")
	p("| Workload | SQLite ÷ ceiling | PostgreSQL ÷ ceiling | SQLite ÷ peer | PostgreSQL ÷ peer |\n")
	p("|---|---:|---:|---:|---:|\n")
	for _, w := range ourWorkloads {
		c, peer := get("ceiling", "", ceilingOf(w), "max"), get("peer", "sqlite", peerOf[w], "max")
		row := []string{"`" + w + "`"}
		for _, other := range []*Agg{c, peer} {
			for _, db := range dbs {
				row = append(row, ratioCell(get("ours", db, w, "max"), other))
			}
		}
		p("| %s |\n", strings.Join(row, " | "))
	}
	p("\nLatency at a fixed rate of half each system's measured maximum, median p50 / p99:\n\n")
	p("| Workload | ours, SQLite | ours, PostgreSQL | ceiling | peer |\n")
	p("|---|---:|---:|---:|---:|\n")
	for _, w := range ourWorkloads {
		p("| `%s` | %s | %s | %s | %s |\n", w, latCell(get("ours", "sqlite", w, "fixed")), latCell(get("ours", "postgres", w, "fixed")),
			latCell(get("ceiling", "", ceilingOf(w), "fixed")), latCell(get("peer", "sqlite", peerOf[w], "fixed")))
	}
	p("\n![Latency at half the maximum rate](%s)\n\n", *pngLink)

	// What the summary cannot show: a core shared with other processes,
	// failed answers and the errors vegeta saw (every aggregate is in the
	// summary JSON).
	for _, w := range ourWorkloads {
		for _, r := range []struct{ label, system, db, w string }{
			{"ours, SQLite", "ours", "sqlite", w},
			{"ours, PostgreSQL", "ours", "postgres", w},
			{"ceiling", "ceiling", "", ceilingOf(w)},
			{"peer", "peer", "sqlite", peerOf[w]},
		} {
			a := get(r.system, r.db, r.w, "max")
			if a == nil || (r.system != "ours" && w == "booking_key") { // booking_key shares booking_user's ceiling and peer
				continue
			}
			if a.CPU < 0.85 && a.CoreBusy > 0.97 {
				p("Note (`%s`, %s): the server used %.0f%% of its core while the core was %.0f%% busy: other processes ran there (in the time the server left idle, or taking from it).\n\n", w, r.label, a.CPU*100, a.CoreBusy*100)
			}
			if a.Failed > 0 || a.Locked > 0 {
				p("Failed answers at the maximum (`%s`, %s): %s.\n\n", w, r.label, failedCell(a))
			}
			if len(a.Errors) > 0 {
				p("Errors seen by vegeta (`%s`, %s): `%s`\n\n", w, r.label, strings.Join(a.Errors, "`, `"))
			}
		}
	}

	// Targets of the issue.
	p("### Targets of issue 10\n\n")
	p("| Target | Measured | Verdict |\n|---|---|---|\n")
	verdicts := evaluate(get, dbName)
	for _, t := range verdicts {
		p("| %s | %s | %s |\n", t.target, t.measured, t.verdict)
	}
	p("\n")

	if err := replaceSection(*md, headlineSection, headline(get, verdicts, *run)); err != nil {
		return err
	}
	if err := replaceSection(*md, resultsSection, b.String()); err != nil {
		return err
	}
	if err := plotLatency(*png, aggs); err != nil {
		return err
	}
	if *summary != "" {
		var list []*Agg
		for _, a := range aggs {
			list = append(list, a)
		}
		slices.SortFunc(list, func(x, y *Agg) int {
			return strings.Compare(key(x.System, x.DB, x.Workload, x.Phase), key(y.System, y.DB, y.Workload, y.Phase))
		})
		return writeJSON(*summary, list)
	}
	return nil
}

func workersOf(runs []Run) string {
	for _, r := range runs {
		if r.Phase == "max" {
			return fmt.Sprint(r.Workers)
		}
	}
	return "?"
}

// tpCell is "req/s at CPU% → req per CPU-second".
func tpCell(a *Agg) string {
	if a == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f/s at %.0f%% → %.0f", a.Throughput, a.CPU*100, a.PerCore)
}

// ratioCell is the ratio per CPU-second, with the plain throughput ratio.
func ratioCell(a, b *Agg) string {
	if a == nil || b == nil || b.Throughput == 0 || b.PerCore == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f)", a.PerCore/b.PerCore, a.Throughput/b.Throughput)
}

func latCell(a *Agg) string {
	if a == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f / %.2f ms", a.P50, a.P99)
}

func failedCell(a *Agg) string {
	s := fmt.Sprint(a.Failed)
	if a.Locked > 0 {
		s += fmt.Sprintf(" (%d locked)", a.Locked)
	}
	return s
}

// verdict is one target of the issue against the run: the workload it
// belongs to ("" for the server as a whole), the target in full and in
// short, what was measured in full and in short (the short forms are for
// the headline), and whether it was met.
type verdict struct {
	workload, target, short, measured, value, verdict string
	met                                               bool
}

// evaluate checks the targets of the issue against the medians. Ratios
// to the ceiling and the peer are per second of server CPU time ("per core
// of server time"); absolute rates are the req/s measured.
func evaluate(get func(system, db, w, phase string) *Agg, dbName map[string]string) []verdict {
	var out []verdict
	judge := func(v verdict, by string) verdict {
		v.verdict = "**not met**"
		if v.met {
			v.verdict = "**met**"
		}
		if by != "" {
			v.verdict += " (" + by + ")"
		}
		out = append(out, v)
		return v
	}
	ratio := func(w, target, short string, a, b *Agg, want float64) {
		if a == nil || b == nil || b.PerCore == 0 {
			return
		}
		r := a.PerCore / b.PerCore
		judge(verdict{workload: w, target: target, short: short,
			measured: fmt.Sprintf("%.0f ÷ %.0f req per CPU-second = %.2f (plain req/s: %.0f ÷ %.0f = %.2f)",
				a.PerCore, b.PerCore, r, a.Throughput, b.Throughput, a.Throughput/b.Throughput),
			value: fmt.Sprintf("%.2f", r), met: r >= want}, fmt.Sprintf("%+.0f%% against the target", (r/want-1)*100))
	}
	rate := func(w, target, short string, a *Agg, want float64) {
		if a == nil {
			return
		}
		note := ""
		if a.CPU < 0.9 && a.CPUBasis != "core" {
			note = fmt.Sprintf("; the server used %.0f%% of its core, so it had room for about %.0f/s", a.CPU*100, a.PerCore)
		}
		judge(verdict{workload: w, target: target, short: short,
			measured: fmt.Sprintf("%.0f/s at %.0f%% server CPU", a.Throughput, a.CPU*100),
			value:    fmt.Sprintf("%.0f/s", a.Throughput), met: a.Throughput >= want},
			fmt.Sprintf("%+.0f%% against the target%s", (a.Throughput/want-1)*100, note))
	}
	listC := get("ceiling", "", "list", "max")
	ratio("list", "Catalogue list ≥ 0.6 × ceiling (SQLite)", "≥ 0.6 × ceiling, SQLite", get("ours", "sqlite", "list", "max"), listC, 0.6)
	ratio("list", "Catalogue list ≥ 0.6 × ceiling (PostgreSQL)", "≥ 0.6 × ceiling, PostgreSQL", get("ours", "postgres", "list", "max"), listC, 0.6)
	ratio("list", "Catalogue list ≥ 3 × peer (SQLite)", "≥ 3 × peer", get("ours", "sqlite", "list", "max"), get("peer", "sqlite", "peer_list", "max"), 3)
	peerCreate := get("peer", "sqlite", "peer_create", "max")
	for _, w := range []string{"booking_user", "booking_key"} {
		a := get("ours", "sqlite", w, "max")
		if a == nil {
			continue
		}
		rate(w, fmt.Sprintf("`%s` ≥ 2,000/s on SQLite", w), "≥ 2,000/s", a, 2000)
		judge(verdict{workload: w, target: fmt.Sprintf("`%s`: no \"database is locked\" at %d concurrent writers", w, 50), short: "no lock errors",
			measured: fmt.Sprintf("%d locked lines logged, %d failed answers", a.Locked, a.Failed),
			value:    fmt.Sprintf("%d locked, %d failed", a.Locked, a.Failed), met: a.Locked == 0 && a.Failed == 0}, "")
		ratio(w, fmt.Sprintf("`%s` ≥ 1.5 × peer's authenticated create", w), "≥ 1.5 × peer", a, peerCreate, 1.5)
	}
	rate("message", "Message send ≥ 2,500/s (SQLite)", "≥ 2,500/s", get("ours", "sqlite", "message", "max"), 2500)
	// Issue 16: per core (per CPU-second), and the p99 at half the maximum.
	for _, db := range []string{"sqlite", "postgres"} {
		a, f := get("ours", db, "quotebook", "max"), get("ours", db, "quotebook", "fixed")
		if a == nil || f == nil {
			continue
		}
		judge(verdict{workload: "quotebook", target: fmt.Sprintf("Quote + book ≥ 3,000 requests per core (%s)", dbName[db]),
			short:    "≥ 3,000 per CPU-second, " + dbName[db],
			measured: fmt.Sprintf("%.0f per CPU-second (%.0f/s at %.0f%% server CPU)", a.PerCore, a.Throughput, a.CPU*100),
			value:    fmt.Sprintf("%.0f", a.PerCore), met: a.PerCore >= 3000}, fmt.Sprintf("%+.0f%% against the target", (a.PerCore/3000-1)*100))
		judge(verdict{workload: "quotebook", target: fmt.Sprintf("Quote + book p99 < 50 ms at half the maximum (%s)", dbName[db]),
			short:    "p99 < 50 ms, " + dbName[db],
			measured: fmt.Sprintf("%.1f ms at %.0f/s", f.P99, f.TargetRate), value: fmt.Sprintf("%.1f ms", f.P99), met: f.P99 < 50}, "")
	}
	var rss int64
	for _, db := range []string{"sqlite", "postgres"} {
		var worst *Agg
		for _, w := range ourWorkloads {
			for _, phase := range []string{"max", "fixed"} {
				if a := get("ours", db, w, phase); a != nil {
					rss = max(rss, a.PeakRSSKB)
				}
			}
			if a := get("ours", db, w, "fixed"); a != nil && (worst == nil || a.P99 > worst.P99) {
				worst = a
			}
		}
		if worst != nil {
			// The headline shows this target per workload.
			judge(verdict{target: fmt.Sprintf("p99 < 10 ms at half the maximum rate, every workload (%s)", dbName[db]),
				measured: fmt.Sprintf("worst: `%s` %.2f ms at %.0f/s", worst.Workload, worst.P99, worst.TargetRate),
				met:      worst.P99 < 10}, fmt.Sprintf("%.1f× the limit", worst.P99/10))
		}
	}
	if rss > 0 {
		judge(verdict{target: "Peak RSS < 150 MB", short: "peak RSS < 150 MB",
			measured: fmt.Sprintf("%.0f MB (VmHWM after the setup's reset, the highest of all runs, both databases)", float64(rss)/1024),
			value:    fmt.Sprintf("%.0f MB", float64(rss)/1024), met: rss < 150*1024},
			fmt.Sprintf("%.0f%% of the limit", float64(rss)/1024/150*100))
	}
	return out
}

// headline is the report's first table: per workload, the requests per
// second of server CPU time at the maximum of each system, our ratios to
// the ceiling and the peer, the p99 at half the maximum, and the issue's
// targets for the workload, met or missed (the p99 < 10 ms target of
// every workload among them); then the server-wide memory target.
func headline(get func(system, db, w, phase string) *Agg, verdicts []verdict, run string) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	if run != "" {
		p("Run of %s. ", run)
	}
	p("Requests per second of server CPU time at the maximum (the ratios use it); p99 at half the maximum rate.\n\n")
	p("| Workload | ours, SQLite | ours, PostgreSQL | ceiling | peer (PocketBase) | SQLite ÷ ceiling | SQLite ÷ peer | p99, SQLite / PostgreSQL | targets |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	perCore := func(a *Agg) string {
		if a == nil {
			return "–"
		}
		return fmt.Sprintf("%.0f", a.PerCore)
	}
	ratio := func(a, b *Agg) string {
		if a == nil || b == nil || b.PerCore == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", a.PerCore/b.PerCore)
	}
	p99 := func(a *Agg) string {
		if a == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f", a.P99)
	}
	mark := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	for _, w := range ourWorkloads {
		sqlite, c, peer := get("ours", "sqlite", w, "max"), get("ceiling", "", ceilingOf(w), "max"), get("peer", "sqlite", peerOf[w], "max")
		if sqlite == nil && get("ours", "postgres", w, "max") == nil {
			continue // not in this run's WORKLOADS
		}
		var targets []string
		for _, v := range verdicts {
			if v.workload == w {
				targets = append(targets, fmt.Sprintf("%s: %s (%s)", v.short, mark(v.met), v.value))
			}
		}
		var fixed, slow []string
		for _, db := range []string{"sqlite", "postgres"} {
			if f := get("ours", db, w, "fixed"); f != nil {
				fixed = append(fixed, db)
				if f.P99 >= 10 {
					slow = append(slow, map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}[db])
				}
			}
		}
		switch {
		case len(fixed) == 0:
		case len(slow) == 0:
			targets = append(targets, "p99 < 10 ms: met")
		default:
			targets = append(targets, "p99 < 10 ms: **missed** ("+strings.Join(slow, ", ")+")")
		}
		p("| `%s` | %s | %s | %s | %s | %s | %s | %s / %s ms | %s |\n", w, perCore(sqlite), perCore(get("ours", "postgres", w, "max")),
			perCore(c), perCore(peer), ratio(sqlite, c), ratio(sqlite, peer),
			p99(get("ours", "sqlite", w, "fixed")), p99(get("ours", "postgres", w, "fixed")), strings.Join(targets, "; "))
	}
	for _, v := range verdicts {
		if v.workload == "" && v.short != "" {
			p("\nOur server over every workload, %s: %s (%s).\n", v.short, mark(v.met), v.value)
		}
	}
	return b.String() + "\n"
}

// section is a part of the markdown file that the report rewrites: its
// heading (used when the file does not have it yet) and its markers.
type section struct{ heading, begin, end string }

var (
	headlineSection = section{"Headline",
		"<!-- headline:begin (written by bench/run.sh; edits between the markers are lost) -->", "<!-- headline:end -->"}
	resultsSection = section{"Results",
		"<!-- results:begin (written by bench/run.sh; edits between the markers are lost) -->", "<!-- results:end -->"}
)

// replaceSection puts the generated text between the section's markers in
// the markdown file, or appends the section when the file has none.
func replaceSection(path string, sec section, body string) error {
	old, err := os.ReadFile(filepath.Clean(path))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	s := string(old)
	text := sec.begin + "\n\n" + body + sec.end
	i, j := strings.Index(s, sec.begin), strings.Index(s, sec.end)
	if i >= 0 && j > i {
		s = s[:i] + text + s[j+len(sec.end):]
	} else {
		s += "\n## " + sec.heading + "\n\n" + text + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o600)
}
