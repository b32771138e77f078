package guide

import (
	"context"
	"regexp"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

var languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$`)

// PushRegistration is a device to register for push notifications, as
// sent. Without Platform, a web session's device is WEB, and an app's
// (a bearer token) is told by UserAgent, which the door fills in.
type PushRegistration struct {
	Token        *string `json:"token"`
	Device       *string `json:"device"`
	Platform     *string `json:"platform"`
	AppVersion   *string `json:"appVersion"`
	BuildNumber  *int    `json:"buildNumber"`
	DeviceLocale *string `json:"deviceLocale"`
	Timezone     *string `json:"timezone"`
	UserAgent    string  `json:"-"`
}

// RegisteredPush is the answer to a device's registration.
type RegisteredPush struct {
	Token      string `json:"token"`
	Platform   string `json:"platform"`
	Registered bool   `json:"registered"`
}

// RegisterPushToken registers the caller's device, moving its token from
// any other account that held it. Errors: apperr.Unauthorized,
// apperr.Validation.
func (s *Service) RegisterPushToken(ctx context.Context, c *Caller, in PushRegistration) (*RegisteredPush, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	t := PushToken{UserID: c.User.ID, Device: in.Device, AppVersion: in.AppVersion, BuildNumber: in.BuildNumber,
		DeviceLocale: in.DeviceLocale, Timezone: in.Timezone}
	t.Token = field.CheckString(errs, "token", in.Token, true, 1, 4096)
	if in.Token != nil && t.Token == "" {
		errs.Add("token", "must not be blank")
	}
	field.CheckString(errs, "device", in.Device, false, 1, 200)
	field.CheckString(errs, "appVersion", in.AppVersion, false, 1, 50)
	if in.BuildNumber != nil && *in.BuildNumber < 0 {
		errs.Add("buildNumber", "must not be negative")
	}
	if in.DeviceLocale != nil && !languageTag.MatchString(*in.DeviceLocale) {
		errs.Add("deviceLocale", "must be a language tag such as en-GB or zh-Hant-TW")
	}
	if in.Timezone != nil {
		if _, err := clock.LoadLocation(*in.Timezone); err != nil || *in.Timezone == "" || *in.Timezone == "Local" {
			errs.Add("timezone", "must be an IANA time zone such as Asia/Tokyo")
		}
	}
	switch {
	case in.Platform != nil:
		if p := *in.Platform; p != "WEB" && p != "ANDROID" && p != "IOS" {
			errs.Add("platform", "must be WEB, ANDROID or IOS")
		}
		t.Platform = *in.Platform
	case c.Session:
		t.Platform = "WEB"
	default:
		// A bearer token means a native app; its user agent tells which.
		if t.Platform = nativePlatform(in.UserAgent); t.Platform == "" {
			errs.Add("platform", "is required: the user agent does not tell whether this is an iOS or Android app")
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if err := s.Profiles.RegisterPushToken(ctx, t); err != nil {
		return nil, err
	}
	return &RegisteredPush{Token: t.Token, Platform: t.Platform, Registered: true}, nil
}

func nativePlatform(ua string) string {
	ua = strings.ToLower(ua)
	switch {
	case strings.Contains(ua, "android") || strings.Contains(ua, "okhttp"):
		return "ANDROID"
	case strings.Contains(ua, "iphone") || strings.Contains(ua, "ipad") || strings.Contains(ua, "ios") ||
		strings.Contains(ua, "cfnetwork") || strings.Contains(ua, "darwin"):
		return "IOS"
	}
	return ""
}

// UnregisteredPush is the answer to a device's removal.
type UnregisteredPush struct {
	Token   string `json:"token"`
	Removed bool   `json:"removed"`
}

// UnregisterPushToken removes the caller's device token; Removed tells
// whether it was registered to them. Errors: apperr.Unauthorized,
// apperr.Validation.
func (s *Service) UnregisterPushToken(ctx context.Context, c *Caller, token *string) (*UnregisteredPush, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	t := field.CheckString(errs, "token", token, true, 1, 4096)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	removed, err := s.Profiles.UnregisterPushToken(ctx, c.User.ID, t)
	if err != nil {
		return nil, err
	}
	return &UnregisteredPush{Token: t, Removed: removed}, nil
}
