package property

import (
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// Service is the property platform as every door sees it. Each of its
// methods is one operation a door offers: it checks its input (per-field
// errors, apperr.Validation), the caller's rights (the *Caller is an
// argument) and then calls its store. A door decodes its wire format,
// authenticates once, checks a key's scope, calls a method and encodes
// the answer; no rule lives in a door.
type Service struct {
	Catalog  CatalogStore
	Bookings BookingStore
	Accounts AccountStore
	Supply   SupplyStore
	Clock    clock.Clock
	// Usage holds the requests of each key not yet written to the store.
	Usage    *Usage
	QuoteTTL time.Duration // how long a quote holds its units; 0: DefaultQuoteTTL
	// PublicURL is the API's external base URL: an image URL on it is one
	// of this API's own.
	PublicURL string
}

// Caller is who an operation acts for: the developer account behind an
// API key, or a developer signed in to the portal, on the inventory of
// Mode.
type Caller struct {
	DeveloperID string
	Mode        string // ModeLive or ModeTest
	// KeyID is the API key of the request; "" for the portal.
	KeyID string
}

// Caller returns who a request made with k acts for.
func (k *Key) Caller() *Caller {
	return &Caller{DeveloperID: k.DeveloperID, Mode: k.Mode, KeyID: k.ID}
}

// Account returns whose inventory and bookings c acts on.
func (c *Caller) Account() Account {
	return Account{DeveloperID: c.DeveloperID, Test: c.Mode == ModeTest}
}

var errNoCaller = apperr.Errorf(apperr.Unauthorized, "An API key is required: send it as \"X-API-KEY: <key>\" or \"Authorization: Bearer <key>\".")

// checkCaller refuses an operation without a caller. Errors:
// apperr.Unauthorized.
func checkCaller(c *Caller) error {
	if c == nil || c.DeveloperID == "" {
		return errNoCaller
	}
	return nil
}

// checkID returns the canonical form of the id of a what, which must be
// a UUID: anything else names none. Errors: apperr.NotFound.
func checkID(id, what string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "No %s with id %q.", what, id)
	}
	return u.String(), nil
}
