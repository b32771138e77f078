package guidejobs

import (
	"context"
	"fmt"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// cancellationTexts are the notification of a booking an admin cancelled
// because its expert was suspended, per language: the title, and the
// body with the expert's name and the booking's local time.
var cancellationTexts = map[string]struct{ title, body string }{
	push.English:            {"Booking cancelled", "Your booking with %s on %s was cancelled: the expert can no longer take bookings. Open the app to book another guide."},
	push.ChineseSimplified:  {"预订已取消", "您与%s在%s的预订已取消：该向导暂时无法接受预订。请打开应用预订其他向导。"},
	push.ChineseTraditional: {"預訂已取消", "您與%s在%s的預訂已取消：該嚮導暫時無法接受預訂。請開啟 App 預訂其他嚮導。"},
	push.Japanese:           {"予約がキャンセルされました", "%sさんとの%sの予約はキャンセルされました。このガイドは現在予約を受け付けていません。アプリで別のガイドをお探しください。"},
	push.Korean:             {"예약이 취소되었습니다", "%s 님과의 %s 예약이 취소되었습니다. 이 가이드는 현재 예약을 받을 수 없습니다. 앱에서 다른 가이드를 찾아 보세요."},
}

// deliverCancellation tells the traveller, on one device and in the
// device's language (else the account's), that an admin cancelled their
// booking, unless the device is in its quiet hours: then the job waits
// for the morning. The time is the booking's, in its expert's zone.
func (g *Jobs) deliverCancellation(ctx context.Context, j store.Job) error {
	var p struct {
		BookingID string `json:"bookingId"`
		Token     string `json:"token"`
	}
	if err := jobs.Decode(j, &p); err != nil {
		return err
	}
	d, err := g.Store.CancellationPushDelivery(ctx, p.BookingID, p.Token)
	if err != nil || d == nil {
		return err
	}
	if until, quiet := push.QuietUntil(g.runner.Now(), d.Timezone); quiet {
		return &jobs.Deferral{Until: until}
	}
	t, ok := cancellationTexts[push.Language(d.DeviceLocale, d.RecipientLocale)]
	if !ok {
		t = cancellationTexts[push.English]
	}
	when := d.ScheduledDate
	if loc, err := clock.LoadLocation(d.ExpertTimezone); err == nil {
		when = when.In(loc)
	}
	return g.send(ctx, d.UserID, push.Message{Token: d.Token, Platform: d.Platform, Title: t.title,
		Body: fmt.Sprintf(t.body, d.ExpertName, when.Format("2006-01-02 15:04")),
		Data: map[string]string{"type": "booking_cancelled", "bookingId": d.BookingID}})
}
