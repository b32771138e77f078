package guidejobs

import (
	"context"
	"fmt"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/jobs"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// applicationTexts are the notifications of the decisions on an expert
// application, per language: title and body of an approval (with the
// handle), a rejection and a request for changes.
var applicationTexts = map[string]struct {
	approvedTitle, approvedBody, rejectedTitle, rejectedBody, changesTitle, changesBody string
}{
	push.English: {"You are a verified expert", "Your profile is live as @%s. Welcome aboard!",
		"Expert application declined", "Your application was not approved. Open the app to read why.",
		"Changes requested", "A reviewer asks for changes to your expert application. Open the app to see them."},
	push.ChineseSimplified: {"您已成为认证向导", "您的主页已上线：@%s。欢迎加入！",
		"向导申请未通过", "您的申请未获批准。请打开应用查看原因。",
		"需要修改申请", "审核人员请您修改向导申请。请打开应用查看。"},
	push.ChineseTraditional: {"您已成為認證嚮導", "您的個人頁面已上線：@%s。歡迎加入！",
		"嚮導申請未通過", "您的申請未獲核准。請開啟 App 查看原因。",
		"需要修改申請", "審核人員請您修改嚮導申請。請開啟 App 查看。"},
	push.Japanese: {"認定ガイドになりました", "プロフィールが @%s として公開されました。ようこそ！",
		"ガイド申請は承認されませんでした", "申請は承認されませんでした。理由はアプリでご確認ください。",
		"申請の修正依頼", "審査担当者からガイド申請の修正依頼があります。アプリでご確認ください。"},
	push.Korean: {"인증 가이드가 되었습니다", "프로필이 @%s(으)로 공개되었습니다. 환영합니다!",
		"가이드 신청이 승인되지 않았습니다", "신청이 승인되지 않았습니다. 앱에서 사유를 확인하세요.",
		"신청 수정 요청", "검토자가 가이드 신청의 수정을 요청했습니다. 앱에서 확인하세요."},
}

// deliverApplication tells the applicant, on one device and in the
// device's language (else the account's), the decision on their
// application, unless the device is in its quiet hours: then the job
// waits for the morning. Nothing is sent once the application has moved
// on from the status decided (the applicant answered a request for
// changes, another decision followed).
func (g *Jobs) deliverApplication(ctx context.Context, j store.Job) error {
	var p struct {
		ApplicationID string `json:"applicationId"`
		Status        string `json:"status"`
		Token         string `json:"token"`
	}
	if err := jobs.Decode(j, &p); err != nil {
		return err
	}
	d, err := g.Store.ApplicationPushDelivery(ctx, p.ApplicationID, p.Status, p.Token)
	if err != nil || d == nil {
		return err
	}
	if until, quiet := push.QuietUntil(g.runner.Now(), d.Timezone); quiet {
		return &jobs.Deferral{Until: until}
	}
	t, ok := applicationTexts[push.Language(d.DeviceLocale, d.RecipientLocale)]
	if !ok {
		t = applicationTexts[push.English]
	}
	var title, body string
	switch d.Status {
	case guide.ApplicationApproved:
		title, body = t.approvedTitle, fmt.Sprintf(t.approvedBody, d.Handle)
	case guide.ApplicationRejected:
		title, body = t.rejectedTitle, t.rejectedBody
	case guide.ApplicationChangesRequested:
		title, body = t.changesTitle, t.changesBody
	default:
		return jobs.Permanent(fmt.Errorf("no notification for application status %q", d.Status))
	}
	return g.send(ctx, d.UserID, push.Message{Token: d.Token, Platform: d.Platform, Title: title, Body: body,
		Data: map[string]string{"type": "expert_application", "applicationId": d.ApplicationID, "status": d.Status}})
}
