package guidejobs_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// signalPublisher tells each publication to a conversation's channel.
type signalPublisher struct{ published chan struct{} }

func (p *signalPublisher) Publish(_ context.Context, channel string, _ []byte, _ string) error {
	if strings.HasPrefix(channel, "conversation:") {
		p.published <- struct{}{}
	}
	return nil
}

func (p *signalPublisher) Online(context.Context, string, string) (bool, error) { return false, nil }

// BenchmarkMessageRealtime sends messages one at a time, each followed by
// its realtime publication by a running Runner woken as cmd/server wakes
// it: the database cost of a message at a steady rate, its realtime job
// included. It reports the CPU of the process and, on PostgreSQL, of the
// backends of its connections (read from /proc: Linux, a local server)
// and the transactions they committed, per message.
func BenchmarkMessageRealtime(b *testing.B) {
	for _, engine := range storetest.Engines() {
		b.Run(string(engine), func(b *testing.B) {
			ctx := b.Context()
			e := newEnv(b, engine, time.Now())
			c := e.fixture()
			name := fixtureTouristName
			tourist := &guide.User{ID: c.touristID, Name: &name}
			pub := &signalPublisher{published: make(chan struct{}, 1)}
			r := e.runner(nil, withChat(pub))
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { r.Run(runCtx); close(done) }()
			defer func() { stop(); <-done }()

			cpu0, commits0 := processCPU(), e.commits()
			backends0 := e.backendsCPU()
			n := 0
			for b.Loop() {
				if _, _, err := e.g.SendMessage(ctx, tourist, c.id, guide.NewMessage{Content: "Is the tour on next week? " + strconv.Itoa(n),
					MessageType: guide.MessageText}, false); err != nil {
					b.Fatal(err)
				}
				r.Wake()
				<-pub.published
				n++
			}
			b.StopTimer()
			for e.pending() > 0 {
				time.Sleep(time.Millisecond)
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Microsecond)/float64(n), "cpu-µs/op")
			if engine == store.Postgres {
				b.ReportMetric(float64(e.backendsCPU()-backends0)/float64(time.Microsecond)/float64(n), "pg-cpu-µs/op")
				time.Sleep(1100 * time.Millisecond) // the statistics are flushed at most once a second
				b.ReportMetric(float64(e.commits()-commits0)/float64(n), "commits/op")
			}
		})
	}
}

func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// commits counts the transactions committed in the PostgreSQL database
// (0 on SQLite).
func (e *env) commits() int64 {
	if e.db.Engine != store.Postgres {
		return 0
	}
	var n int64
	if err := e.db.QueryRowContext(e.t.Context(), `SELECT pg_stat_force_next_flush()`).Scan(new(string)); err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.QueryRowContext(e.t.Context(), `SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// backendsCPU sums the CPU time of the PostgreSQL backends serving this
// process (0 on SQLite, or where /proc does not show them).
func (e *env) backendsCPU() time.Duration {
	if e.db.Engine != store.Postgres {
		return 0
	}
	rows, err := e.db.QueryContext(e.t.Context(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND client_port IS NOT NULL
		AND backend_type = 'client backend' AND application_name = current_setting('application_name')`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var total time.Duration
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			e.t.Fatal(err)
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ = 100
	}
	return total
}
