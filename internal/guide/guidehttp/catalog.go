package guidehttp

import (
	"net/http"
	"net/url"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// pageArgs reads the page selection of a list. Text that is no whole
// number is refused here; the service checks the ranges.
func pageArgs(q url.Values) (guide.PageArgs, error) {
	p := httpx.NewQuery(q)
	args := guide.PageArgs{Page: p.Whole("page", paging.PageRange), PageSize: p.Whole("pageSize", paging.SizeRange), Order: q.Get("order")}
	return args, p.Err()
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
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	experts, meta, err := s.svc.Experts(r.Context(), nil, guide.ExpertSearch{PageArgs: page, Locale: q.Get("locale"),
		Sort: q.Get("sort"), City: q.Get("city"), Language: q.Get("language"), Specialty: q.Get("specialty"), Country: q.Get("country")})
	return writeList(w, r, experts, meta, err)
}

func (s *Server) handleExpertGet(w http.ResponseWriter, r *http.Request) error {
	x, err := s.svc.Expert(r.Context(), nil, guide.ExpertLookup{Handle: r.PathValue("handle"), Locale: r.URL.Query().Get("locale")})
	return writeItem(w, r, http.StatusOK, x, err)
}

func (s *Server) handleExpertPackages(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	packages, meta, err := s.svc.ExpertPackages(r.Context(), nil, guide.ExpertPackageSearch{PageArgs: page,
		Handle: r.PathValue("handle"), Locale: q.Get("locale")})
	return writeList(w, r, packages, meta, err)
}

func (s *Server) handleExpertReviews(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	reviews, meta, err := s.svc.ExpertReviews(r.Context(), nil, guide.ReviewSearch{PageArgs: page,
		Handle: r.PathValue("handle"), Sort: q.Get("sort"), Locale: q.Get("locale")})
	return writeList(w, r, reviews, meta, err)
}

func (s *Server) handlePackageList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	packages, meta, err := s.svc.Packages(r.Context(), nil, guide.PackageSearch{PageArgs: page, Locale: q.Get("locale"),
		Sort: q.Get("sort"), Category: q.Get("category"), Country: q.Get("country")})
	return writeList(w, r, packages, meta, err)
}

func (s *Server) handlePackageGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Package(r.Context(), nil, guide.PackageLookup{ID: r.PathValue("id"), Locale: r.URL.Query().Get("locale")})
	return writeItem(w, r, http.StatusOK, p, err)
}

func (s *Server) handleTravelogueList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	travelogues, meta, err := s.svc.Travelogues(r.Context(), nil, guide.TravelogueSearch{PageArgs: page,
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
