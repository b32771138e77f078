package changes_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
)

// BenchmarkWebhookLatency measures the time from the commit of a change
// (its event and delivery job in the transaction) to the arrival of the
// signed delivery at a healthy local endpoint, with a runner woken after
// the commit as cmd/server wires it, alone and beside 20 endpoints of
// other accounts that hang until the client's timeout, each sent an event
// with every healthy one. It reports the 50th and 99th percentiles:
//
//	go test ./internal/platform/changes -run '^$' -bench WebhookLatency -benchtime 500x
func BenchmarkWebhookLatency(b *testing.B) {
	for _, engine := range storetest.Engines() {
		for _, hanging := range []int{0, 20} {
			b.Run(fmt.Sprintf("%s/hanging=%d", engine, hanging), func(b *testing.B) { benchmarkWebhookLatency(b, engine, hanging) })
		}
	}
}

func benchmarkWebhookLatency(b *testing.B, engine store.Engine, hanging int) {
	db := storetest.MustOpenDB(b, engine, propertydb.Schema)
	clk := clock.System{}
	events, hooks := changes.NewFeed(db, clk), changes.NewEndpoints(db, clk)
	arrived := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- time.Now()
	}))
	defer srv.Close()
	ctx := context.Background()
	secret, _ := changes.NewSecret()
	if err := hooks.Create(ctx, &changes.Endpoint{Owner: "developer:bench", Audience: "account:bench:live", URL: srv.URL}, secret); err != nil {
		b.Fatal(err)
	}
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release) // before hang.Close, which waits for its requests
	audiences := []string{"account:bench:live"}
	for i := range hanging {
		audience := fmt.Sprintf("account:hang%d:live", i)
		audiences = append(audiences, audience)
		if err := hooks.Create(ctx, &changes.Endpoint{Owner: fmt.Sprintf("developer:hang%d", i), Audience: audience, URL: hang.URL}, secret); err != nil {
			b.Fatal(err)
		}
	}
	queue := store.NewJobs(db, clk)
	runner := &jobs.Runner{Jobs: queue, Clock: clk}
	(&changes.Sender{Store: hooks, Client: changes.NewClient(changes.Policy{AllowHosts: []string{"127.0.0.1"}})}).Register(runner)
	queue.SetHandoff(runner.Handoff())
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { runner.Run(runCtx) })
	defer func() { stop(); wg.Wait() }()

	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		var committed time.Time
		err := db.InTx(ctx, func(tx *sql.Tx) error {
			for _, audience := range audiences[1:] {
				if _, err := events.Record(ctx, tx, "booking.created", []string{audience}, map[string]string{"id": store.NewID()}); err != nil {
					return err
				}
			}
			_, err := events.Record(ctx, tx, "booking.created", audiences[:1], map[string]string{"id": store.NewID()})
			committed = time.Now() // the commit follows at once
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-arrived:
			latencies = append(latencies, at.Sub(committed))
		case <-time.After(10 * time.Second):
			b.Fatal("no delivery within 10s")
		}
	}
	b.StopTimer()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(latencies[len(latencies)-1].Microseconds())/1000, "max-ms")
}
