package guide

import (
	"context"
	"time"
)

// Profile is the caller's own account as GET /api/v1/profile shows it.
// BioZh is not in the spec's field list; it is returned so that what PUT
// accepts can be read back.
type Profile struct {
	ID        string         `json:"id"`
	Name      *string        `json:"name"`
	Email     *string        `json:"email"`
	Image     *string        `json:"image"`
	Nickname  *string        `json:"nickname"`
	Avatar    *string        `json:"avatar"`
	Bio       *string        `json:"bio"`
	BioZh     *string        `json:"bioZh"`
	Role      string         `json:"role"`
	CreatedAt time.Time      `json:"createdAt"`
	Expert    *ExpertProfile `json:"expert,omitempty"` // present only for an expert
}

// ExpertProfile is the expert section of an expert's own profile.
type ExpertProfile struct {
	Handle      string   `json:"handle"`
	Specialties []string `json:"specialties"`
	Languages   []string `json:"languages"`
	HourlyRate  *float64 `json:"hourlyRate"`
	Location    *string  `json:"location"`
	CountryCode *string  `json:"countryCode"`
	Rating      float64  `json:"rating"`
	ReviewCount int      `json:"reviewCount"`
}

// PushToken is a device registered for push notifications.
type PushToken struct {
	Token        string
	UserID       string
	Device       *string
	Platform     string // WEB, ANDROID or IOS
	AppVersion   *string
	BuildNumber  *int
	DeviceLocale *string
	Timezone     *string
}

// ProfileUpdate names the fields to change; a nil field stays as it is.
type ProfileUpdate struct {
	Name, Nickname, Bio, BioZh *Change
}

// Change is a new value for a field; a nil Value clears it.
type Change struct {
	Value *string
}

// ProfileStore reads and changes the caller's own account.
type ProfileStore interface {
	// FindProfile returns the open account's profile. Errors: apperr.NotFound.
	FindProfile(ctx context.Context, userID string) (*Profile, error)
	// UpdateProfile changes the fields named in u and returns the profile.
	// Errors: apperr.NotFound.
	UpdateProfile(ctx context.Context, userID string, u ProfileUpdate) (*Profile, error)
	// SetAvatar records the user's new avatar, by its path on the API
	// ("/media/" + key, never an absolute URL) and its blob key, and
	// returns the blob key of the one it replaces ("" if none). Errors:
	// apperr.NotFound.
	SetAvatar(ctx context.Context, userID, path, key string) (string, error)
	// RegisterPushToken stores a device token for the user, moving it from
	// any other account that held it.
	RegisterPushToken(ctx context.Context, t PushToken) error
	// UnregisterPushToken removes the user's device token and reports
	// whether it was registered to them.
	UnregisterPushToken(ctx context.Context, userID, token string) (bool, error)
}
