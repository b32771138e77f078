// Command benchtool is the helper of bench/run.sh: it prepares a running
// guide API for the load benchmark, writes vegeta target files, turns
// vegeta result files into summary lines, and renders the report
// (BENCHMARKS.md's headline and results sections, bench/latency.png) and
// the scale plot (bench/scale.png).
//
//	benchtool setup     -base URL -out DIR [-users N -keys-per-user K -convs-per-user C -capture]
//	benchtool targets   -state DIR/state.json -workload NAME -base URL -count N -run R -out FILE
//	benchtool chain     -state DIR/state.json -targets FILE -base URL -output FILE -duration D -rate R -workers W  (vegeta attack for quotebook: each quote, then its booking)
//	benchtool summarize -results FILE -system S -db D -workload W -phase P -run R ... >> results.jsonl
//	benchtool report    -results results.jsonl -md BENCHMARKS.md -png bench/latency.png -summary bench/summary.json -run LABEL
//	benchtool report    -aggregates bench/summary.json -workers 50 -md BENCHMARKS.md ...  (the same report again, from an earlier summary)
//	benchtool regress   -results results.jsonl -baseline bench/baseline.json [-write]  (each workload's CPU per request ÷ the ceiling's, against the baselines)
//	benchtool scaleplot -in scale.txt -out bench/scale.png [-machine TEXT]
//	benchtool rss       -pid PID     (VmHWM of a process, in KiB)
//	benchtool cpu       -pid PID [-extra PIDS] -core N -save SNAP | -since SNAP  (CPU ticks spent by the processes and core N between two snapshots)
//
// It only talks to the addresses it is given (the benchmark's own servers
// on the loopback interface).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtool setup|targets|chain|summarize|report|regress|scaleplot|rss|cpu [flags]")
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "setup":
		err = setup(args)
	case "targets":
		err = targets(args)
	case "chain":
		err = chain(args)
	case "summarize":
		err = summarize(args)
	case "report":
		err = report(args)
	case "regress":
		err = regress(args)
	case "scaleplot":
		err = scalePlot(args)
	case "rss":
		err = printProc(args, "rss")
	case "cpu":
		err = printProc(args, "cpu")
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}
