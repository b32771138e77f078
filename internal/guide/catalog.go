package guide

import (
	"context"
	"encoding/json"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Locales are the content languages; English is the fallback.
var Locales = []string{"en", "zh", "zh-TW", "ja", "ko"}

// DefaultLocale is used when no locale is asked for and when a translation
// is missing.
const DefaultLocale = "en"

// CountryCodes are the markets experts and packages belong to.
var CountryCodes = []string{"CN", "JP", "KR", "TW", "HK"}

// ExpertSummary is an expert as listed. ID is not in the spec's field list
// but is returned because booking creation takes an expertId.
type ExpertSummary struct {
	ID           string   `json:"id"`
	Handle       string   `json:"handle"`
	Name         *string  `json:"name"`
	Avatar       *string  `json:"avatar"`
	Bio          *string  `json:"bio"`
	Languages    []string `json:"languages"`
	Specialties  []string `json:"specialties"`
	Location     *string  `json:"location"`
	CountryCode  string   `json:"countryCode"`
	Currency     string   `json:"currency"`
	ProfileImage *string  `json:"profileImage"`
	HourlyRate   *float64 `json:"hourlyRate"`
	Rating       float64  `json:"rating"`
	ReviewCount  int      `json:"reviewCount"`
}

// ExpertDetail is one expert's public page.
type ExpertDetail struct {
	ExpertSummary
	CoverImage       *string         `json:"coverImage"`
	SocialLinks      json.RawMessage `json:"socialLinks"`
	MessagingEnabled bool            `json:"messagingEnabled"`
	WeeklySchedule   json.RawMessage `json:"weeklySchedule"`
	Timezone         string          `json:"timezone"`
	VerifiedAt       *time.Time      `json:"verifiedAt"`
}

// ExpertFilter selects experts; only verified experts are ever listed.
type ExpertFilter struct {
	paging.Page
	Locale    string
	Sort      string // rating, reviewCount, createdAt
	City      string // partial, case-insensitive match on the city name
	Language  string // language code
	Specialty string // specialty tag
	Country   string
}

// PackageSummary is a package as listed.
type PackageSummary struct {
	ID              string   `json:"id"`
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	Category        string   `json:"category"`
	CountryCode     string   `json:"countryCode"`
	BasePrice       float64  `json:"basePrice"`
	Currency        string   `json:"currency"`
	Duration        int      `json:"duration"`
	MaxParticipants int      `json:"maxParticipants"`
	Images          []string `json:"images"`
	Highlights      []string `json:"highlights"`
	Included        []string `json:"included"`
	MeetingPoint    *string  `json:"meetingPoint"`
	ExpertHandle    string   `json:"expertHandle"`
}

// PackageDetail is one package's page.
type PackageDetail struct {
	PackageSummary
	Excluded []string `json:"excluded"`
}

// PackageFilter selects active packages.
type PackageFilter struct {
	paging.Page
	Locale   string
	Sort     string // basePrice, price, duration, createdAt
	Category string
	Country  string
	// ExpertHandle restricts the list to one verified expert's packages; an
	// unknown handle is apperr.NotFound.
	ExpertHandle string
}

// Review is a traveller's review of an expert.
type Review struct {
	ID        string       `json:"id"`
	Rating    int          `json:"rating"`
	Comment   *string      `json:"comment"`
	CreatedAt time.Time    `json:"createdAt"`
	Author    ReviewAuthor `json:"author"`
}

// ReviewAuthor is the public face of a review's writer.
type ReviewAuthor struct {
	Name   *string `json:"name"`
	Avatar *string `json:"avatar"`
}

// ReviewFilter selects an expert's reviews.
type ReviewFilter struct {
	paging.Page
	Sort string // createdAt, rating
}

// TravelogueAuthor is the public face of a travelogue's writer.
type TravelogueAuthor struct {
	Handle string  `json:"handle"`
	Name   *string `json:"name"`
	Avatar *string `json:"avatar"`
}

// TravelogueSummary is a travelogue as listed.
type TravelogueSummary struct {
	Slug         string           `json:"slug"`
	Title        string           `json:"title"`
	Excerpt      *string          `json:"excerpt"`
	CoverImage   *string          `json:"coverImage"`
	Category     string           `json:"category"`
	LocationTags []string         `json:"locationTags"`
	Score        int              `json:"score"`
	ViewCount    int              `json:"viewCount"`
	CommentCount int              `json:"commentCount"`
	PublishedAt  *time.Time       `json:"publishedAt"`
	Author       TravelogueAuthor `json:"author"`
}

// TravelogueDetail is one travelogue with its content.
type TravelogueDetail struct {
	TravelogueSummary
	Content   string    `json:"content"`
	Images    []string  `json:"images"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// TravelogueFilter selects published travelogues.
type TravelogueFilter struct {
	paging.Page
	Locale   string
	Sort     string // hotScore, score, viewCount, createdAt, publishedAt
	Category string
}

// City is a city with at least one verified expert.
type City struct {
	Name        string `json:"name"`
	CountryCode string `json:"countryCode"`
}

// CatalogStore reads the public catalogue. Only verified experts, active
// packages and published travelogues are visible through it.
type CatalogStore interface {
	// FindExperts returns a page of verified experts and the total.
	FindExperts(ctx context.Context, f ExpertFilter) ([]ExpertSummary, int, error)
	// FindExpertByHandle returns a verified expert. Errors: apperr.NotFound.
	FindExpertByHandle(ctx context.Context, handle, locale string) (*ExpertDetail, error)
	// FindPackages returns a page of active packages and the total.
	// Errors: apperr.NotFound when f.ExpertHandle names no verified expert.
	FindPackages(ctx context.Context, f PackageFilter) ([]PackageSummary, int, error)
	// FindPackageByID returns an active package of a verified expert.
	// Errors: apperr.NotFound.
	FindPackageByID(ctx context.Context, id, locale string) (*PackageDetail, error)
	// FindReviews returns a page of the reviews of the verified expert with
	// the handle, and the total. Errors: apperr.NotFound.
	FindReviews(ctx context.Context, handle string, f ReviewFilter) ([]Review, int, error)
	// FindTravelogues returns a page of published travelogues and the total.
	FindTravelogues(ctx context.Context, f TravelogueFilter) ([]TravelogueSummary, int, error)
	// FindTravelogueBySlug returns a published travelogue. Errors: apperr.NotFound.
	FindTravelogueBySlug(ctx context.Context, slug, locale string) (*TravelogueDetail, error)
	// FindCities lists the cities that have verified experts.
	FindCities(ctx context.Context) ([]City, error)
	// FindSpecialties lists the specialties of verified experts.
	FindSpecialties(ctx context.Context) ([]string, error)
}

// DeletedUserName is shown in place of the name of a closed account.
const DeletedUserName = "Deleted User"
