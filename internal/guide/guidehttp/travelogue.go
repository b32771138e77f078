package guidehttp

import (
	"context"
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// Travelogue authoring: any signed-in person writes, with a user token
// only (no API key scope writes travelogues).

// maxTravelogueBody bounds a travelogue's JSON body: the content of five
// locales, each up to guide.MaxTravelogueContent characters of HTML.
const maxTravelogueBody = 2 << 20

// travelogueRoutes registers the authors' routes.
func (s *Server) travelogueRoutes() {
	// Each create is a new row and slug: bounded per user.
	s.authed("POST /api/v1/travelogues", userOnly, httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.travelogueKey,
		httpx.LimitBody(maxTravelogueBody, s.idem.Wrap(http.StatusCreated, nil, s.handleTravelogueCreate))))
	s.authed("GET /api/v1/travelogues/mine", userOnly, s.handleMyTravelogues)
	s.authed("GET /api/v1/travelogues/{slug}/edit", userOnly, s.handleMyTravelogue)
	s.authed("PATCH /api/v1/travelogues/{slug}", userOnly,
		httpx.LimitBody(maxTravelogueBody, s.idem.Wrap(http.StatusOK, nil, s.handleTravelogueUpdate)))
	s.authed("POST /api/v1/travelogues/{slug}/publish", userOnly, s.handleTravelogueStatus(s.svc.PublishTravelogue))
	s.authed("POST /api/v1/travelogues/{slug}/unpublish", userOnly, s.handleTravelogueStatus(s.svc.UnpublishTravelogue))
	// Uploads spend the user's image budget, the package images' one,
	// before the body is read.
	s.authed("POST /api/v1/travelogues/{slug}/images", userOnly,
		httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.packageImageKey, s.handleTravelogueImageUpload))
	s.router.Handle("GET /media/travelogues/{key...}", httpx.Adapt(s.handleTravelogueImageGet))
}

func (s *Server) travelogueKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:travelogue:" + caller(r.Context()).User.ID, s.cfg.TravelogueLimit
}

// travelogueReader lets GET /api/v1/travelogues/{slug} show a draft to
// its author: a request with a user token is authenticated (401 when the
// token is bad) and answered for that person, past the page cache, whose
// pages are everyone's; any other request, an API key's included, is the
// public read, through public.
func (s *Server) travelogueReader(public, h httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		bearer, ok, err := httpx.BearerToken(r)
		if err != nil {
			return err
		}
		if !ok || auth.IsAPIKey(bearer) {
			return public(w, r)
		}
		c, err := s.auth.Authenticate(w, r, userOnly)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "private, no-store")
		return h(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	}
}

func (s *Server) handleTravelogueCreate(w http.ResponseWriter, r *http.Request) error {
	var in guide.TravelogueFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	t, err := s.svc.CreateTravelogue(r.Context(), caller(r.Context()), in)
	err = restHints(err)
	return writeItem(w, r, http.StatusCreated, t, err)
}

func (s *Server) handleTravelogueUpdate(w http.ResponseWriter, r *http.Request) error {
	var in guide.TravelogueFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	t, err := s.svc.UpdateTravelogue(r.Context(), caller(r.Context()), r.PathValue("slug"), in)
	err = restHints(err)
	if err == nil && t.Status == guide.TraveloguePublished {
		s.catalogChanged()
	}
	return writeItem(w, r, http.StatusOK, t, err)
}

// handleTravelogueStatus answers publish and unpublish, which change the
// public lists.
func (s *Server) handleTravelogueStatus(move func(context.Context, *guide.Caller, string) (*guide.AuthorTravelogue, error)) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := move(r.Context(), caller(r.Context()), r.PathValue("slug"))
		if err == nil {
			s.catalogChanged()
		}
		return writeItem(w, r, http.StatusOK, t, err)
	}
}

func (s *Server) handleMyTravelogues(w http.ResponseWriter, r *http.Request) error {
	page, err := pageArgs(r.URL.Query())
	if err != nil {
		return err
	}
	list, meta, err := s.svc.MyTravelogues(r.Context(), caller(r.Context()), page)
	return writeList(w, r, list, meta, err)
}

func (s *Server) handleMyTravelogue(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.MyTravelogue(r.Context(), caller(r.Context()), r.PathValue("slug"))
	return writeItem(w, r, http.StatusOK, t, err)
}

// handleTravelogueImageUpload adds an uploaded image to a travelogue,
// sanitised as avatars and package images are.
func (s *Server) handleTravelogueImageUpload(w http.ResponseWriter, r *http.Request) error {
	ctx, c := r.Context(), caller(r.Context())
	// Whose travelogue, and room for one more, before the upload is read
	// and decoded.
	slug, err := s.svc.CheckTravelogueImage(ctx, c, r.PathValue("slug"))
	err = restHints(err)
	if err != nil {
		return err
	}
	img, err := media.ReadImageUpload(w, r, maxImageUpload)
	if err != nil {
		return err
	}
	t, path, err := s.svc.AddTravelogueImage(ctx, c, slug, img)
	err = restHints(err)
	if err != nil {
		return err
	}
	if t.Status == guide.TraveloguePublished {
		s.catalogChanged()
	}
	w.Header().Set("Location", httpx.AbsoluteURL(ctx, path))
	return writeItem(w, r, http.StatusCreated, t, nil)
}

func (s *Server) handleTravelogueImageGet(w http.ResponseWriter, r *http.Request) error {
	return media.Serve(w, r, s.svc.Blobs, "travelogues/"+r.PathValue("key"))
}
