package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// chain is vegeta attack for the quotebook workload, where a request
// depends on an earlier answer: each booking books a quote the attack
// itself created. It sends the quote targets (benchtool targets -workload
// quotebook) and, whenever a quote was answered 201, its booking first,
// so that a run is half quotes and half bookings. Its settings are
// run.sh's attack's (-max-body=0 included: bodies are read for the quote
// id, then dropped from the results), and it writes its results as
// vegeta attack -output does.
func chain(args []string) error {
	fs := flag.NewFlagSet("chain", flag.ExitOnError)
	statePath := fs.String("state", "", "state.json of setup -property (the key)")
	targetsPath := fs.String("targets", "", "quote targets (JSON, one a line)")
	base := fs.String("base", "", "the property API's address")
	out := fs.String("output", "", "results file (vegeta's format)")
	duration := fs.Duration("duration", 2*time.Second, "attack duration")
	rate := fs.String("rate", "0", "requests per second (N or N/s); 0 is as fast as the workers go")
	workers := fs.Uint64("workers", 50, "workers (and the maximum)")
	run := fs.Int("run", 0, "run number, part of every booking's reference")
	fs.Parse(args)
	if *statePath == "" || *targetsPath == "" || *base == "" || *out == "" {
		return errors.New("chain: -state, -targets, -base and -output are required")
	}
	freq, err := strconv.Atoi(strings.TrimSuffix(*rate, "/s"))
	if err != nil {
		return fmt.Errorf("chain: -rate %q: %w", *rate, err)
	}
	var st State
	if err := readJSON(*statePath, &st); err != nil {
		return err
	}
	tf, err := os.Open(filepath.Clean(*targetsPath))
	if err != nil {
		return err
	}
	defer tf.Close()
	quotes := vegeta.NewJSONTargeter(bufio.NewReaderSize(tf, 1<<20), nil, nil)
	ready := make(chan string, 1<<20) // quote ids to book
	var booked atomic.Int64
	header := jsonHeader.Clone()
	header.Set("X-API-KEY", st.PropertyKey)
	targeter := func(t *vegeta.Target) error {
		select {
		case id := <-ready:
			body, _ := json.Marshal(map[string]any{
				"quoteId": id, "externalReference": fmt.Sprintf("BENCH-%d-%d", *run, booked.Add(1)),
				"guest": map[string]any{"firstName": "Mei", "lastName": "Tan", "email": "mei.tan@example.com", "country": "SG"},
			})
			*t = vegeta.Target{Method: "POST", URL: *base + "/api/v1/bookings", Body: body, Header: header}
			return nil
		default:
			return quotes(t)
		}
	}
	atk := vegeta.NewAttacker(vegeta.Workers(*workers), vegeta.MaxWorkers(*workers), vegeta.Timeout(10*time.Second),
		vegeta.MaxBody(-1), vegeta.HTTP2(false), vegeta.KeepAlive(true))
	f, err := os.Create(filepath.Clean(*out))
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := vegeta.NewEncoder(w)
	for res := range atk.Attack(targeter, vegeta.Rate{Freq: freq, Per: time.Second}, *duration, "quotebook") {
		if res.Code == http.StatusCreated && strings.HasSuffix(res.URL, "/api/v1/quotes") {
			var q struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(res.Body, &q) == nil && q.ID != "" {
				ready <- q.ID
			}
		}
		res.Body = nil
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	return errors.Join(w.Flush(), f.Close())
}
