package chat

import (
	"context"
	"encoding/json"

	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Publisher is the channel as the product's jobs see it (Engine).
type Publisher interface {
	// Publish publishes data to channel; a second publication with the
	// same idempotency key is dropped.
	Publish(ctx context.Context, channel string, data []byte, idempotencyKey string) error
	// Online tells whether the user is subscribed to channel.
	Online(ctx context.Context, channel, userID string) (bool, error)
}

// Publication is one publication of a job.
type Publication struct {
	Channel string
	Data    any // published as JSON
	// Key is the idempotency key: a retried job publishes once.
	Key string
}

// PublishJob returns the handler of a job kind that publishes, in order,
// what publications makes of the job: the product says what a change
// publishes, the channel publishes it. With p nil (no channel) the jobs
// are done without publishing.
func PublishJob(p Publisher, publications func(ctx context.Context, j store.Job) ([]Publication, error)) jobs.Handler {
	return func(ctx context.Context, j store.Job) error {
		if p == nil {
			return nil
		}
		pubs, err := publications(ctx, j)
		if err != nil {
			return err
		}
		for _, pub := range pubs {
			data, err := json.Marshal(pub.Data)
			if err != nil {
				return jobs.Permanent(err)
			}
			if err := p.Publish(ctx, pub.Channel, data, pub.Key); err != nil {
				return err
			}
		}
		return nil
	}
}
