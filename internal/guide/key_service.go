package guide

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// NewAPIKey is a key to create, as sent; absent fields take their
// defaults (300 requests a minute, live, ConfirmActor, no expiry).
type NewAPIKey struct {
	Name          *string   `json:"name"`
	Scopes        *[]string `json:"scopes"`
	ExpiresInDays *int      `json:"expiresInDays"`
	RateLimit     *int      `json:"rateLimit"`
	Mode          *string   `json:"mode"`
	Confirmation  *string   `json:"confirmation"`
}

// CreateAPIKey creates a key of the person and returns it with the key
// itself, which is never shown again. Under an idempotency claim in ctx
// the store records the key (without the secret) with it. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key: keys do not make
// keys), apperr.Validation.
func (s *Service) CreateAPIKey(ctx context.Context, c *Caller, in NewAPIKey) (key *APIKey, secret string, err error) {
	if err := checkPerson(c); err != nil {
		return nil, "", err
	}
	errs := apperr.FieldErrors{}
	name := field.CheckString(errs, "name", in.Name, true, 1, 100)
	var scopes []string
	switch {
	case in.Scopes == nil:
		errs.Add("scopes", "is required")
	case len(*in.Scopes) == 0:
		errs.Add("scopes", "must name at least one scope")
	default:
		for _, sc := range *in.Scopes {
			if !slices.Contains(Scopes, sc) {
				errs.Add("scopes", "unknown scope "+quote(sc)+"; allowed: "+strings.Join(Scopes, ", "))
			} else if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	key = &APIKey{UserID: c.User.ID, Name: name, Scopes: scopes, RateLimit: 300, Mode: "live", Confirmation: ConfirmActor}
	if in.RateLimit != nil {
		if *in.RateLimit < 1 || *in.RateLimit > 1000 {
			errs.Add("rateLimit", "must be from 1 to 1000 requests per minute")
		}
		key.RateLimit = *in.RateLimit
	}
	if in.ExpiresInDays != nil {
		if *in.ExpiresInDays < 1 || *in.ExpiresInDays > 365 {
			errs.Add("expiresInDays", "must be from 1 to 365")
		}
		exp := s.Clock.Now().AddDate(0, 0, *in.ExpiresInDays)
		key.ExpiresAt = &exp
	}
	if in.Mode != nil {
		if *in.Mode != "live" && *in.Mode != "test" {
			errs.Add("mode", "must be live or test")
		}
		key.Mode = *in.Mode
	}
	if in.Confirmation != nil {
		if *in.Confirmation != ConfirmActor && *in.Confirmation != ConfirmPerson {
			errs.Add("confirmation", "must be actor (the key or its owner confirms its high-risk actions) or person (only its owner does)")
		}
		key.Confirmation = *in.Confirmation
	}
	if err := errs.Err(); err != nil {
		return nil, "", err
	}
	full, prefix, hash, err := auth.NewAPIKey(key.Mode)
	if err != nil {
		return nil, "", err
	}
	key.KeyPrefix = prefix
	if err := s.Accounts.CreateAPIKey(ctx, key, hash); err != nil {
		return nil, "", err
	}
	return key, full, nil
}

// quote shows a value the caller sent inside a message, cut short.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// APIKeys lists the person's active keys, each last used as recently as
// this process has seen it. Errors: apperr.Unauthorized, apperr.Forbidden
// (an API key).
func (s *Service) APIKeys(ctx context.Context, c *Caller) ([]APIKey, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	keys, err := s.Accounts.FindAPIKeys(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if t, ok := s.KeyUsage.Pending(keys[i].ID); ok && (keys[i].LastUsedAt == nil || t.After(*keys[i].LastUsedAt)) {
			keys[i].LastUsedAt = &t
		}
	}
	return keys, nil
}

// RevokedAPIKey is the answer to a revocation.
type RevokedAPIKey struct {
	ID        string    `json:"id"`
	Revoked   bool      `json:"revoked"`
	RevokedAt time.Time `json:"revokedAt"`
}

// RevokeAPIKey revokes a key of the person. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.NotFound.
func (s *Service) RevokeAPIKey(ctx context.Context, c *Caller, id string) (*RevokedAPIKey, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	at, err := s.Accounts.RevokeAPIKey(ctx, c.User.ID, id)
	if err != nil {
		return nil, err
	}
	return &RevokedAPIKey{ID: id, Revoked: true, RevokedAt: at}, nil
}

// ConnectedApps lists the applications the person connected through
// OAuth, each last used as recently as this process has seen it. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key or an application).
func (s *Service) ConnectedApps(ctx context.Context, c *Caller) ([]oauth.ConnectedApp, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	apps, err := s.Accounts.ConnectedApps(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	for i := range apps {
		if t, ok := s.KeyUsage.Pending(apps[i].ID); ok && (apps[i].LastUsedAt == nil || t.After(*apps[i].LastUsedAt)) {
			apps[i].LastUsedAt = &t
		}
	}
	return apps, nil
}

// RevokeConnectedApp revokes the person's grant to an application at
// once: its access and refresh tokens stop working. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key or an application),
// apperr.NotFound.
func (s *Service) RevokeConnectedApp(ctx context.Context, c *Caller, id string) (*oauth.RevokedApp, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	return s.Accounts.RevokeConnectedApp(ctx, c.User.ID, id)
}
