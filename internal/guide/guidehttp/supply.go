package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// The experts' supply side: their packages and availability, with user
// tokens only (no API key scope writes them).

// supplyRoutes registers the experts' routes.
func (s *Server) supplyRoutes() {
	s.authed("PUT /api/expert/availability", userOnly, s.handleAvailabilityUpdate)
	s.authed("POST /api/v1/packages", userOnly, s.idem.Wrap(http.StatusCreated, nil, s.handlePackageCreate))
	s.authed("PATCH /api/v1/packages/{id}", userOnly, s.idem.Wrap(http.StatusOK, nil, s.handlePackageUpdate))
	// Each upload is decoded: a costly step, bounded per user before the
	// body is read.
	s.authed("POST /api/v1/packages/{id}/images", userOnly,
		httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.packageImageKey, s.handlePackageImageUpload))
	s.router.Handle("GET /media/packages/{key...}", httpx.Adapt(s.handlePackageImageGet))
}

func (s *Server) packageImageKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:package-image:" + caller(r.Context()).User.ID, s.cfg.ImageLimit
}

func (s *Server) handleAvailabilityUpdate(w http.ResponseWriter, r *http.Request) error {
	var in guide.AvailabilityUpdate
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	a, err := s.svc.UpdateAvailability(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}

func (s *Server) handlePackageCreate(w http.ResponseWriter, r *http.Request) error {
	var in guide.PackageFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.svc.CreatePackage(r.Context(), caller(r.Context()), in)
	err = restHints(err)
	if err != nil {
		return err
	}
	s.catalogChanged()
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusCreated, item{p})
	return nil
}

func (s *Server) handlePackageUpdate(w http.ResponseWriter, r *http.Request) error {
	// An id that names no package is answered before the body is read.
	id, err := httpx.PathID(r, "package")
	if err != nil {
		return err
	}
	var in guide.PackageFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	p, err := s.svc.UpdatePackage(r.Context(), caller(r.Context()), id, in)
	err = restHints(err)
	if err != nil {
		return err
	}
	s.catalogChanged()
	media.Resolve(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

// handlePackageImageUpload adds an uploaded image to a package, sanitised
// as avatars are.
func (s *Server) handlePackageImageUpload(w http.ResponseWriter, r *http.Request) error {
	ctx, c := r.Context(), caller(r.Context())
	// Whose package, and room for one more, before the upload is read and
	// decoded.
	id, err := s.svc.CheckPackageImage(ctx, c, r.PathValue("id"))
	err = restHints(err)
	if err != nil {
		return err
	}
	img, err := media.ReadImageUpload(w, r, maxImageUpload)
	if err != nil {
		return err
	}
	p, path, err := s.svc.AddPackageImage(ctx, c, id, img)
	err = restHints(err)
	if err != nil {
		return err
	}
	s.catalogChanged()
	media.Resolve(ctx, p)
	w.Header().Set("Location", httpx.AbsoluteURL(ctx, path))
	httpx.WriteJSON(w, http.StatusCreated, item{p})
	return nil
}

func (s *Server) handlePackageImageGet(w http.ResponseWriter, r *http.Request) error {
	return media.Serve(w, r, s.svc.Blobs, "packages/"+r.PathValue("key"))
}
