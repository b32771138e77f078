package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
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
	if n > 0 {
		r.WakeFor(guidedb.JobPushDevice) // the deliveries are due
	}
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
	return r.send(ctx, d.RecipientID, push.Message{
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
func (r *Runner) deliverAction(ctx context.Context, j store.Job) error {
	var p struct {
		ActionID string `json:"actionId"`
		Token    string `json:"token"`
	}
	if err := decode(j, &p); err != nil {
		return err
	}
	d, err := r.Guide.ActionPushDelivery(ctx, p.ActionID, p.Token)
	if err != nil || d == nil {
		return err // nil: confirmed, expired, or the device or the account is gone
	}
	n := push.ActionNotice{KeyName: d.KeyName}
	data := map[string]string{
		"type": guide.EventActionPending, "actionId": d.ActionID, "action": d.Action,
		"expiresAt":  d.ExpiresAt.Format(time.RFC3339),
		"confirmUrl": r.PublicURL + "/api/v1/actions/" + d.ActionID + "/confirm",
	}
	switch d.Action {
	case guide.ActionBookingCancel:
		data["bookingId"] = d.TargetID
	case guide.ActionAccountDelete:
		n.CloseAccount = true
	default:
		return &permanent{fmt.Errorf("no notification for action %q", d.Action)}
	}
	title, body := n.Render(push.Language(d.DeviceLocale, d.RecipientLocale))
	return r.send(ctx, d.UserID, push.Message{Token: d.Token, Platform: d.Platform, Title: title, Body: body, Data: data})
}

// send delivers m to the device of user and turns the provider's answer
// into the job's outcome; a token the provider reports dead is forgotten.
func (r *Runner) send(ctx context.Context, user string, m push.Message) error {
	err := r.sender().Send(ctx, m)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, push.ErrTokenGone):
		r.logger().InfoContext(ctx, "worker: push token is dead; removing it", "user", user, "platform", m.Platform, "err", err)
		return r.Guide.DeletePushToken(ctx, m.Token)
	case push.Retriable(err):
		return &retryLater{err: err, after: push.RetryAfter(err)}
	default:
		return &permanent{err}
	}
}
