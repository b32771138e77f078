package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// maxPage bounds page so that offsets stay small integers.
const maxPage = 1_000_000

func pageParams(q *httpx.Query) paging.Page {
	return paging.Page{
		Page:     q.Int("page", 1, 1, maxPage),
		PageSize: q.Int("pageSize", 20, 1, 100),
		Order:    q.Enum("order", "desc", []string{"asc", "desc"}),
	}
}

func locale(q *httpx.Query) string { return q.Enum("locale", guide.DefaultLocale, guide.Locales) }

func (s *Server) handleExpertList(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := guide.ExpertFilter{
		Page:      pageParams(q),
		Locale:    locale(q),
		Sort:      q.Enum("sort", "rating", []string{"rating", "reviewCount", "createdAt"}),
		City:      q.String("city", 100),
		Language:  q.String("language", 20),
		Specialty: q.String("specialty", 50),
		Country:   q.Enum("country", "", guide.CountryCodes),
	}
	if err := q.Err(); err != nil {
		return err
	}
	experts, total, err := s.cfg.Catalog.FindExperts(r.Context(), f)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), experts...)
	httpx.WriteJSON(w, http.StatusOK, list[guide.ExpertSummary]{experts, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handleExpertGet(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	loc := locale(q)
	if err := q.Err(); err != nil {
		return err
	}
	x, err := s.cfg.Catalog.FindExpertByHandle(r.Context(), r.PathValue("handle"), loc)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), x)
	httpx.WriteJSON(w, http.StatusOK, item{x})
	return nil
}

func (s *Server) handleExpertPackages(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := guide.PackageFilter{Page: pageParams(q), Locale: locale(q), Sort: "createdAt", ExpertHandle: r.PathValue("handle")}
	if err := q.Err(); err != nil {
		return err
	}
	return s.writePackages(w, r, f)
}

func (s *Server) handleExpertReviews(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := guide.ReviewFilter{Page: pageParams(q), Sort: q.Enum("sort", "createdAt", []string{"createdAt", "rating"})}
	locale(q) // accepted for symmetry; reviews are shown in the language they were written in
	if err := q.Err(); err != nil {
		return err
	}
	reviews, total, err := s.cfg.Catalog.FindReviews(r.Context(), r.PathValue("handle"), f)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), reviews...)
	httpx.WriteJSON(w, http.StatusOK, list[guide.Review]{reviews, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handlePackageList(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := guide.PackageFilter{
		Page:     pageParams(q),
		Locale:   locale(q),
		Sort:     q.Enum("sort", "createdAt", []string{"basePrice", "price", "duration", "createdAt"}),
		Category: q.String("category", 50),
		Country:  q.Enum("country", "", guide.CountryCodes),
	}
	if err := q.Err(); err != nil {
		return err
	}
	return s.writePackages(w, r, f)
}

func (s *Server) writePackages(w http.ResponseWriter, r *http.Request, f guide.PackageFilter) error {
	packages, total, err := s.cfg.Catalog.FindPackages(r.Context(), f)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), packages...)
	httpx.WriteJSON(w, http.StatusOK, list[guide.PackageSummary]{packages, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handlePackageGet(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	loc := locale(q)
	if err := q.Err(); err != nil {
		return err
	}
	p, err := s.cfg.Catalog.FindPackageByID(r.Context(), r.PathValue("id"), loc)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

func (s *Server) handleTravelogueList(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	f := guide.TravelogueFilter{
		Page:     pageParams(q),
		Locale:   locale(q),
		Sort:     q.Enum("sort", "hotScore", []string{"hotScore", "score", "viewCount", "createdAt", "publishedAt"}),
		Category: q.String("category", 50),
	}
	if err := q.Err(); err != nil {
		return err
	}
	travelogues, total, err := s.cfg.Catalog.FindTravelogues(r.Context(), f)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), travelogues...)
	httpx.WriteJSON(w, http.StatusOK, list[guide.TravelogueSummary]{travelogues, paging.NewMeta(f.Page, total)})
	return nil
}

func (s *Server) handleTravelogueGet(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	loc := locale(q)
	if err := q.Err(); err != nil {
		return err
	}
	t, err := s.cfg.Catalog.FindTravelogueBySlug(r.Context(), r.PathValue("slug"), loc)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), t)
	httpx.WriteJSON(w, http.StatusOK, item{t})
	return nil
}

func (s *Server) handleCities(w http.ResponseWriter, r *http.Request) error {
	cities, err := s.cfg.Catalog.FindCities(r.Context())
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{cities})
	return nil
}

func (s *Server) handleSpecialties(w http.ResponseWriter, r *http.Request) error {
	specialties, err := s.cfg.Catalog.FindSpecialties(r.Context())
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{specialties})
	return nil
}
