package guidehttp

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guideauth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

func (s *Server) authLimited(pattern string, h httpx.HandlerFunc) {
	s.router.Handle(pattern, httpx.Adapt(httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.authKey, h)))
}

// writeSignedIn answers a sign-in: the token and the account.
func writeSignedIn(w http.ResponseWriter, r *http.Request, status int, in *guide.SignedIn, err error) error {
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), in.User)
	httpx.WriteJSON(w, status, in)
	return nil
}

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) error {
	var in guide.Registration
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	out, err := s.svc.Register(r.Context(), in)
	return writeSignedIn(w, r, http.StatusCreated, out, err)
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var in guide.Login
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	out, err := s.svc.Login(r.Context(), in)
	return writeSignedIn(w, r, http.StatusOK, out, err)
}

func (s *Server) handleIdpA(w http.ResponseWriter, r *http.Request) error {
	var in guide.IdpASignIn
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	out, err := s.svc.SignInWithIdpA(r.Context(), in)
	return writeSignedIn(w, r, http.StatusOK, out, err)
}

func (s *Server) handleIdpB(w http.ResponseWriter, r *http.Request) error {
	var in guide.IdpBSignIn
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	out, err := s.svc.SignInWithIdpB(r.Context(), in)
	return writeSignedIn(w, r, http.StatusOK, out, err)
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	u, err := s.svc.Me(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	media.Resolve(r.Context(), u)
	httpx.WriteJSON(w, http.StatusOK, struct {
		User *guide.User `json:"user"`
	}{u})
	return nil
}

func (s *Server) handleSessionExchange(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.svc.CreateSession(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name:     guideauth.SessionCookie,
		Value:    sess.Value,
		Path:     "/",
		Expires:  sess.ExpiresAt,
		MaxAge:   int(guide.SessionTTL / time.Second),
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
	var in guide.NewAPIKey
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	key, secret, err := s.svc.CreateAPIKey(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, newCreatedAPIKey(key, &secret))
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
	keys, err := s.svc.APIKeys(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{keys})
	return nil
}

func (s *Server) handleAPIKeyRevoke(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.RevokeAPIKey(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{out})
	return nil
}
