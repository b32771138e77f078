package changes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Defaults of the webhook deliveries' pool.
const (
	// A webhook attempt waits on someone else's server, one at a time per
	// endpoint (store.Jobs.Claim): many may hang at once without costing
	// more than a goroutine and a connection each.
	DefaultConcurrency = 64
	// DefaultLease is above an attempt's bound (the client's timeout and
	// the recording of the outcome), so that a delivery whose runner died
	// is sent again within about a minute.
	DefaultLease = time.Minute
	// An attempt that has not ended after DefaultSlowAfter leaves its
	// webhook slot for one of DefaultSlowSlots, so that endpoints that
	// hang, however many accounts own them, leave the slots to the
	// endpoints that answer.
	DefaultSlowAfter = time.Second
	DefaultSlowSlots = 256
)

// Sender sends webhook deliveries: Register gives a runner their kind.
type Sender struct {
	Store  *Endpoints
	Client *Client
	// Concurrency bounds the attempts in flight (0: DefaultConcurrency),
	// one per endpoint at a time.
	Concurrency int
	// Lease is the lease of an attempt (0: DefaultLease), at least its
	// timeout and half a minute.
	Lease time.Duration
	// SlowAfter and SlowSlots (0: the defaults): an attempt still running
	// after SlowAfter moves to one of SlowSlots, freeing its slot of
	// Concurrency.
	SlowAfter time.Duration
	SlowSlots int
}

// Register makes r send the deliveries (JobDeliver), in a pool of their
// own.
func (w *Sender) Register(r *jobs.Runner) {
	// The attempt is bounded by the client; loading the delivery comes on
	// top (recording its outcome has a bound of its own).
	timeout := w.Client.Timeout() + 5*time.Second
	pool := &jobs.Pool{Name: "webhooks", Slots: orDefault(w.Concurrency, DefaultConcurrency), Timeout: timeout,
		Lease:     max(orDefault(w.Lease, DefaultLease), timeout+30*time.Second),
		SlowAfter: orDefault(w.SlowAfter, DefaultSlowAfter), SlowSlots: orDefault(w.SlowSlots, DefaultSlowSlots)}
	r.Register(jobs.Kind{Name: JobDeliver, Pool: pool, Handle: func(ctx context.Context, j store.Job) error {
		return w.deliver(ctx, j, r.Now())
	}})
}

// deliver sends one attempt of a delivery at now and records its outcome
// on the delivery, its endpoint and the job in one transaction: the job
// runs again on the webhook schedule (NextDelay), not the runner's.
func (w *Sender) deliver(ctx context.Context, j store.Job, now time.Time) error {
	var p struct {
		DeliveryID string `json:"deliveryId"`
	}
	if err := jobs.Decode(j, &p); err != nil {
		return err
	}
	t, err := w.Store.loadTask(ctx, p.DeliveryID)
	if apperr.Code(err) == apperr.NotFound {
		return nil // the endpoint was deleted: nothing to send
	} else if err != nil {
		return err
	}
	a := outcome{At: now}
	if t.EndpointStatus == EndpointDisabled && t.EventType != TypeTest {
		a.Error = "not sent: the endpoint is disabled"
	} else {
		a, err = w.send(ctx, t, now)
		if err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := w.Store.finish(rctx, j.ID, t, a); err != nil {
		return err
	}
	return jobs.ErrFinished
}

// send makes one attempt and judges it; err only when the attempt was
// interrupted (it is not counted).
func (w *Sender) send(ctx context.Context, t *deliveryTask, now time.Time) (outcome, error) {
	a := outcome{At: now}
	header, err := Headers(t.Secrets, t.EventID, now, t.Payload)
	if err != nil {
		return a, jobs.Permanent(err)
	}
	resp, sendErr := w.Client.Post(ctx, t.URL, header, t.Payload)
	if sendErr != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return a, sendErr
	}
	a.Latency = resp.Latency
	a.ResponseStatus = resp.Status
	attempt := t.Attempts + 1
	switch {
	case sendErr == nil && resp.Status >= 200 && resp.Status < 300:
		a.Succeeded = true
		if t.EndpointStatus == EndpointFailing {
			a.EndpointStatus = EndpointActive
		}
		return a, nil
	case sendErr == nil && resp.Status == http.StatusGone:
		a.Error = "the endpoint answered 410 Gone"
		a.EndpointStatus = EndpointDisabled
		a.EndpointReason = fmt.Sprintf("Disabled at %s: the endpoint answered 410 Gone to event %s; enable it again once it accepts deliveries.",
			now.UTC().Format(time.RFC3339), t.EventID)
		return a, nil
	case sendErr != nil:
		a.Error = Describe(sendErr)
	default:
		a.Error = fmt.Sprintf("the endpoint answered %d", resp.Status)
	}
	if delay, ok := NextDelay(attempt, ParseRetryAfter(resp.RetryAfter, now)); ok {
		a.NextAttemptAt = now.Add(delay)
		return a, nil
	}
	a.EndpointStatus = EndpointFailing
	a.EndpointReason = fmt.Sprintf("Event %s could not be delivered after %d attempts over more than a day; the last: %s.", t.EventID, attempt, a.Error)
	return a, nil
}

// orDefault returns v, or def when v is not above zero.
func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
