package changes

import (
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// MaxFeedLimit bounds a page of the change feed.
const MaxFeedLimit = 100

// FeedAPI serves GET /api/v1/events: the caller's change events after a
// cursor, oldest first.
type FeedAPI struct {
	Feed  *Feed
	Types []string // the types the API records
	// Audience returns the feed audiences of the caller (AudienceAll is
	// always added).
	Audience func(r *http.Request) []string
	// Withheld, when set, returns the types the caller may never read:
	// left out of its pages, and 403 FORBIDDEN when asked for by name.
	Withheld func(r *http.Request) []string
}

// FeedPage is a page of the feed. NextCursor is the id to pass as after
// for the next page: the last event's, or the cursor given when the page
// is empty (null when neither exists).
type FeedPage struct {
	Data       []Event `json:"data"`
	NextCursor *string `json:"nextCursor"`
	HasMore    bool    `json:"hasMore"`
}

// parseTypes reads a comma-separated list of event types, each one of
// known; errs collects a message naming field when one is not.
func parseTypes(errs apperr.FieldErrors, field, list string, known []string) []string {
	var types []string
	for _, t := range strings.Split(list, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if !slices.Contains(known, t) {
			errs.Add(field, "must name event types among: "+strings.Join(known, ", "))
			return nil
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types
}

// Handle answers a page of the feed. Errors: apperr.Validation, apperr.Gone
// for a cursor the feed no longer keeps.
func (f *FeedAPI) Handle(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	after := q.String("after", 36)
	types := parseTypes(q.Errs, "types", q.String("types", 1000), f.Types)
	limit := q.Int("limit", MaxFeedLimit, 1, MaxFeedLimit)
	if err := q.Err(); err != nil {
		return err
	}
	if after != "" {
		if _, err := uuid.Parse(after); err != nil || len(after) != 36 {
			e := apperr.Errorf(apperr.Gone, "The cursor %q names no event the feed keeps; start again without after.", after)
			e.Details = map[string]any{"after": after}
			return e
		}
	}
	var withheld []string
	if f.Withheld != nil {
		withheld = f.Withheld(r)
	}
	for _, t := range types {
		if slices.Contains(withheld, t) {
			e := apperr.Errorf(apperr.Forbidden, "This credential's feed never carries %s events.", t)
			e.Details = map[string]any{"types": withheld}
			return e
		}
	}
	evs, more, err := f.Feed.Find(r.Context(), Filter{Audience: f.Audience(r), After: after, Types: types, Exclude: withheld, Limit: limit})
	if err != nil {
		return err
	}
	page := FeedPage{Data: evs, HasMore: more}
	if n := len(evs); n > 0 {
		page.NextCursor = &evs[n-1].ID
	} else if after != "" {
		page.NextCursor = &after
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}
