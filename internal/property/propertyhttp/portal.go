package propertyhttp

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

type tokenResponse struct {
	Token     string              `json:"token"`
	ExpiresAt time.Time           `json:"expiresAt"`
	Developer *property.Developer `json:"developer"`
}

func (s *Server) writeToken(w http.ResponseWriter, status int, d *property.Developer) error {
	token, exp, err := s.cfg.PortalTokens.Issue(d.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, status, tokenResponse{Token: token, ExpiresAt: exp, Developer: d})
	return nil
}

func (s *Server) handleSignup(w http.ResponseWriter, r *http.Request) error {
	var in property.Signup
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	d, err := s.svc.Signup(r.Context(), in)
	if err != nil {
		return err
	}
	return s.writeToken(w, http.StatusCreated, d)
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var in property.Login
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	d, err := s.svc.Login(r.Context(), in)
	if err != nil {
		return err
	}
	return s.writeToken(w, http.StatusOK, d)
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, http.StatusOK, struct {
		Developer *property.Developer `json:"developer"`
	}{developer(r.Context())})
	return nil
}

// createdKey is a key as answered at creation: with the key itself, which
// is never shown again (null in an idempotent replay).
type createdKey struct {
	property.Key
	Secret *string `json:"key"`
}

// recordCreatedKey renders the idempotency record of a created key: the
// key itself is never stored, so a replay carries it as null.
func recordCreatedKey(result any) ([]byte, error) {
	return json.Marshal(createdKey{Key: *result.(*property.Key)})
}

func (s *Server) handleKeyCreate(w http.ResponseWriter, r *http.Request) error {
	var in property.NewKey
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	k, secret, err := s.svc.CreateKey(r.Context(), portalCaller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, createdKey{Key: *k, Secret: &secret})
	return nil
}

func (s *Server) handleKeyList(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.svc.FindKeys(r.Context(), portalCaller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		Data []property.Key `json:"data"`
	}{keys})
	return nil
}

func (s *Server) handleKeyRevoke(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.RevokeKey(r.Context(), portalCaller(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleKeyRotate(w http.ResponseWriter, r *http.Request) error {
	k, secret, err := s.svc.RotateKey(r.Context(), portalCaller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, createdKey{Key: *k, Secret: &secret})
	return nil
}

func (s *Server) handleUsage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	errs := apperr.FieldErrors{}
	from, to := dateArg(errs, "from", q.Get("from")), dateArg(errs, "to", q.Get("to"))
	if err := errs.Err(); err != nil {
		return err
	}
	u, err := s.svc.FindUsage(r.Context(), portalCaller(r.Context()), from, to)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, u)
	return nil
}
