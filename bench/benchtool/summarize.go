package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Run is one vegeta attack, summarised: a line of results.jsonl.
type Run struct {
	System     string         `json:"system"`   // ours, ceiling, peer
	DB         string         `json:"db"`       // sqlite, postgres ("" for the ceiling)
	Workload   string         `json:"workload"` // see ourWorkloads and peerWorkloads
	Phase      string         `json:"phase"`    // max (as fast as the workers go) or fixed (at a fixed rate)
	Run        int            `json:"run"`
	Workers    int            `json:"workers"`
	TargetRate float64        `json:"targetRate"` // requests per second asked for; 0 in the max phase
	Requests   uint64         `json:"requests"`
	Rate       float64        `json:"rate"`       // requests sent per second
	Throughput float64        `json:"throughput"` // successful answers per second
	Success    float64        `json:"success"`    // share of 2xx answers
	P50ms      float64        `json:"p50ms"`
	P90ms      float64        `json:"p90ms"`
	P99ms      float64        `json:"p99ms"`
	MaxMs      float64        `json:"maxms"`
	BytesIn    float64        `json:"bytesIn"` // mean response body size, from Content-Length
	Status     map[string]int `json:"status"`
	Errors     []string       `json:"errors,omitempty"`
	CPU        float64        `json:"cpu"`      // server process CPU time over wall time during the attack (1 = one core busy)
	CoreBusy   float64        `json:"coreBusy"` // share of the server core busy during the attack, whoever ran there
	// PerCore is the throughput per second of server CPU time: Throughput
	// divided by CPU (or by CoreBusy when CPUBasis is "core"). When
	// vegeta's core is the bottleneck (the server CPU well under 1) this is
	// the figure that compares servers, "per core of server time". On
	// PostgreSQL, CPU counts our server and the backends of its database.
	PerCore   float64 `json:"perCore"`
	CPUBasis  string  `json:"cpuBasis"`
	Locked    int     `json:"locked"`    // "database is locked" / SQLITE_BUSY lines the server logged during the attack
	PeakRSSKB int64   `json:"peakRSSKB"` // the server's VmHWM after the attack
}

// summarize reads a vegeta result file and prints its Run as one JSON line.
func summarize(args []string) error {
	fs := flag.NewFlagSet("summarize", flag.ExitOnError)
	results := fs.String("results", "", "vegeta result file (attack -output)")
	var r Run
	fs.StringVar(&r.System, "system", "", "ours, ceiling or peer")
	fs.StringVar(&r.DB, "db", "", "sqlite or postgres")
	fs.StringVar(&r.Workload, "workload", "", "workload name")
	fs.StringVar(&r.Phase, "phase", "", "max or fixed")
	fs.IntVar(&r.Run, "run", 0, "run number")
	fs.IntVar(&r.Workers, "workers", 0, "vegeta workers")
	fs.Float64Var(&r.TargetRate, "rate", 0, "requested rate, 0 for as fast as possible")
	cpuTicks := fs.Int64("cpu-ticks", 0, "server CPU clock ticks spent during the attack")
	clkTck := fs.Int64("clk-tck", 100, "clock ticks per second (getconf CLK_TCK)")
	wall := fs.Duration("wall", 0, "wall time of the attack")
	coreBusy := fs.Int64("core-busy-ticks", 0, "busy ticks of the server core during the attack")
	coreTotal := fs.Int64("core-total-ticks", 0, "all ticks of the server core during the attack")
	fs.StringVar(&r.CPUBasis, "cpu-basis", "process", "what PerCore divides by: process (the server's own CPU time) or core (all of the server core's busy time)")
	fs.IntVar(&r.Locked, "locked", 0, "database-is-locked lines logged during the attack")
	fs.Int64Var(&r.PeakRSSKB, "rss-kb", 0, "server VmHWM after the attack, KiB")
	probe := fs.String("probe", "", "target file: when the answers carried no Content-Length (chunked), send its first targets to measure their size")
	fs.Parse(args)
	if *results == "" {
		return errors.New("summarize: -results is required")
	}
	f, err := os.Open(filepath.Clean(*results))
	if err != nil {
		return err
	}
	defer f.Close()
	dec := vegeta.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var m vegeta.Metrics
	var bodyBytes, bodies float64 // from Content-Length: vegeta runs with -max-body=0
	for {
		var res vegeta.Result
		if err := dec.Decode(&res); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		m.Add(&res)
		if n, err := strconv.ParseFloat(res.Headers.Get("Content-Length"), 64); err == nil {
			bodyBytes, bodies = bodyBytes+n, bodies+1
		}
	}
	m.Close()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	r.Requests, r.Rate, r.Throughput, r.Success = m.Requests, m.Rate, m.Throughput, m.Success
	r.P50ms, r.P90ms, r.P99ms, r.MaxMs = ms(m.Latencies.P50), ms(m.Latencies.P90), ms(m.Latencies.P99), ms(m.Latencies.Max)
	if bodies > 0 {
		r.BytesIn = bodyBytes / bodies
	}
	if bodies < float64(m.Requests)/2 && *probe != "" {
		if r.BytesIn, err = probeSize(*probe, 5); err != nil {
			return err
		}
	}
	r.Status = map[string]int{}
	for code, n := range m.StatusCodes {
		r.Status[code] = n
	}
	r.Errors = m.Errors
	if len(r.Errors) > 5 {
		r.Errors = r.Errors[:5]
	}
	if *coreTotal > 0 {
		r.CoreBusy = float64(*coreBusy) / float64(*coreTotal)
	}
	if *wall > 0 && *clkTck > 0 {
		r.CPU = float64(*cpuTicks) / float64(*clkTck) / wall.Seconds()
	}
	share := r.CPU
	if r.CPUBasis == "core" {
		share = r.CoreBusy
	}
	if share > 0.02 {
		r.PerCore = r.Throughput / share
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(line, '\n'))
	return err
}

// loadRuns reads results.jsonl.
func loadRuns(path string) ([]Run, error) {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []Run
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, errors.New(path + ":" + strconv.Itoa(n) + ": " + err.Error())
		}
		runs = append(runs, r)
	}
	return runs, sc.Err()
}

// probeSize sends the first n targets of a vegeta JSON target file and
// returns the mean size of the answers' bodies.
func probeSize(path string, n int) (float64, error) {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var total, count float64
	for count < float64(n) && sc.Scan() {
		var t vegeta.Target
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return 0, err
		}
		req, err := t.Request()
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		size, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		total, count = total+float64(size), count+1
	}
	if count == 0 {
		return 0, sc.Err()
	}
	return total / count, sc.Err()
}
