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

// Webhooks is what a Runner needs to send webhook deliveries.
type Webhooks struct {
	Store  *store.Webhooks
	Client *changes.Client
}

// deliverWebhook sends one attempt of a delivery and records its outcome
// on the delivery, its endpoint and the job in one transaction: the job
// runs again on the webhook schedule (webhook.NextDelay), not the runner's.
func (r *Runner) deliverWebhook(ctx context.Context, j store.Job) error {
	var p struct {
		DeliveryID string `json:"deliveryId"`
	}
	if err := decode(j, &p); err != nil {
		return err
	}
	t, err := r.Webhooks.Store.FindDeliveryTask(ctx, p.DeliveryID)
	if apperr.Code(err) == apperr.NotFound {
		return nil // the endpoint was deleted: nothing to send
	} else if err != nil {
		return err
	}
	now := r.now()
	a := store.DeliveryAttempt{At: now}
	if t.EndpointStatus == store.EndpointDisabled && t.EventType != store.WebhookTest {
		a.Error = "not sent: the endpoint is disabled"
	} else {
		a, err = r.sendWebhook(ctx, t, now)
		if err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.Webhooks.Store.FinishDeliveryAttempt(rctx, j.ID, t, a); err != nil {
		return err
	}
	return errFinished
}

// sendWebhook makes one attempt and judges it; err only when the attempt
// was interrupted (it is not counted).
func (r *Runner) sendWebhook(ctx context.Context, t *store.DeliveryTask, now time.Time) (store.DeliveryAttempt, error) {
	a := store.DeliveryAttempt{At: now}
	header, err := changes.Headers(t.Secrets, t.EventID, now, t.Payload)
	if err != nil {
		return a, &permanent{err}
	}
	resp, sendErr := r.Webhooks.Client.Post(ctx, t.URL, header, t.Payload)
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
