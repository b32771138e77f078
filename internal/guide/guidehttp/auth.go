package guidehttp

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// sessionTTL is the lifetime of a web session, the same as a user token's.
const sessionTTL = auth.UserTokenTTL

func (s *Server) authLimited(pattern string, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.authKey, h)))
}

type tokenResponse struct {
	Token string      `json:"token"`
	User  *guide.User `json:"user"`
}

func (s *Server) writeToken(w http.ResponseWriter, r *http.Request, status int, u *guide.User) error {
	token, _, err := s.cfg.Tokens.Issue(u.ID)
	if err != nil {
		return err
	}
	httpx.ResolveMedia(r.Context(), u)
	httpx.WriteJSON(w, status, tokenResponse{Token: token, User: u})
	return nil
}

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Email    *string `json:"email"`
		Password *string `json:"password"`
		Name     *string `json:"name"`
		Role     *string `json:"role"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	email := httpx.CheckEmail(errs, "email", in.Email)
	password := httpx.CheckPassword(errs, "password", in.Password)
	name := httpx.CheckString(errs, "name", in.Name, true, 2, 100)
	switch {
	case in.Role == nil:
		errs.Add("role", "is required")
	case *in.Role != guide.RoleTourist && *in.Role != guide.RoleExpert:
		errs.Add("role", "must be TOURIST or EXPERT")
	}
	if err := errs.Err(); err != nil {
		return err
	}
	hash, err := auth.HashPassword(r.Context(), password)
	if err != nil {
		return err
	}
	u, err := s.cfg.Accounts.CreateUser(r.Context(), guide.NewUser{Email: email, PasswordHash: hash, Name: &name, Role: *in.Role})
	if err != nil {
		return err
	}
	return s.writeToken(w, r, http.StatusCreated, u)
}

var errBadLogin = apperr.Errorf(apperr.Unauthorized, "The e-mail or password is wrong.")

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Email    *string `json:"email"`
		Password *string `json:"password"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	email := httpx.CheckEmail(errs, "email", in.Email)
	password := httpx.CheckPassword(errs, "password", in.Password)
	if err := errs.Err(); err != nil {
		return err
	}
	u, hash, err := s.cfg.Accounts.FindUserByEmail(r.Context(), email)
	if err != nil && apperr.Code(err) != apperr.NotFound {
		return err
	}
	if u == nil {
		hash = ""
	}
	if ok, err := auth.CheckLogin(r.Context(), hash, password); err != nil {
		return err
	} else if !ok {
		return errBadLogin
	}
	return s.writeToken(w, r, http.StatusOK, u)
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	u := caller(r.Context()).User
	httpx.ResolveMedia(r.Context(), u)
	httpx.WriteJSON(w, http.StatusOK, struct {
		User *guide.User `json:"user"`
	}{u})
	return nil
}

func (s *Server) handleIdpA(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		IDToken *string `json:"idToken"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	token := httpx.CheckString(errs, "idToken", in.IDToken, true, 1, maxIdentityToken)
	if err := errs.Err(); err != nil {
		return err
	}
	return s.signInWithProvider(w, r, s.cfg.IdpA, "idp-a", token, nil)
}

func (s *Server) handleIdpB(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		IdentityToken *string `json:"identityToken"`
		FullName      *struct {
			GivenName  *string `json:"givenName"`
			FamilyName *string `json:"familyName"`
		} `json:"fullName"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	token := httpx.CheckString(errs, "identityToken", in.IdentityToken, true, 1, maxIdentityToken)
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
			httpx.CheckString(errs, "fullName", name, false, 1, 100)
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	return s.signInWithProvider(w, r, s.cfg.IdpB, "idp-b", token, name)
}

// maxIdentityToken bounds an identity token; real ones are a few KB.
const maxIdentityToken = 16 << 10

func (s *Server) signInWithProvider(w http.ResponseWriter, r *http.Request, p *auth.IdentityProvider, name, token string, fullName *string) error {
	if p == nil {
		return errNotConfigured(name)
	}
	claims, err := p.Verify(r.Context(), token)
	if err != nil {
		return apperr.Errorf(apperr.Unauthorized, "The %s identity token is not valid.", name)
	}
	if fullName == nil && claims.Name != "" {
		fullName = &claims.Name
	}
	u, _, err := s.cfg.Accounts.SignInWithIdentity(r.Context(),
		guide.Identity{Provider: name, Subject: claims.Subject, Email: claims.Email}, claims.EmailVerified, fullName)
	if err != nil {
		return err
	}
	return s.writeToken(w, r, http.StatusOK, u)
}

func (s *Server) handleSessionExchange(w http.ResponseWriter, r *http.Request) error {
	c := caller(r.Context())
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	value := base64.RawURLEncoding.EncodeToString(b[:])
	expires := s.cfg.Clock.Now().Add(sessionTTL)
	if err := s.cfg.Accounts.CreateSession(r.Context(), hashSession(value), c.User.ID, expires); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    value,
		Path:     "/",
		Expires:  expires,
		MaxAge:   int(sessionTTL / time.Second),
		HttpOnly: true,
		Secure:   httpx.Secure(r.Context()),
		SameSite: http.SameSiteLaxMode,
	})
	httpx.WriteJSON(w, http.StatusOK, struct {
		Success bool `json:"success"`
	}{true})
	return nil
}

func (s *Server) handleAPIKeyCreate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name          *string   `json:"name"`
		Scopes        *[]string `json:"scopes"`
		ExpiresInDays *int      `json:"expiresInDays"`
		RateLimit     *int      `json:"rateLimit"`
		Mode          *string   `json:"mode"`
		Confirmation  *string   `json:"confirmation"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	name := httpx.CheckString(errs, "name", in.Name, true, 1, 100)
	var scopes []string
	switch {
	case in.Scopes == nil:
		errs.Add("scopes", "is required")
	case len(*in.Scopes) == 0:
		errs.Add("scopes", "must name at least one scope")
	default:
		for _, sc := range *in.Scopes {
			if !slices.Contains(guide.Scopes, sc) {
				errs.Add("scopes", "unknown scope "+quote(sc)+"; allowed: "+strings.Join(guide.Scopes, ", "))
			} else if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	key := &guide.APIKey{UserID: caller(r.Context()).User.ID, Name: name, Scopes: scopes, RateLimit: 300, Mode: "live",
		Confirmation: guide.ConfirmActor}
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
		exp := s.cfg.Clock.Now().AddDate(0, 0, *in.ExpiresInDays)
		key.ExpiresAt = &exp
	}
	if in.Mode != nil {
		if *in.Mode != "live" && *in.Mode != "test" {
			errs.Add("mode", "must be live or test")
		}
		key.Mode = *in.Mode
	}
	if in.Confirmation != nil {
		if *in.Confirmation != guide.ConfirmActor && *in.Confirmation != guide.ConfirmPerson {
			errs.Add("confirmation", "must be actor (the key or its owner confirms its high-risk actions) or person (only its owner does)")
		}
		key.Confirmation = *in.Confirmation
	}
	if err := errs.Err(); err != nil {
		return err
	}
	full, prefix, hash, err := auth.NewAPIKey(key.Mode)
	if err != nil {
		return err
	}
	key.KeyPrefix = prefix
	if err := s.cfg.Accounts.CreateAPIKey(r.Context(), key, hash); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, newCreatedAPIKey(key, &full))
	return nil
}

// createdAPIKey is the answer to a key's creation: the key itself is shown
// once (null in an idempotent replay, whose record never holds it).
type createdAPIKey struct {
	Data struct {
		ID        string   `json:"id"`
		Key       *string  `json:"key"`
		KeyPrefix string   `json:"keyPrefix"`
		Name      string   `json:"name"`
		Scopes    []string `json:"scopes"`
		// Confirmation: who confirms the key's high-risk actions.
		Confirmation string `json:"confirmation"`
		Mode         string `json:"mode"`
	} `json:"data"`
	Warning string `json:"warning"`
}

func newCreatedAPIKey(k *guide.APIKey, full *string) createdAPIKey {
	var c createdAPIKey
	c.Data.ID, c.Data.Key, c.Data.KeyPrefix, c.Data.Name, c.Data.Scopes = k.ID, full, k.KeyPrefix, k.Name, k.Scopes
	c.Data.Confirmation, c.Data.Mode = k.Confirmation, k.Mode
	c.Warning = "Store this key now: it is shown only once and cannot be recovered. Anyone holding it can act for you within its scopes."
	return c
}

// renderCreatedAPIKey renders the idempotency record of a created key.
func renderCreatedAPIKey(result any) ([]byte, error) {
	return json.Marshal(newCreatedAPIKey(result.(*guide.APIKey), nil))
}

func (s *Server) handleAPIKeyList(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.cfg.Accounts.FindAPIKeys(r.Context(), caller(r.Context()).User.ID)
	if err != nil {
		return err
	}
	for i := range keys {
		if t, ok := s.cfg.KeyUsage.Pending(keys[i].ID); ok && (keys[i].LastUsedAt == nil || t.After(*keys[i].LastUsedAt)) {
			keys[i].LastUsedAt = &t
		}
	}
	httpx.WriteJSON(w, http.StatusOK, item{keys})
	return nil
}

func (s *Server) handleAPIKeyRevoke(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	at, err := s.cfg.Accounts.RevokeAPIKey(r.Context(), caller(r.Context()).User.ID, id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		ID        string    `json:"id"`
		Revoked   bool      `json:"revoked"`
		RevokedAt time.Time `json:"revokedAt"`
	}{id, true, at}})
	return nil
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}
