package guide

import (
	"log/slog"
	"sync"
	"time"

	"github.com/microcosm-cc/bluemonday"

	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/media"
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
	Admin         AdminStore
	Authoring     TravelogueStore // travelogues as their authors write them
	Moderation    ModerationStore
	Octo          OctoStore        // resellers' bookings through the OCTO door
	Applications  ApplicationStore // expert applications and verified experts' profiles
	Clock         clock.Clock
	ActionTTL     time.Duration // lifetime of a pending action

	// Tokens issues the user tokens of a sign-in; IdpA and IdpB verify
	// the identity tokens of the two providers (nil when not configured).
	Tokens     *auth.Tokens
	IdpA, IdpB *auth.IdentityProvider
	// KeyUsage holds when keys were last used, not yet written to the store.
	KeyUsage *auth.KeyUsage
	// Blobs keeps uploaded images: avatars and package images.
	Blobs media.Store
	// PublicURL is the API's external base URL: an image URL on it is one
	// of this API's own.
	PublicURL string
	Logger    *slog.Logger
	// AIReplies tells whether an AI model is configured, so that messages
	// to experts with auto-reply ask it for an answer.
	AIReplies bool
	// Realtime issues the tokens of the realtime channel.
	Realtime *chat.Credentials
	// AdminEmails are the e-mail addresses of the admins (ADMIN_EMAILS),
	// in any case.
	AdminEmails []string

	// contentPolicy sanitises travelogue content, made once for PublicURL.
	contentOnce   sync.Once
	contentPolicy *bluemonday.Policy
}
