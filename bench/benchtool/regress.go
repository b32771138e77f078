package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Baseline is bench/baseline.json: for each "db/workload" of our server,
// its CPU per request divided by the ceiling's in the same run, and the
// factor past which a run of it fails. Updating it is a commit whose body
// says why (BENCHMARKS.md, "Catching a regression").
type Baseline struct {
	Note      string             `json:"note"`
	Tolerance float64            `json:"tolerance"`
	Ratios    map[string]float64 `json:"ratios"`
}

// costRatios reads the max-phase runs of results.jsonl and returns, for
// each db/workload of ours, its CPU per request over the ceiling's for the
// same workload (the median of the runs of each). The ceiling replays our
// recorded answers, so the ratio keeps what our server adds, and the load
// of the machine, which slows both alike, cancels as far as it can.
// quotebook has no recorded answers: it is divided by booking_user's
// ceiling, the same kind of small POST answer.
func costRatios(r io.Reader) (map[string]float64, error) {
	perCore := map[string][]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var run Run
		if err := json.Unmarshal(sc.Bytes(), &run); err != nil {
			return nil, fmt.Errorf("results line %q: %w", sc.Text(), err)
		}
		if run.Phase != "max" || run.PerCore <= 0 {
			continue
		}
		k := run.System + "/" + run.DB + "/" + run.Workload
		perCore[k] = append(perCore[k], run.PerCore)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for k, v := range perCore {
		system, rest, _ := strings.Cut(k, "/")
		if system != "ours" {
			continue
		}
		db, w, _ := strings.Cut(rest, "/")
		cw := ceilingOf(w)
		if w == "quotebook" {
			cw = "booking_user"
		}
		c, ok := perCore["ceiling//"+cw]
		if !ok {
			return nil, fmt.Errorf("no ceiling run of %s to divide %s/%s by", cw, db, w)
		}
		// CPU per request is 1/PerCore: ours over the ceiling's.
		out[db+"/"+w] = median(c) / median(v)
	}
	return out, nil
}

// regressions compares measured ratios with the baseline's: one line per
// workload that costs more than tolerance × its baseline, or that the
// baseline names and the run lacks.
func regressions(b Baseline, measured map[string]float64) []string {
	var out []string
	for _, k := range sortedKeys(b.Ratios) {
		want := b.Ratios[k]
		got, ok := measured[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: not measured in this run", k))
		case got > b.Tolerance*want:
			out = append(out, fmt.Sprintf("%s: costs %.1f× the ceiling per request, baseline %.1f× (%.2f× it; the limit is %.2f×)",
				k, got, want, got/want, b.Tolerance))
		}
	}
	return out
}

func sortedKeys(m map[string]float64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// regress prints each workload's cost relative to the ceiling's beside its
// baseline, and fails naming the workloads past the tolerance. With -write
// it writes the measured ratios as the new baseline instead.
func regress(args []string) error {
	fs := flag.NewFlagSet("regress", flag.ExitOnError)
	results := fs.String("results", "", "results.jsonl of the run")
	baseline := fs.String("baseline", "bench/baseline.json", "the committed baselines")
	write := fs.Bool("write", false, "write the measured ratios into -baseline (then commit it, saying why)")
	fs.Parse(args)
	if *results == "" {
		return errors.New("regress: -results is required")
	}
	f, err := os.Open(filepath.Clean(*results))
	if err != nil {
		return err
	}
	defer f.Close()
	measured, err := costRatios(f)
	if err != nil {
		return err
	}
	var b Baseline
	raw, err := os.ReadFile(filepath.Clean(*baseline))
	switch {
	case err == nil:
		if err := json.Unmarshal(raw, &b); err != nil {
			return fmt.Errorf("%s: %w", *baseline, err)
		}
	case !*write || !errors.Is(err, os.ErrNotExist):
		return err
	}
	fmt.Printf("%-24s %10s %10s\n", "workload (CPU/request)", "÷ ceiling", "baseline")
	for _, k := range sortedKeys(measured) {
		base := "-"
		if v, ok := b.Ratios[k]; ok {
			base = fmt.Sprintf("%.2f", v)
		}
		fmt.Printf("%-24s %10.2f %10s\n", k, measured[k], base)
	}
	if *write {
		if b.Tolerance == 0 {
			b.Tolerance = 1.5
		}
		b.Ratios = map[string]float64{}
		for k, v := range measured {
			b.Ratios[k] = float64(int(v*100+0.5)) / 100
		}
		out, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*baseline, append(out, '\n'), 0o600)
	}
	if bad := regressions(b, measured); len(bad) > 0 {
		return fmt.Errorf("regress: %d workload(s) cost more than %.2f× their baseline:\n  %s",
			len(bad), b.Tolerance, strings.Join(bad, "\n  "))
	}
	return nil
}
