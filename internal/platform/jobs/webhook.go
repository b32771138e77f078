package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Defaults of the webhook deliveries' pool.
const (
	// A webhook attempt waits on someone else's server, one at a time per
	// endpoint (store.Jobs.Claim): many may hang at once without costing
	// more than a goroutine and a connection each.
	DefaultWebhookConcurrency = 64
	// DefaultWebhookLease is above an attempt's bound (the client's
	// timeout and the recording of the outcome), so that a delivery whose
	// runner died is sent again within about a minute.
	DefaultWebhookLease = time.Minute
	// An attempt that has not ended after DefaultWebhookSlowAfter leaves
	// its webhook slot for one of DefaultWebhookSlowSlots, so that
	// endpoints that hang, however many accounts own them, leave the
	// slots to the endpoints that answer.
	DefaultWebhookSlowAfter = time.Second
	DefaultWebhookSlowSlots = 256
)

// Webhooks sends webhook deliveries: Register gives a runner their kind.
type Webhooks struct {
	Store  *store.Webhooks
	Client *changes.Client
	// Concurrency bounds the attempts in flight (0:
	// DefaultWebhookConcurrency), one per endpoint at a time.
	Concurrency int
	// Lease is the lease of an attempt (0: DefaultWebhookLease), at least
	// its timeout and half a minute.
	Lease time.Duration
	// SlowAfter and SlowSlots (0: the defaults): an attempt still running
	// after SlowAfter moves to one of SlowSlots, freeing its slot of
	// Concurrency.
	SlowAfter time.Duration
	SlowSlots int
}

// Register makes r send the deliveries (store.JobWebhookDeliver), in a
// pool of their own.
func (w *Webhooks) Register(r *Runner) {
	// The attempt is bounded by the client; loading the delivery comes on
	// top (recording its outcome has a bound of its own).
	timeout := w.Client.Timeout() + 5*time.Second
	pool := &Pool{Name: "webhooks", Slots: orDefault(w.Concurrency, DefaultWebhookConcurrency), Timeout: timeout,
		Lease:     max(orDefault(w.Lease, DefaultWebhookLease), timeout+30*time.Second),
		SlowAfter: orDefault(w.SlowAfter, DefaultWebhookSlowAfter), SlowSlots: orDefault(w.SlowSlots, DefaultWebhookSlowSlots)}
	r.Register(Kind{Name: store.JobWebhookDeliver, Pool: pool, Handle: func(ctx context.Context, j store.Job) error {
		return w.deliver(ctx, j, r.Now())
	}})
}

// deliver sends one attempt of a delivery at now and records its outcome
// on the delivery, its endpoint and the job in one transaction: the job
// runs again on the webhook schedule (webhook.NextDelay), not the runner's.
func (w *Webhooks) deliver(ctx context.Context, j store.Job, now time.Time) error {
	var p struct {
		DeliveryID string `json:"deliveryId"`
	}
	if err := Decode(j, &p); err != nil {
		return err
	}
	t, err := w.Store.FindDeliveryTask(ctx, p.DeliveryID)
	if apperr.Code(err) == apperr.NotFound {
		return nil // the endpoint was deleted: nothing to send
	} else if err != nil {
		return err
	}
	a := store.DeliveryAttempt{At: now}
	if t.EndpointStatus == store.EndpointDisabled && t.EventType != store.WebhookTest {
		a.Error = "not sent: the endpoint is disabled"
	} else {
		a, err = w.send(ctx, t, now)
		if err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := w.Store.FinishDeliveryAttempt(rctx, j.ID, t, a); err != nil {
		return err
	}
	return ErrFinished
}

// send makes one attempt and judges it; err only when the attempt was
// interrupted (it is not counted).
func (w *Webhooks) send(ctx context.Context, t *store.DeliveryTask, now time.Time) (store.DeliveryAttempt, error) {
	a := store.DeliveryAttempt{At: now}
	header, err := changes.Headers(t.Secrets, t.EventID, now, t.Payload)
	if err != nil {
		return a, Permanent(err)
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
		if t.EndpointStatus == store.EndpointFailing {
			a.EndpointStatus = store.EndpointActive
		}
		return a, nil
	case sendErr == nil && resp.Status == http.StatusGone:
		a.Error = "the endpoint answered 410 Gone"
		a.EndpointStatus = store.EndpointDisabled
		a.EndpointReason = fmt.Sprintf("Disabled at %s: the endpoint answered 410 Gone to event %s; enable it again once it accepts deliveries.",
			now.UTC().Format(time.RFC3339), t.EventID)
		return a, nil
	case sendErr != nil:
		a.Error = changes.Describe(sendErr)
	default:
		a.Error = fmt.Sprintf("the endpoint answered %d", resp.Status)
	}
	if delay, ok := changes.NextDelay(attempt, changes.ParseRetryAfter(resp.RetryAfter, now)); ok {
		a.NextAttemptAt = now.Add(delay)
		return a, nil
	}
	a.EndpointStatus = store.EndpointFailing
	a.EndpointReason = fmt.Sprintf("Event %s could not be delivered after %d attempts over more than a day; the last: %s.", t.EventID, attempt, a.Error)
	return a, nil
}
