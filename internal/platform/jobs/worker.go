// Package jobs runs the services' background jobs.
package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Every runs fn every interval until ctx ends, then once more so that work
// gathered in memory (such as key usage) is not lost at shutdown.
func Every(ctx context.Context, name string, interval time.Duration, fn func(context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	run := func(ctx context.Context) {
		ctx, span := telemetry.StartTask(ctx, name)
		err := fn(ctx)
		if err != nil {
			slog.ErrorContext(ctx, "background job failed", "job", name, "err", err)
		}
		span.End(err)
	}
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			run(final)
			cancel()
			return
		case <-t.C:
			run(ctx)
		}
	}
}
