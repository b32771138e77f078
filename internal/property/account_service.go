package property

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// The developer portal's accounts: sign-up and sign-in, the API keys and
// their usage. Keys and usage are managed by the developer signed in to
// the portal, never with an API key.

// maxUsageDays bounds the range of a usage request.
const maxUsageDays = 366

// checkPortal refuses an operation to an API key. Errors:
// apperr.Unauthorized, apperr.Forbidden.
func checkPortal(c *Caller) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	if c.KeyID != "" {
		return apperr.Errorf(apperr.Forbidden, "API keys are managed in the developer portal, not with an API key.")
	}
	return nil
}

// Signup is a new developer account as sent.
type Signup struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
	Name     *string `json:"name"`
}

// Signup creates a developer account. Errors: apperr.Validation,
// apperr.Conflict (the e-mail is taken).
func (s *Service) Signup(ctx context.Context, in Signup) (*Developer, error) {
	errs := apperr.FieldErrors{}
	email := field.CheckEmail(errs, "email", in.Email)
	password := field.CheckPassword(errs, "password", in.Password)
	name := field.CheckString(errs, "name", in.Name, true, 2, 100)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(ctx, password)
	if err != nil {
		return nil, err
	}
	return s.Accounts.CreateDeveloper(ctx, NewDeveloper{Email: email, Name: name, PasswordHash: hash})
}

// Login is a sign-in as sent.
type Login struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

var errBadLogin = apperr.Errorf(apperr.Unauthorized, "The e-mail or password is wrong.")

// Login returns the developer whose e-mail and password these are.
// Errors: apperr.Validation, apperr.Unauthorized.
func (s *Service) Login(ctx context.Context, in Login) (*Developer, error) {
	errs := apperr.FieldErrors{}
	email := field.CheckEmail(errs, "email", in.Email)
	password := field.CheckPassword(errs, "password", in.Password)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	d, hash, err := s.Accounts.FindDeveloperByEmail(ctx, email)
	if err != nil && apperr.Code(err) != apperr.NotFound {
		return nil, err
	}
	if d == nil {
		hash = ""
	}
	if ok, err := auth.CheckLogin(ctx, hash, password); err != nil {
		return nil, err
	} else if !ok {
		return nil, errBadLogin
	}
	return d, nil
}

// NewKey is an API key to create, as sent: scopes left out are all of
// them.
type NewKey struct {
	Name   *string   `json:"name"`
	Mode   *string   `json:"mode"`
	Scopes *[]string `json:"scopes"`
}

// CreateKey creates an API key of the caller's account, and returns it
// with the key itself, which is never shown again. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.Validation.
func (s *Service) CreateKey(ctx context.Context, c *Caller, in NewKey) (*Key, string, error) {
	if err := checkPortal(c); err != nil {
		return nil, "", err
	}
	errs := apperr.FieldErrors{}
	name := field.CheckString(errs, "name", in.Name, true, 1, 100)
	mode := ""
	switch {
	case in.Mode == nil:
		errs.Add("mode", "is required: test or live")
	case *in.Mode != ModeTest && *in.Mode != ModeLive:
		errs.Add("mode", "must be test or live")
	default:
		mode = *in.Mode
	}
	scopes := Scopes
	if in.Scopes != nil {
		scopes = nil
		if len(*in.Scopes) == 0 {
			errs.Add("scopes", "must name at least one scope, or be left out for all of them")
		}
		for _, sc := range *in.Scopes {
			if !slices.Contains(Scopes, sc) {
				errs.Add("scopes", "unknown scope "+strconv.Quote(sc)+"; allowed: "+strings.Join(Scopes, ", "))
			} else if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, "", err
	}
	full, prefix, hash, err := auth.NewAPIKey(mode)
	if err != nil {
		return nil, "", err
	}
	k := &Key{DeveloperID: c.DeveloperID, Name: name, KeyPrefix: prefix, Mode: mode, Scopes: scopes}
	if err := s.Accounts.CreateKey(ctx, k, hash); err != nil {
		return nil, "", err
	}
	return k, full, nil
}

// FindKeys lists the working keys of the caller's account, each last used
// when its latest request was, written to the store or not. Errors:
// apperr.Unauthorized, apperr.Forbidden.
func (s *Service) FindKeys(ctx context.Context, c *Caller) ([]Key, error) {
	if err := checkPortal(c); err != nil {
		return nil, err
	}
	keys, err := s.Accounts.FindKeys(ctx, c.DeveloperID)
	if err != nil {
		return nil, err
	}
	pending := s.Usage.Pending()
	for i := range keys {
		for uk, n := range pending {
			if uk.KeyID == keys[i].ID && (keys[i].LastUsedAt == nil || n.LastUsed.After(*keys[i].LastUsedAt)) {
				t := n.LastUsed
				keys[i].LastUsedAt = &t
			}
		}
	}
	return keys, nil
}

// keyID returns the canonical id of a key, which must be a UUID: anything
// else names no key. Errors: apperr.NotFound.
func keyID(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "No working API key with id %q.", id)
	}
	return u.String(), nil
}

// RevokeKey stops a working key of the caller's account at once. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound.
func (s *Service) RevokeKey(ctx context.Context, c *Caller, id string) error {
	if err := checkPortal(c); err != nil {
		return err
	}
	id, err := keyID(id)
	if err != nil {
		return err
	}
	_, err = s.Accounts.RevokeKey(ctx, c.DeveloperID, id)
	return err
}

// RotateKey replaces a working key of the caller's account by a new one
// of the same mode and scopes; the old one keeps working for
// RotationGrace. It returns the new key with the key itself. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound.
func (s *Service) RotateKey(ctx context.Context, c *Caller, id string) (*Key, string, error) {
	if err := checkPortal(c); err != nil {
		return nil, "", err
	}
	id, err := keyID(id)
	if err != nil {
		return nil, "", err
	}
	keys, err := s.Accounts.FindKeys(ctx, c.DeveloperID)
	if err != nil {
		return nil, "", err
	}
	i := slices.IndexFunc(keys, func(k Key) bool { return k.ID == id })
	if i < 0 {
		return nil, "", apperr.Errorf(apperr.NotFound, "No working API key with id %q.", id)
	}
	full, prefix, hash, err := auth.NewAPIKey(keys[i].Mode)
	if err != nil {
		return nil, "", err
	}
	k, err := s.Accounts.RotateKey(ctx, c.DeveloperID, id, prefix, hash, RotationGrace)
	if err != nil {
		return nil, "", err
	}
	return k, full, nil
}

// UsageReport is the requests of an account's keys per day, from From to
// To inclusive.
type UsageReport struct {
	From Date       `json:"from"`
	To   Date       `json:"to"`
	Data []UsageDay `json:"data"`
}

// FindUsage returns the usage of the caller's keys over the days from
// from to to, nil when absent: to is today (UTC), from 29 days before
// to. Errors: apperr.Unauthorized, apperr.Forbidden, apperr.Validation.
func (s *Service) FindUsage(ctx context.Context, c *Caller, from, to *Date) (*UsageReport, error) {
	if err := checkPortal(c); err != nil {
		return nil, err
	}
	end := DateOf(s.Clock.Now().UTC())
	if to != nil {
		end = *to
	}
	start := end.AddDays(-29)
	if from != nil {
		start = *from
	}
	switch n := start.DaysUntil(end) + 1; {
	case n < 1:
		return nil, apperr.Field("to", "must not be before from")
	case n > maxUsageDays:
		return nil, apperr.Field("to", "the range is at most "+strconv.Itoa(maxUsageDays)+" days")
	}
	days, err := s.Accounts.FindUsage(ctx, c.DeveloperID, start, end, s.Usage.Pending())
	if err != nil {
		return nil, err
	}
	return &UsageReport{start, end, days}, nil
}

// ConnectedApps lists the applications the developer connected through
// OAuth, each last used as recently as this process has seen it. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key or an application).
func (s *Service) ConnectedApps(ctx context.Context, c *Caller) ([]oauth.ConnectedApp, error) {
	if err := checkPortal(c); err != nil {
		return nil, err
	}
	apps, err := s.Accounts.ConnectedApps(ctx, c.DeveloperID)
	if err != nil {
		return nil, err
	}
	pending := s.Usage.Pending()
	for i := range apps {
		for uk, n := range pending {
			if uk.KeyID == apps[i].ID && (apps[i].LastUsedAt == nil || n.LastUsed.After(*apps[i].LastUsedAt)) {
				t := n.LastUsed
				apps[i].LastUsedAt = &t
			}
		}
	}
	return apps, nil
}

// RevokeConnectedApp revokes the developer's grant to an application at
// once: its access and refresh tokens stop working. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound.
func (s *Service) RevokeConnectedApp(ctx context.Context, c *Caller, id string) (*oauth.RevokedApp, error) {
	if err := checkPortal(c); err != nil {
		return nil, err
	}
	return s.Accounts.RevokeConnectedApp(ctx, c.DeveloperID, id)
}

// ErrInvalidKey answers a credential that is not one of ours.
var ErrInvalidKey = apperr.Errorf(apperr.Unauthorized, "The API key is not valid: keys start with pk_test_ or pk_live_.")

// KeyBySecret returns the working key whose secret is value. Errors:
// apperr.Unauthorized.
func (s *Service) KeyBySecret(ctx context.Context, value string) (*Key, error) {
	if !auth.IsAPIKey(value) {
		return nil, ErrInvalidKey
	}
	return s.Accounts.FindKeyByHash(ctx, auth.HashAPIKey(value))
}

// KeyByGrant returns the working OAuth grant an access token was issued
// for, as a key of that kind. Errors: apperr.Unauthorized.
func (s *Service) KeyByGrant(ctx context.Context, grantID string) (*Key, error) {
	return s.Accounts.FindGrant(ctx, grantID)
}

// DeveloperOfSession returns the account a portal session names. Errors:
// apperr.Unauthorized when the account no longer exists.
func (s *Service) DeveloperOfSession(ctx context.Context, id string) (*Developer, error) {
	d, err := s.Accounts.FindDeveloperByID(ctx, id)
	if apperr.Code(err) == apperr.NotFound {
		return nil, apperr.Errorf(apperr.Unauthorized, "The portal token's account does not exist.")
	}
	return d, err
}

// RecordUsage counts a request of a key for its usage report; limited
// tells whether it was refused for its rate limit.
func (s *Service) RecordUsage(keyID string, limited bool) {
	s.Usage.Record(keyID, s.Clock.Now(), limited)
}
