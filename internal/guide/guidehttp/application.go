package guidehttp

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// Guides join the marketplace: applications, and the verified expert's
// own profile. User tokens only; the admins' side is in admin.go.

// applicationRoutes registers the applicants' and experts' routes.
func (s *Server) applicationRoutes() {
	// Every write of an application spends the applicant's budget, before
	// the body is read: uploads are decoded, a costly step.
	limited := func(h httpx.HandlerFunc) httpx.HandlerFunc {
		return httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.applicationKey, h)
	}
	s.authed("POST /api/v1/expert-applications", userOnly, limited(s.handleApply))
	s.authed("GET /api/v1/expert-applications/mine", userOnly, s.handleMyApplication)
	s.authed("PATCH /api/v1/expert-applications/{id}", userOnly, limited(s.handleApplicationUpdate))
	s.authed("POST /api/v1/expert-applications/{id}/documents", userOnly, limited(s.handleApplicationDocument))
	s.authed("GET /api/v1/expert/profile", userOnly, s.handleExpertProfile)
	s.authed("PATCH /api/v1/expert/profile", userOnly, s.handleExpertProfileUpdate)
	s.authed("POST /api/v1/expert/profile/images", userOnly,
		httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.expertImageKey, s.handleExpertImageUpload))
	s.router.Handle("GET /media/experts/{key...}", httpx.Adapt(s.handleExpertImageGet))
}

func (s *Server) applicationKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:application:" + caller(r.Context()).User.ID, s.cfg.ApplicationLimit
}

func (s *Server) expertImageKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:expert-image:" + caller(r.Context()).User.ID, s.cfg.AvatarLimit
}

func (s *Server) handleApply(w http.ResponseWriter, r *http.Request) error {
	var in guide.ApplicationFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	a, err := s.svc.Apply(r.Context(), caller(r.Context()), in)
	err = restHints(err)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, item{a})
	return nil
}

func (s *Server) handleMyApplication(w http.ResponseWriter, r *http.Request) error {
	a, err := s.svc.MyApplication(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{a})
	return nil
}

func (s *Server) handleApplicationUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "application")
	if err != nil {
		return err
	}
	var in guide.ApplicationFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	a, err := s.svc.UpdateApplication(r.Context(), caller(r.Context()), id, in)
	err = restHints(err)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{a})
	return nil
}

func (s *Server) handleApplicationDocument(w http.ResponseWriter, r *http.Request) error {
	ctx, c := r.Context(), caller(r.Context())
	// Whose application, open, and room for one more, before the upload
	// is read.
	id, err := s.svc.CheckApplicationDocument(ctx, c, r.PathValue("id"))
	if err != nil {
		return err
	}
	doc, err := media.ReadDocumentUpload(w, r, guide.MaxDocumentBytes)
	if err != nil {
		return err
	}
	a, err := s.svc.AddApplicationDocument(ctx, c, id, doc)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, item{a})
	return nil
}

func (s *Server) handleExpertProfile(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.MyExpertProfile(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

func (s *Server) handleExpertProfileUpdate(w http.ResponseWriter, r *http.Request) error {
	var in guide.ProfileFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.svc.UpdateExpertProfile(r.Context(), caller(r.Context()), in)
	err = restHints(err)
	if err != nil {
		return err
	}
	s.catalogChanged()
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

// handleExpertImageUpload makes the uploaded image, sanitised as avatars
// are, the expert's profile or cover image (?kind=).
func (s *Server) handleExpertImageUpload(w http.ResponseWriter, r *http.Request) error {
	ctx, c := r.Context(), caller(r.Context())
	kind := r.URL.Query().Get("kind")
	if _, err := s.svc.CheckExpertImage(ctx, c, kind); err != nil {
		return err
	}
	img, err := media.ReadImageUpload(w, r, maxImageUpload)
	if err != nil {
		return err
	}
	p, path, err := s.svc.SetExpertImage(ctx, c, kind, img)
	if err != nil {
		return err
	}
	s.catalogChanged()
	media.Resolve(ctx, p)
	w.Header().Set("Location", httpx.AbsoluteURL(ctx, path))
	httpx.WriteJSON(w, http.StatusCreated, item{p})
	return nil
}

func (s *Server) handleExpertImageGet(w http.ResponseWriter, r *http.Request) error {
	return media.Serve(w, r, s.svc.Blobs, guide.ExpertUploadsPrefix+r.PathValue("key"))
}

// The admins' side of applications (registered by adminRoutes).

func (s *Server) handleApplicationQueue(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	apps, meta, err := s.svc.ListApplications(r.Context(), caller(r.Context()), guide.ApplicationSearch{PageArgs: page, Status: q.Get("status")})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[guide.Application]{apps, meta})
	return nil
}

func (s *Server) handleApplicationGet(w http.ResponseWriter, r *http.Request) error {
	a, err := s.svc.GetApplication(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{a})
	return nil
}

func (s *Server) handleApplicationDecision(w http.ResponseWriter, r *http.Request) error {
	var in guide.DecisionFields
	// An approval may come without a body.
	if r.ContentLength != 0 {
		if err := httpx.Decode(w, r, &in); err != nil {
			return err
		}
	}
	a, err := s.svc.DecideApplication(r.Context(), caller(r.Context()), r.PathValue("id"), r.PathValue("decision"), in)
	if err != nil {
		return err
	}
	if a.Status == guide.ApplicationApproved {
		s.catalogChanged()
	}
	httpx.WriteJSON(w, http.StatusOK, item{a})
	return nil
}

// handleApplicationDocumentGet streams a verification document to an
// admin: as an attachment, never sniffed, never cached, and unable to run
// anything were a browser to render it.
func (s *Server) handleApplicationDocumentGet(w http.ResponseWriter, r *http.Request) error {
	rc, d, err := s.svc.OpenApplicationDocument(r.Context(), caller(r.Context()), r.PathValue("id"), r.PathValue("docId"))
	if err != nil {
		return err
	}
	defer rc.Close()
	ext := ".pdf"
	switch d.ContentType {
	case media.JPEG:
		ext = ".jpg"
	case media.PNG:
		ext = ".png"
	}
	h := w.Header()
	h.Set("Content-Type", d.ContentType)
	h.Set("Content-Length", strconv.Itoa(d.Size))
	h.Set("Content-Disposition", `attachment; filename="document-`+d.ID+ext+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, rc); err != nil {
		slog.WarnContext(r.Context(), "serving an application document failed", "document", d.ID, "err", err)
	}
	return nil
}
