package guide

import (
	"context"
	"math"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// hotEpoch anchors HotScore; only differences between scores matter.
var hotEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// HotScore ranks a published travelogue for the default "hotScore" sort.
// Engagement counts on a log scale and every 12.5 hours of recency is worth
// one order of magnitude of engagement, so new stories rise and old ones
// sink without the score having to be recomputed as time passes: it changes
// only when the engagement does.
func HotScore(score, viewCount, commentCount int, publishedAt time.Time) float64 {
	engagement := float64(score) + 2*float64(commentCount) + float64(viewCount)/100
	order := math.Log10(math.Max(engagement, 1))
	return order + publishedAt.Sub(hotEpoch).Seconds()/45000
}

// Travelogue statuses: a draft is its author's alone; a published
// travelogue is in the public lists.
const (
	TravelogueDraft     = "draft"
	TraveloguePublished = "published"
)

// TravelogueCategories are the categories a travelogue is written in.
var TravelogueCategories = []string{"food", "adventure", "culture", "nature", "city", "shopping"}

// Bounds of a travelogue.
const (
	MaxTravelogueImages       = 20
	MaxTravelogueLocationTags = 10
	// MaxTravelogueContent bounds the HTML content of one locale, in
	// characters, as sent.
	MaxTravelogueContent = 100_000
)

// TravelogueUploadsPrefix starts the path of every image uploaded to a
// travelogue: "/media/travelogues/{travelogue id}/…". As a package's, such
// an image belongs to its travelogue: it joins the images only by an
// upload, and its file is removed once the travelogue drops it.
const TravelogueUploadsPrefix = "/media/travelogues/"

// TravelogueText is a travelogue's title, excerpt and HTML content in one
// locale.
type TravelogueText struct {
	Title   string  `json:"title"`
	Excerpt *string `json:"excerpt"`
	Content string  `json:"content"`
}

// TravelogueContent is what an author writes. Translations holds the
// texts by locale; English is required and is the fallback of the others.
// Content is sanitised HTML.
type TravelogueContent struct {
	Translations map[string]TravelogueText
	Category     string
	LocationTags []string
	CoverImage   *string  // a "/media/…" path on the API
	Images       []string // "/media/…" paths on the API
}

// AuthorTravelogue is a travelogue as its author sees it: the English
// detail, its status and every translation.
type AuthorTravelogue struct {
	ID string `json:"id"`
	TravelogueDetail
	Status       string                    `json:"status"`
	Translations map[string]TravelogueText `json:"translations"`
}

// CheckAuthor tells whether the user may change t, written by authorID
// and asked for as slug: only its author. Another's draft is not found, as
// it is for everyone but its author; another's published travelogue is
// there for all to see, so it is forbidden. Errors: apperr.NotFound,
// apperr.Forbidden.
func (t *AuthorTravelogue) CheckAuthor(user *User, authorID, slug string) error {
	switch {
	case authorID == user.ID:
		return nil
	case t.Status == TraveloguePublished:
		return apperr.Errorf(apperr.Forbidden, "Only its author can change a travelogue.")
	}
	return NoTravelogue(slug)
}

// NoTravelogue is the answer for a travelogue the caller may not see
// (apperr.NotFound).
func NoTravelogue(slug string) error {
	return apperr.Errorf(apperr.NotFound, "No travelogue with slug %q.", slug)
}

// AuthorTravelogueSummary is one of an author's travelogues as listed.
type AuthorTravelogueSummary struct {
	TravelogueSummary
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// TravelogueStore lets any user write travelogues.
type TravelogueStore interface {
	// CreateTravelogue creates a draft of the user's with a slug made of
	// base: base itself, or base-2, base-3… the first that no travelogue
	// has (nor reserved names).
	CreateTravelogue(ctx context.Context, user *User, base string, c TravelogueContent) (*AuthorTravelogue, error)
	// FindAuthorTravelogue returns a travelogue of the user's. Errors:
	// apperr.NotFound (no such travelogue, or another's draft),
	// apperr.Forbidden (another's published travelogue).
	FindAuthorTravelogue(ctx context.Context, user *User, slug string) (*AuthorTravelogue, error)
	// UpdateTravelogue changes a travelogue of the user's as apply says;
	// the files of uploaded images it drops are removed by a background
	// job. Errors: those of FindAuthorTravelogue and of apply.
	UpdateTravelogue(ctx context.Context, user *User, slug string, apply func(*TravelogueContent) error) (*AuthorTravelogue, error)
	// SetTravelogueStatus publishes a travelogue of the user's or takes it
	// back to a draft; one already in status is answered unchanged.
	// Errors: those of FindAuthorTravelogue.
	SetTravelogueStatus(ctx context.Context, user *User, slug, status string) (*AuthorTravelogue, error)
	// FindAuthorTravelogues returns a page of the user's travelogues,
	// drafts included, the last changed first, and the total.
	FindAuthorTravelogues(ctx context.Context, user *User, p paging.Page) ([]AuthorTravelogueSummary, int, error)
	// FindReadableTravelogue returns a published travelogue, or a draft
	// of the reader's. Errors: apperr.NotFound.
	FindReadableTravelogue(ctx context.Context, readerID, slug, locale string) (*TravelogueDetail, error)
}
