package guide

import (
	"context"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Package statuses: only active packages are in the public catalogue and
// can be booked; archiving keeps the bookings already made.
const (
	PackageDraft    = "draft"
	PackageActive   = "active"
	PackageArchived = "archived"
)

// PackageStatuses lists the package statuses.
var PackageStatuses = []string{PackageDraft, PackageActive, PackageArchived}

// CheckPackageEditor tells whether the user may see and change a package
// of the expert whose account is expertUserID: that expert, or an admin.
// Errors: apperr.Forbidden.
func CheckPackageEditor(user *User, expertUserID string) error {
	if expertUserID != user.ID && user.Role != RoleAdmin {
		return apperr.Errorf(apperr.Forbidden, "Only the package's expert can change it.")
	}
	return nil
}

// DefaultCountry gives the package the country of its expert's profile,
// profileCountry ("" when it names none), unless it names one. Errors:
// apperr.Validation (neither names a country).
func (c *PackageContent) DefaultCountry(profileCountry string) error {
	if c.CountryCode != "" {
		return nil
	}
	if profileCountry == "" {
		return apperr.Field("countryCode", "is required: the expert profile names no country")
	}
	c.CountryCode = profileCountry
	return nil
}

// MaxPackageImages bounds the images of a package.
const MaxPackageImages = 10

// MaxBasePrice bounds a package's basePrice, in its currency's major units.
const MaxBasePrice = 10_000_000

// PackageUploadsPrefix starts the path of every image uploaded to a
// package: "/media/packages/{package id}/…". Such an image belongs to its
// package: it joins the images only by an upload, and its file is removed
// once the package drops it.
const PackageUploadsPrefix = "/media/packages/"

// PackageText is a package's title and description in one locale.
type PackageText struct {
	Title       string `json:"title"`
	Description string `json:"description"`
}

// PackageContent is what an expert says about a package. Translations
// holds the title and description by locale; English is required and is
// the fallback of the others.
type PackageContent struct {
	Translations    map[string]PackageText
	Category        string
	CountryCode     string
	BasePrice       float64
	Currency        string
	Duration        int // hours
	MaxParticipants int
	Images          []string // "/media/…" paths on the API
	Status          string
}

// ExpertPackage is a package as its expert (or an admin) sees it: the
// English detail, its status and every translation.
type ExpertPackage struct {
	PackageDetail
	Status       string                 `json:"status"`
	Translations map[string]PackageText `json:"translations"`
}

// SupplyStore lets experts manage their packages and availability.
type SupplyStore interface {
	// CreatePackage creates a package of the caller's expert profile (an
	// admin may name another expert by expertID). Errors: apperr.NotFound
	// (no expert profile, or no such expert), apperr.Validation.
	CreatePackage(ctx context.Context, user *User, expertID string, c PackageContent) (*ExpertPackage, error)
	// FindExpertPackage returns a package for its expert or an admin.
	// Errors: apperr.NotFound, apperr.Forbidden (another expert's package,
	// for anyone but an admin).
	FindExpertPackage(ctx context.Context, user *User, id string) (*ExpertPackage, error)
	// UpdatePackage changes a package as apply says; the files of uploaded
	// images it drops are removed by a background job. Errors:
	// apperr.NotFound, apperr.Forbidden (another expert's package, for
	// anyone but an admin), apperr.Validation and the errors of apply.
	UpdatePackage(ctx context.Context, user *User, id string, apply func(*PackageContent) error) (*ExpertPackage, error)
	// UpdateAvailability replaces the expert's weekly schedule, blocked
	// dates and time zone. Errors: apperr.NotFound (not an expert).
	UpdateAvailability(ctx context.Context, user *User, a Availability) (*Availability, error)
}
