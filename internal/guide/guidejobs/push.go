package guidejobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// fanOut turns a message's push job into one job per device of the
// recipient (none when the recipient is subscribed to the conversation's
// realtime channel: they see the message there), so that each device is retried, deferred for its quiet hours
// and delivered on its own, exactly once.
func (g *Jobs) fanOut(ctx context.Context, j store.Job) error {
	var p struct {
		MessageID string `json:"messageId"`
	}
	if err := jobs.Decode(j, &p); err != nil {
		return err
	}
	if g.liveRecipient(ctx, p.MessageID) {
		g.logger().DebugContext(ctx, "worker: recipient follows the conversation live; no push", "message", p.MessageID)
		return nil
	}
	n, err := g.Store.FanOutPushMessage(ctx, j.ID, p.MessageID)
	if err != nil {
		return err
	}
	g.logger().DebugContext(ctx, "worker: push fanned out", "message", p.MessageID, "devices", n)
	if n > 0 {
		g.runner.WakeFor(guide.JobPushDevice) // the deliveries are due
	}
	return jobs.ErrFinished
}

// deliver sends a message's notification to one device, in the device's
// language, unless the device is in its quiet hours: then the job waits
// for the morning. A token the provider reports dead is forgotten.
func (g *Jobs) deliver(ctx context.Context, j store.Job) error {
	var p struct {
		MessageID string `json:"messageId"`
		Token     string `json:"token"`
	}
	if err := jobs.Decode(j, &p); err != nil {
		return err
	}
	d, err := g.Store.PushDelivery(ctx, p.MessageID, p.Token)
	if err != nil || d == nil {
		return err // nil: the message, the device or the account is gone
	}
	if until, quiet := push.QuietUntil(g.runner.Now(), d.Timezone); quiet {
		return &jobs.Deferral{Until: until}
	}
	lang := push.Language(d.DeviceLocale, d.RecipientLocale)
	title, body := push.Notice{
		SenderName: d.SenderName, SenderDeleted: d.SenderDeleted, Image: d.MessageType == "IMAGE", Text: d.Text,
	}.Render(lang)
	return g.send(ctx, d.RecipientID, push.Message{
		Token: d.Token, Platform: d.Platform, Title: title, Body: body,
		Data: map[string]string{
			"type": "message", "conversationId": d.ConversationID, "messageId": d.MessageID, "senderId": d.SenderID,
		},
	})
}

// deliverAction asks the person, on one device, to confirm a pending
// action an API key asked for, in the device's language, while the action
// is still pending: once confirmed or expired there is nothing to ask, and
// the job ends without sending. Quiet hours do not apply: the person's own
// agent has just asked, and the action expires within PENDING_ACTION_TTL
// (10 minutes by default): held until the morning, it would come too late.
func (g *Jobs) deliverAction(ctx context.Context, j store.Job) error {
	var p struct {
		ActionID string `json:"actionId"`
		Token    string `json:"token"`
	}
	if err := jobs.Decode(j, &p); err != nil {
		return err
	}
	d, err := g.Store.ActionPushDelivery(ctx, p.ActionID, p.Token)
	if err != nil || d == nil {
		return err // nil: confirmed, expired, or the device or the account is gone
	}
	n := push.ActionNotice{KeyName: d.KeyName}
	data := map[string]string{
		"type": guide.EventActionPending, "actionId": d.ActionID, "action": d.Action,
		"expiresAt":  d.ExpiresAt.Format(time.RFC3339),
		"confirmUrl": g.PublicURL + "/api/v1/actions/" + d.ActionID + "/confirm",
	}
	switch d.Action {
	case guide.ActionBookingCancel:
		data["bookingId"] = d.TargetID
	case guide.ActionAccountDelete:
		n.CloseAccount = true
	default:
		return jobs.Permanent(fmt.Errorf("no notification for action %q", d.Action))
	}
	title, body := n.Render(push.Language(d.DeviceLocale, d.RecipientLocale))
	return g.send(ctx, d.UserID, push.Message{Token: d.Token, Platform: d.Platform, Title: title, Body: body, Data: data})
}

// send delivers m to the device of user and turns the provider's answer
// into the job's outcome; a token the provider reports dead is forgotten.
func (g *Jobs) send(ctx context.Context, user string, m push.Message) error {
	err := g.sender().Send(ctx, m)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, push.ErrTokenGone):
		g.logger().InfoContext(ctx, "worker: push token is dead; removing it", "user", user, "platform", m.Platform, "err", err)
		return g.Store.DeletePushToken(ctx, m.Token)
	case push.Retriable(err):
		return jobs.RetryAfter(err, push.RetryAfter(err))
	default:
		return jobs.Permanent(err)
	}
}
