package worker

import (
	"context"
	"errors"

	"github.com/wayfarer-asia/platform/internal/push"
	"github.com/wayfarer-asia/platform/internal/store"
)

// fanOut turns a message's push job into one job per device of the
// recipient (none when the recipient is subscribed to the conversation's
// realtime channel: they see the message there), so that each device is retried, deferred for its quiet hours
// and delivered on its own, exactly once.
func (r *Runner) fanOut(ctx context.Context, j store.Job) error {
	var p struct {
		MessageID string `json:"messageId"`
	}
	if err := decode(j, &p); err != nil {
		return err
	}
	if r.liveRecipient(ctx, p.MessageID) {
		r.logger().DebugContext(ctx, "worker: recipient follows the conversation live; no push", "message", p.MessageID)
		return nil
	}
	n, err := r.Guide.FanOutPushMessage(ctx, j.ID, p.MessageID)
	if err != nil {
		return err
	}
	r.logger().DebugContext(ctx, "worker: push fanned out", "message", p.MessageID, "devices", n)
	return errFinished
}

// deliver sends a message's notification to one device, in the device's
// language, unless the device is in its quiet hours: then the job waits
// for the morning. A token the provider reports dead is forgotten.
func (r *Runner) deliver(ctx context.Context, j store.Job) error {
	var p struct {
		MessageID string `json:"messageId"`
		Token     string `json:"token"`
	}
	if err := decode(j, &p); err != nil {
		return err
	}
	d, err := r.Guide.PushDelivery(ctx, p.MessageID, p.Token)
	if err != nil || d == nil {
		return err // nil: the message, the device or the account is gone
	}
	if until, quiet := push.QuietUntil(r.now(), d.Timezone); quiet {
		return &deferral{until}
	}
	lang := push.Language(d.DeviceLocale, d.RecipientLocale)
	title, body := push.Notice{
		SenderName: d.SenderName, SenderDeleted: d.SenderDeleted, Image: d.MessageType == "IMAGE", Text: d.Text,
	}.Render(lang)
	err = r.sender().Send(ctx, push.Message{
		Token: d.Token, Platform: d.Platform, Title: title, Body: body,
		Data: map[string]string{
			"type": "message", "conversationId": d.ConversationID, "messageId": d.MessageID, "senderId": d.SenderID,
		},
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, push.ErrTokenGone):
		r.logger().InfoContext(ctx, "worker: push token is dead; removing it", "user", d.RecipientID, "platform", d.Platform, "err", err)
		return r.Guide.DeletePushToken(ctx, d.Token)
	case push.Retriable(err):
		return &retryLater{err: err, after: push.RetryAfter(err)}
	default:
		return &permanent{err}
	}
}
