package guide

import (
	"context"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// The arguments of the reads are taken as a door received them: text
// untrimmed, "" for absent, and numbers as pointers, nil for absent. Each
// method trims them, checks them against its bounds and allowed values
// (one apperr.Validation naming every bad field) and applies its
// defaults, so that every door reads alike. A door that receives numbers
// as text parses them itself, naming the same ranges (paging.PageRange,
// paging.SizeRange, MessageLimitRange) for text that is no whole number.

// PageArgs selects a page of a list.
type PageArgs struct {
	Page     *int   // from 1 (default 1)
	PageSize *int   // 1 to 100 (default 20)
	Order    string // asc or desc (default desc)
}

func (p PageArgs) check(errs apperr.FieldErrors) paging.Page {
	return paging.Select(errs, p.Page, p.PageSize, p.Order, "desc")
}

func localeArg(errs apperr.FieldErrors, v string) string {
	return field.Enum(errs, "locale", v, DefaultLocale, Locales)
}

// ExpertSearch selects verified experts.
type ExpertSearch struct {
	PageArgs
	Locale    string
	Sort      string // rating (default), reviewCount, createdAt
	City      string // up to 100 characters
	Language  string // up to 20 characters
	Specialty string // up to 50 characters
	Country   string // one of CountryCodes
}

// Experts lists verified experts. The catalogue is public: c may be nil.
// Errors: apperr.Validation.
func (s *Service) Experts(ctx context.Context, _ *Caller, in ExpertSearch) ([]ExpertSummary, paging.Meta, error) {
	errs := apperr.FieldErrors{}
	f := ExpertFilter{
		Page:      in.check(errs),
		Locale:    localeArg(errs, in.Locale),
		Sort:      field.Enum(errs, "sort", in.Sort, "rating", []string{"rating", "reviewCount", "createdAt"}),
		City:      field.Text(errs, "city", in.City, 100),
		Language:  field.Text(errs, "language", in.Language, 20),
		Specialty: field.Text(errs, "specialty", in.Specialty, 50),
		Country:   field.Enum(errs, "country", in.Country, "", CountryCodes),
	}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	experts, total, err := s.Catalog.FindExperts(ctx, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return experts, paging.NewMeta(f.Page, total), nil
}

// ExpertLookup names a verified expert by handle.
type ExpertLookup struct {
	Handle string
	Locale string
}

// Expert returns a verified expert's public page. Errors:
// apperr.Validation, apperr.NotFound.
func (s *Service) Expert(ctx context.Context, _ *Caller, in ExpertLookup) (*ExpertDetail, error) {
	errs := apperr.FieldErrors{}
	loc := localeArg(errs, in.Locale)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Catalog.FindExpertByHandle(ctx, in.Handle, loc)
}

// ExpertPackageSearch selects the active packages of a verified expert,
// newest first.
type ExpertPackageSearch struct {
	PageArgs
	Handle string
	Locale string
}

// ExpertPackages lists the active packages of a verified expert. Errors:
// apperr.Validation, apperr.NotFound (no verified expert has the handle).
func (s *Service) ExpertPackages(ctx context.Context, _ *Caller, in ExpertPackageSearch) ([]PackageSummary, paging.Meta, error) {
	errs := apperr.FieldErrors{}
	f := PackageFilter{Page: in.check(errs), Locale: localeArg(errs, in.Locale), Sort: "createdAt", ExpertHandle: in.Handle}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	return s.packages(ctx, f)
}

// PackageSearch selects active packages.
type PackageSearch struct {
	PageArgs
	Locale   string
	Sort     string // createdAt (default), basePrice, price, duration
	Category string // up to 50 characters
	Country  string // one of CountryCodes
}

// Packages lists active packages. Errors: apperr.Validation.
func (s *Service) Packages(ctx context.Context, _ *Caller, in PackageSearch) ([]PackageSummary, paging.Meta, error) {
	errs := apperr.FieldErrors{}
	f := PackageFilter{
		Page:     in.check(errs),
		Locale:   localeArg(errs, in.Locale),
		Sort:     field.Enum(errs, "sort", in.Sort, "createdAt", []string{"basePrice", "price", "duration", "createdAt"}),
		Category: field.Text(errs, "category", in.Category, 50),
		Country:  field.Enum(errs, "country", in.Country, "", CountryCodes),
	}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	return s.packages(ctx, f)
}

func (s *Service) packages(ctx context.Context, f PackageFilter) ([]PackageSummary, paging.Meta, error) {
	packages, total, err := s.Catalog.FindPackages(ctx, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return packages, paging.NewMeta(f.Page, total), nil
}

// PackageLookup names an active package by id.
type PackageLookup struct {
	ID     string
	Locale string
}

// Package returns an active package of a verified expert. Errors:
// apperr.Validation, apperr.NotFound.
func (s *Service) Package(ctx context.Context, _ *Caller, in PackageLookup) (*PackageDetail, error) {
	errs := apperr.FieldErrors{}
	loc := localeArg(errs, in.Locale)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Catalog.FindPackageByID(ctx, in.ID, loc)
}

// ReviewSearch selects the reviews of a verified expert.
type ReviewSearch struct {
	PageArgs
	Handle string
	Sort   string // createdAt (default), rating
	// Locale is checked, for symmetry with the other reads; reviews are
	// shown in the language they were written in.
	Locale string
}

// ExpertReviews lists the reviews of a verified expert. Errors:
// apperr.Validation, apperr.NotFound.
func (s *Service) ExpertReviews(ctx context.Context, _ *Caller, in ReviewSearch) ([]Review, paging.Meta, error) {
	errs := apperr.FieldErrors{}
	f := ReviewFilter{Page: in.check(errs), Sort: field.Enum(errs, "sort", in.Sort, "createdAt", []string{"createdAt", "rating"})}
	localeArg(errs, in.Locale)
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	reviews, total, err := s.Catalog.FindReviews(ctx, in.Handle, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return reviews, paging.NewMeta(f.Page, total), nil
}

// TravelogueSearch selects published travelogues.
type TravelogueSearch struct {
	PageArgs
	Locale   string
	Sort     string // hotScore (default), score, viewCount, createdAt, publishedAt
	Category string // up to 50 characters
}

// Travelogues lists published travelogues. Errors: apperr.Validation.
func (s *Service) Travelogues(ctx context.Context, _ *Caller, in TravelogueSearch) ([]TravelogueSummary, paging.Meta, error) {
	errs := apperr.FieldErrors{}
	f := TravelogueFilter{
		Page:     in.check(errs),
		Locale:   localeArg(errs, in.Locale),
		Sort:     field.Enum(errs, "sort", in.Sort, "hotScore", []string{"hotScore", "score", "viewCount", "createdAt", "publishedAt"}),
		Category: field.Text(errs, "category", in.Category, 50),
	}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	travelogues, total, err := s.Catalog.FindTravelogues(ctx, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return travelogues, paging.NewMeta(f.Page, total), nil
}

// TravelogueLookup names a published travelogue by slug.
type TravelogueLookup struct {
	Slug   string
	Locale string
}

// Travelogue returns a published travelogue, or, to its author (the
// person, c with a user token), a draft too; c may be nil. Errors:
// apperr.Validation, apperr.NotFound.
func (s *Service) Travelogue(ctx context.Context, c *Caller, in TravelogueLookup) (*TravelogueDetail, error) {
	errs := apperr.FieldErrors{}
	loc := localeArg(errs, in.Locale)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if c != nil && c.User != nil && c.APIKey == nil {
		return s.Authoring.FindReadableTravelogue(ctx, c.User.ID, in.Slug, loc)
	}
	return s.Catalog.FindTravelogueBySlug(ctx, in.Slug, loc)
}

// Cities lists the cities that have verified experts.
func (s *Service) Cities(ctx context.Context, _ *Caller) ([]City, error) {
	return s.Catalog.FindCities(ctx)
}

// Specialties lists the specialties of verified experts.
func (s *Service) Specialties(ctx context.Context, _ *Caller) ([]string, error) {
	return s.Catalog.FindSpecialties(ctx)
}
