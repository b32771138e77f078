package guidehttp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// queryInt reads a whole-number query parameter: nil when absent or
// empty, guide.NotANumber when it is not a whole number. The service
// checks its bounds.
func queryInt(q url.Values, name string) *int {
	s := strings.TrimSpace(q.Get(name))
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		n = guide.NotANumber
	}
	return &n
}

func pageArgs(q url.Values) guide.PageArgs {
	return guide.PageArgs{Page: queryInt(q, "page"), PageSize: queryInt(q, "pageSize"), Order: q.Get("order")}
}

// writeList answers a page of a list, its image references absolute.
func writeList[T media.Referrer](w http.ResponseWriter, r *http.Request, data []T, meta paging.Meta, err error) error {
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), data...)
	httpx.WriteJSON(w, http.StatusOK, list[T]{data, meta})
	return nil
}

// writeItem answers one resource, its image references absolute.
func writeItem[T media.Referrer](w http.ResponseWriter, r *http.Request, status int, v T, err error) error {
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), v)
	httpx.WriteJSON(w, status, item{v})
	return nil
}

func (s *Server) handleExpertList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	experts, meta, err := s.svc.Experts(r.Context(), nil, guide.ExpertSearch{PageArgs: pageArgs(q), Locale: q.Get("locale"),
		Sort: q.Get("sort"), City: q.Get("city"), Language: q.Get("language"), Specialty: q.Get("specialty"), Country: q.Get("country")})
	return writeList(w, r, experts, meta, err)
}

func (s *Server) handleExpertGet(w http.ResponseWriter, r *http.Request) error {
	x, err := s.svc.Expert(r.Context(), nil, guide.ExpertLookup{Handle: r.PathValue("handle"), Locale: r.URL.Query().Get("locale")})
	return writeItem(w, r, http.StatusOK, x, err)
}

func (s *Server) handleExpertPackages(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	packages, meta, err := s.svc.ExpertPackages(r.Context(), nil, guide.ExpertPackageSearch{PageArgs: pageArgs(q),
		Handle: r.PathValue("handle"), Locale: q.Get("locale")})
	return writeList(w, r, packages, meta, err)
}

func (s *Server) handleExpertReviews(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	reviews, meta, err := s.svc.ExpertReviews(r.Context(), nil, guide.ReviewSearch{PageArgs: pageArgs(q),
		Handle: r.PathValue("handle"), Sort: q.Get("sort"), Locale: q.Get("locale")})
	return writeList(w, r, reviews, meta, err)
}

func (s *Server) handlePackageList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	packages, meta, err := s.svc.Packages(r.Context(), nil, guide.PackageSearch{PageArgs: pageArgs(q), Locale: q.Get("locale"),
		Sort: q.Get("sort"), Category: q.Get("category"), Country: q.Get("country")})
	return writeList(w, r, packages, meta, err)
}

func (s *Server) handlePackageGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Package(r.Context(), nil, guide.PackageLookup{ID: r.PathValue("id"), Locale: r.URL.Query().Get("locale")})
	return writeItem(w, r, http.StatusOK, p, err)
}

func (s *Server) handleTravelogueList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	travelogues, meta, err := s.svc.Travelogues(r.Context(), nil, guide.TravelogueSearch{PageArgs: pageArgs(q),
		Locale: q.Get("locale"), Sort: q.Get("sort"), Category: q.Get("category")})
	return writeList(w, r, travelogues, meta, err)
}

func (s *Server) handleTravelogueGet(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.Travelogue(r.Context(), caller(r.Context()), guide.TravelogueLookup{Slug: r.PathValue("slug"), Locale: r.URL.Query().Get("locale")})
	return writeItem(w, r, http.StatusOK, t, err)
}

func (s *Server) handleCities(w http.ResponseWriter, r *http.Request) error {
	cities, err := s.svc.Cities(r.Context(), nil)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{cities})
	return nil
}

func (s *Server) handleSpecialties(w http.ResponseWriter, r *http.Request) error {
	specialties, err := s.svc.Specialties(r.Context(), nil)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{specialties})
	return nil
}
