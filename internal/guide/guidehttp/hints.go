package guidehttp

import (
	"errors"
	"maps"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// restHints words the service's refusals that tell the caller where to
// go next with the routes of this API, which the service does not know.
// The handlers apply it before an Idempotency-Key records their answer.
func restHints(err error) error {
	var e *apperr.Error
	if !errors.As(err, &e) {
		return err
	}
	switch {
	case errors.Is(err, guide.ErrPackageImagesFull):
		return apperr.Errorf(e.Code, "%s", strings.TrimSuffix(e.Message, " first.")+" with PATCH /api/v1/packages/{id} first.")
	case errors.Is(err, guide.ErrTravelogueImagesFull):
		return apperr.Errorf(e.Code, "%s", strings.TrimSuffix(e.Message, " first.")+" with PATCH /api/v1/travelogues/{slug} first.")
	case e.Code != apperr.Validation:
		return err
	}
	details := maps.Clone(e.Details)
	for k, v := range details {
		switch v {
		case guide.ForeignPackageImage:
			details[k] = "an uploaded image that is not this package's; add one with POST /api/v1/packages/{id}/images"
		case guide.ForeignTravelogueImage:
			details[k] = "an uploaded image that is not this travelogue's; add one with POST /api/v1/travelogues/{slug}/images"
		case guide.UnknownSpecialty:
			details[k] = "must be a specialty listed by GET /api/v1/specialties or one of " + strings.Join(guide.SpecialtyTags, ", ")
		}
	}
	return &apperr.Error{Code: e.Code, Message: e.Message, Details: details, RetryAfter: e.RetryAfter}
}
