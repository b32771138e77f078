package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

func (s *Server) handleProfileGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Profile(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

func (s *Server) handleProfileUpdate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name     field.Optional[string] `json:"name"`
		Nickname field.Optional[string] `json:"nickname"`
		Bio      field.Optional[string] `json:"bio"`
		BioZh    field.Optional[string] `json:"bioZh"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	// Absent: left as it is; null: cleared.
	change := func(o field.Optional[string]) *guide.Change {
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
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

func (s *Server) handlePushRegister(w http.ResponseWriter, r *http.Request) error {
	var in guide.PushRegistration
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	in.UserAgent = r.UserAgent()
	out, err := s.svc.RegisterPushToken(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{out})
	return nil
}

func (s *Server) handlePushUnregister(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Token *string `json:"token"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	out, err := s.svc.UnregisterPushToken(r.Context(), caller(r.Context()), in.Token)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{out})
	return nil
}

// maxImageUpload is the largest image file accepted: an avatar or a
// package image.
const maxImageUpload = 5 << 20

func (s *Server) handleAvatarUpload(w http.ResponseWriter, r *http.Request) error {
	img, err := media.ReadImageUpload(w, r, maxImageUpload)
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
	return media.Serve(w, r, s.svc.Blobs, "avatars/"+r.PathValue("key"))
}
