package guide

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// SessionTTL is the lifetime of a web session, the same as a user token's.
const SessionTTL = auth.UserTokenTTL

// The identity providers a person signs in with, by the name the API
// gives them.
const (
	ProviderA = "idp-a"
	ProviderB = "idp-b"
)

// maxIdentityToken bounds an identity token; real ones are a few KB.
const maxIdentityToken = 16 << 10

var (
	errNoCaller   = apperr.Errorf(apperr.Unauthorized, "Authentication required: send \"Authorization: Bearer <token or API key>\".")
	errKeyRefused = apperr.Errorf(apperr.Forbidden, "This endpoint accepts user tokens only; API keys cannot call it.")
	errBadLogin   = apperr.Errorf(apperr.Unauthorized, "The e-mail or password is wrong.")
)

// checkCaller refuses a request nobody authenticated.
func checkCaller(c *Caller) error {
	if c == nil || c.User == nil {
		return errNoCaller
	}
	return nil
}

// checkPerson refuses a caller other than the person: an API key acts
// for its owner only where the owner allowed it by a scope, and never
// manages credentials.
func checkPerson(c *Caller) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	if c.APIKey != nil {
		return errKeyRefused
	}
	return nil
}

// checkID returns id in its canonical form when it is a UUID. Anything
// else cannot name a resource, so it is apperr.NotFound, with what in
// the message.
func checkID(id, what string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "No %s with id %q.", what, id)
	}
	return u.String(), nil
}

// SignedIn is the answer to a sign-in: a user token and its account.
type SignedIn struct {
	Token string `json:"token"`
	User  *User  `json:"user"`
}

// Registration is a new account: its fields, as sent.
type Registration struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
	Name     *string `json:"name"`
	Role     *string `json:"role"`
}

// Register creates a TOURIST or EXPERT account with a password and signs
// it in. Errors: apperr.Validation, apperr.EmailTaken.
func (s *Service) Register(ctx context.Context, in Registration) (*SignedIn, error) {
	errs := apperr.FieldErrors{}
	email := field.CheckEmail(errs, "email", in.Email)
	password := field.CheckPassword(errs, "password", in.Password)
	name := field.CheckString(errs, "name", in.Name, true, 2, 100)
	switch {
	case in.Role == nil:
		errs.Add("role", "is required")
	case *in.Role != RoleTourist && *in.Role != RoleExpert:
		errs.Add("role", "must be TOURIST or EXPERT")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(ctx, password)
	if err != nil {
		return nil, err
	}
	u, err := s.Accounts.CreateUser(ctx, NewUser{Email: email, PasswordHash: hash, Name: &name, Role: *in.Role})
	if err != nil {
		return nil, err
	}
	return s.signIn(u)
}

// Login is a sign-in with e-mail and password, as sent.
type Login struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// Login signs in with e-mail and password. An unknown e-mail costs as
// long as a wrong password, and is answered the same. Errors:
// apperr.Validation, apperr.Unauthorized, apperr.Unavailable (too busy to
// check the password).
func (s *Service) Login(ctx context.Context, in Login) (*SignedIn, error) {
	errs := apperr.FieldErrors{}
	email := field.CheckEmail(errs, "email", in.Email)
	password := field.CheckPassword(errs, "password", in.Password)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	u, hash, err := s.Accounts.FindUserByEmail(ctx, email)
	if err != nil && apperr.Code(err) != apperr.NotFound {
		return nil, err
	}
	if u == nil {
		hash = ""
	}
	if ok, err := auth.CheckLogin(ctx, hash, password); err != nil {
		return nil, err
	} else if !ok {
		return nil, errBadLogin
	}
	return s.signIn(u)
}

// IdpASignIn is a sign-in with provider A's identity token, as sent.
type IdpASignIn struct {
	IDToken *string `json:"idToken"`
}

// SignInWithIdpA signs in with an identity token of provider A, creating
// a TOURIST account at the first sign-in. Errors: apperr.Validation,
// apperr.Unauthorized (not configured, or the token is not valid).
func (s *Service) SignInWithIdpA(ctx context.Context, in IdpASignIn) (*SignedIn, error) {
	errs := apperr.FieldErrors{}
	token := field.CheckString(errs, "idToken", in.IDToken, true, 1, maxIdentityToken)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.signInWithProvider(ctx, s.IdpA, ProviderA, token, nil)
}

// IdpBSignIn is a sign-in with provider B's identity token, as sent.
// Provider B tells the person's name only at the first sign-in, to the
// app, which passes it on as FullName.
type IdpBSignIn struct {
	IdentityToken *string `json:"identityToken"`
	FullName      *struct {
		GivenName  *string `json:"givenName"`
		FamilyName *string `json:"familyName"`
	} `json:"fullName"`
}

// SignInWithIdpB signs in with an identity token of provider B, creating
// a TOURIST account named by FullName (or the token's name) at the first
// sign-in. Errors: apperr.Validation, apperr.Unauthorized (not
// configured, or the token is not valid).
func (s *Service) SignInWithIdpB(ctx context.Context, in IdpBSignIn) (*SignedIn, error) {
	errs := apperr.FieldErrors{}
	token := field.CheckString(errs, "identityToken", in.IdentityToken, true, 1, maxIdentityToken)
	var name *string
	if in.FullName != nil {
		var parts []string
		for _, p := range []*string{in.FullName.GivenName, in.FullName.FamilyName} {
			if p != nil && strings.TrimSpace(*p) != "" {
				parts = append(parts, strings.TrimSpace(*p))
			}
		}
		if full := strings.Join(parts, " "); full != "" {
			name = &full
			field.CheckString(errs, "fullName", name, false, 1, 100)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.signInWithProvider(ctx, s.IdpB, ProviderB, token, name)
}

func (s *Service) signInWithProvider(ctx context.Context, p *auth.IdentityProvider, name, token string, fullName *string) (*SignedIn, error) {
	if p == nil {
		return nil, apperr.Errorf(apperr.Unauthorized, "Sign-in with %s is not configured on this server.", name)
	}
	claims, err := p.Verify(ctx, token)
	if err != nil {
		return nil, apperr.Errorf(apperr.Unauthorized, "The %s identity token is not valid.", name)
	}
	if fullName == nil && claims.Name != "" {
		fullName = &claims.Name
	}
	u, _, err := s.Accounts.SignInWithIdentity(ctx,
		Identity{Provider: name, Subject: claims.Subject, Email: claims.Email}, claims.EmailVerified, fullName)
	if err != nil {
		return nil, err
	}
	return s.signIn(u)
}

func (s *Service) signIn(u *User) (*SignedIn, error) {
	token, _, err := s.Tokens.Issue(u.ID)
	if err != nil {
		return nil, err
	}
	return &SignedIn{Token: token, User: u}, nil
}

// Me returns the caller's account. Errors: apperr.Unauthorized.
func (s *Service) Me(_ context.Context, c *Caller) (*User, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	return c.User, nil
}

// Session is a new web session: the cookie value, shown once (only its
// hash is stored), and when it ends.
type Session struct {
	Value     string
	ExpiresAt time.Time
}

// CreateSession opens a web session for the person, who exchanges a user
// token for it. Errors: apperr.Unauthorized, apperr.Forbidden (an API key).
func (s *Service) CreateSession(ctx context.Context, c *Caller) (*Session, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	value := base64.RawURLEncoding.EncodeToString(b[:])
	expires := s.Clock.Now().Add(SessionTTL)
	if err := s.Accounts.CreateSession(ctx, HashSession(value), c.User.ID, expires); err != nil {
		return nil, err
	}
	return &Session{Value: value, ExpiresAt: expires}, nil
}

// HashSession is what the store keeps of a session's cookie value.
func HashSession(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}
