// Package guidejobs handles the guide marketplace's background jobs: push
// notifications (of messages, pending actions and decisions on expert
// applications), AI replies,
// realtime publications and file removals. Register gives their kinds to
// a runner (internal/platform/jobs) when the process is wired.
//
// It is a package of its own, not a part of package guide, because its
// handlers read through guidedb's types (PushDelivery, AIReplyContext,
// LiveMessage, the realtime payloads) and guidedb imports guide.
package guidejobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/ai"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Store is what the guide's jobs read and write (guidedb.Guide).
type Store interface {
	FanOutPushMessage(ctx context.Context, jobID, messageID string) (int, error)
	PushDelivery(ctx context.Context, messageID, token string) (*guidedb.PushDelivery, error)
	ActionPushDelivery(ctx context.Context, actionID, token string) (*guidedb.ActionPush, error)
	ApplicationPushDelivery(ctx context.Context, applicationID, status, token string) (*guidedb.ApplicationPush, error)
	CancellationPushDelivery(ctx context.Context, bookingID, token string) (*guidedb.CancellationPush, error)
	DeletePushToken(ctx context.Context, token string) error
	LoadAIReplyContext(ctx context.Context, conversationID, messageID string) (*guidedb.AIReplyContext, error)
	PostAIReply(ctx context.Context, conversationID, messageID, text string) (string, error)
	FindLiveMessage(ctx context.Context, messageID string) (*guidedb.LiveMessage, error)
	MessageRecipient(ctx context.Context, messageID string) (conversationID, recipientID string, err error)
	UnreadCountOf(ctx context.Context, userID string) (int, error)
	FindLiveConversation(ctx context.Context, conversationID, userID string) (*guide.ConversationSummary, error)
}

// Jobs handles the guide's jobs. Set its fields, then Register it.
type Jobs struct {
	Store Store
	// Push delivers notifications; nil logs them (push.LogSender).
	Push push.Sender
	// AI writes the replies of experts with AI auto-reply; nil completes
	// AI jobs without a reply.
	AI *ai.Client
	// Blobs holds files that jobs may remove (a closed account's avatar);
	// nil leaves blob jobs queued.
	Blobs media.Store
	// Chat publishes recorded messages, read receipts and unread counts
	// on the realtime channel, and tells who follows a conversation live
	// (no push for them); nil completes realtime jobs without publishing.
	Chat chat.Publisher
	// PublicURL is the guide API's external base URL, for the absolute
	// image URLs of published messages and the confirmation URL of a
	// pending action's notification.
	PublicURL string
	// PushConcurrency bounds the push notifications sent at once (0:
	// jobs.DefaultConcurrency); they have slots of their own, so that a
	// slow AI model or webhook endpoint never holds them up.
	PushConcurrency int
	Logger          *slog.Logger // nil: slog.Default()

	runner *jobs.Runner
}

// Register gives r the guide's job kinds: the push notifications in a pool
// of their own, the realtime publications straight from their
// transactions (jobs.Kind.Direct), the rest in r's shared pool.
func (g *Jobs) Register(r *jobs.Runner) {
	g.runner = r
	pushPool := &jobs.Pool{Name: "push", Slots: g.PushConcurrency}
	if pushPool.Slots <= 0 {
		pushPool.Slots = jobs.DefaultConcurrency
	}
	r.Register(
		jobs.Kind{Name: guide.JobPushMessage, Handle: g.fanOut, Pool: pushPool},
		jobs.Kind{Name: guide.JobPushDevice, Handle: g.deliver, Pool: pushPool},
		jobs.Kind{Name: guide.JobPushAction, Handle: g.deliverAction, Pool: pushPool},
		jobs.Kind{Name: guide.JobPushApplication, Handle: g.deliverApplication, Pool: pushPool},
		jobs.Kind{Name: guide.JobPushCancellation, Handle: g.deliverCancellation, Pool: pushPool},
		jobs.Kind{Name: guide.JobAIReply, Handle: g.aiReply},
		jobs.Kind{Name: guide.JobRealtimeMessage, Handle: chat.PublishJob(g.Chat, g.messagePublications), Direct: true},
		jobs.Kind{Name: guide.JobRealtimeRead, Handle: chat.PublishJob(g.Chat, g.readPublications), Direct: true},
		jobs.Kind{Name: guide.JobRealtimeConversation, Handle: chat.PublishJob(g.Chat, g.conversationPublications), Direct: true},
	)
	if g.Blobs != nil {
		r.Register(jobs.Kind{Name: guide.JobBlobDelete, Handle: g.deleteBlob})
	}
}

func (g *Jobs) logger() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return slog.Default()
}

func (g *Jobs) sender() push.Sender {
	if g.Push != nil {
		return g.Push
	}
	return push.LogSender{Logger: g.Logger}
}

// deleteBlob removes a file no longer referenced. A missing file is done.
func (g *Jobs) deleteBlob(ctx context.Context, j store.Job) error {
	var p struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Key == "" {
		return jobs.Permanent(fmt.Errorf("blob.delete payload %s: %v", j.Payload, err))
	}
	return g.Blobs.Delete(ctx, p.Key)
}
