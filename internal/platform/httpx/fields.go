package httpx

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// PathID returns the {id} of the path when it is a UUID. Anything else
// cannot name a resource, so it is NOT_FOUND, with what in the message.
func PathID(r *http.Request, what string) (string, error) {
	id := r.PathValue("id")
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "No %s with id %q.", what, id)
	}
	return u.String(), nil
}
