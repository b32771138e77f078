package guidehttp

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

func (s *Server) handleProfileGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Profile(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

func (s *Server) handleProfileUpdate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name     httpx.Optional[string] `json:"name"`
		Nickname httpx.Optional[string] `json:"nickname"`
		Bio      httpx.Optional[string] `json:"bio"`
		BioZh    httpx.Optional[string] `json:"bioZh"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	// Absent: left as it is; null: cleared.
	change := func(o httpx.Optional[string]) *guide.Change {
		if !o.Set {
			return nil
		}
		return &guide.Change{Value: o.Value}
	}
	p, err := s.svc.UpdateProfile(r.Context(), caller(r.Context()), guide.ProfileUpdate{
		Name: change(in.Name), Nickname: change(in.Nickname), Bio: change(in.Bio), BioZh: change(in.BioZh)})
	if err != nil {
		return err
	}
	s.catalogChanged()
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

var languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$`)

func (s *Server) handlePushRegister(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Token        *string `json:"token"`
		Device       *string `json:"device"`
		Platform     *string `json:"platform"`
		AppVersion   *string `json:"appVersion"`
		BuildNumber  *int    `json:"buildNumber"`
		DeviceLocale *string `json:"deviceLocale"`
		Timezone     *string `json:"timezone"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	c := caller(r.Context())
	errs := apperr.FieldErrors{}
	t := guide.PushToken{UserID: c.User.ID, Device: in.Device, AppVersion: in.AppVersion, BuildNumber: in.BuildNumber,
		DeviceLocale: in.DeviceLocale, Timezone: in.Timezone}
	t.Token = httpx.CheckString(errs, "token", in.Token, true, 1, 4096)
	if in.Token != nil && t.Token == "" {
		errs.Add("token", "must not be blank")
	}
	httpx.CheckString(errs, "device", in.Device, false, 1, 200)
	httpx.CheckString(errs, "appVersion", in.AppVersion, false, 1, 50)
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
		if t.Platform = nativePlatform(r.UserAgent()); t.Platform == "" {
			errs.Add("platform", "is required: the user agent does not tell whether this is an iOS or Android app")
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	if err := s.cfg.Profiles.RegisterPushToken(r.Context(), t); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		Token      string `json:"token"`
		Platform   string `json:"platform"`
		Registered bool   `json:"registered"`
	}{t.Token, t.Platform, true}})
	return nil
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

func (s *Server) handlePushUnregister(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Token *string `json:"token"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	token := httpx.CheckString(errs, "token", in.Token, true, 1, 4096)
	if err := errs.Err(); err != nil {
		return err
	}
	removed, err := s.cfg.Profiles.UnregisterPushToken(r.Context(), caller(r.Context()).User.ID, token)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		Token   string `json:"token"`
		Removed bool   `json:"removed"`
	}{token, removed}})
	return nil
}

// maxImageUpload is the largest image file accepted: an avatar or a
// package image.
const maxImageUpload = 5 << 20

func (s *Server) handleAvatarUpload(w http.ResponseWriter, r *http.Request) error {
	img, err := httpx.ReadImageUpload(w, r, maxImageUpload)
	if err != nil {
		return err
	}
	path, err := s.svc.SetAvatar(r.Context(), caller(r.Context()), img)
	if err != nil {
		return err
	}
	s.catalogChanged()
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		URL string `json:"url"`
	}{httpx.AbsoluteURL(r.Context(), path)}})
	return nil
}

func (s *Server) handleAvatarGet(w http.ResponseWriter, r *http.Request) error {
	return httpx.ServeBlob(w, r, s.cfg.Avatars, "avatars/"+r.PathValue("key"))
}
