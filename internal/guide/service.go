package guide

import (
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// Service is the guide marketplace as every door sees it. Each of its
// methods is one operation a door offers: it checks its input (per-field
// errors, apperr.Validation), the caller's rights (the *Caller is an
// argument; apperr.Unauthorized, apperr.Forbidden) and then calls its
// store. A door decodes its wire format, authenticates once, calls a
// method and encodes the answer; no rule lives in a door.
type Service struct {
	Catalog       CatalogStore
	Accounts      AccountStore
	Profiles      ProfileStore
	Bookings      BookingStore
	Actions       ActionStore
	Closure       ClosureStore
	Conversations ConversationStore
	Supply        SupplyStore
	Clock         clock.Clock
	ActionTTL     time.Duration // lifetime of a pending action
}
