package oauth

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// maxForm bounds the body of a token, revocation or registration request.
const maxForm = 16 << 10

// Mux is where the routes are registered.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Routes are the "METHOD /path" patterns Register serves. The protocol
// endpoints (all but the consent page's requests) may be called from any
// origin: they take no cookie.
var Routes = struct{ Protocol, Consent []string }{
	Protocol: []string{"GET " + MetadataPath, "POST " + RegisterPath, "GET " + AuthorizePath, "POST " + TokenPath, "POST " + RevokePath},
	Consent:  []string{"GET " + RequestsPath + "{id}", "POST " + RequestsPath + "{id}"},
}

// Register serves the endpoints on mux. limit bounds the requests of a
// client address, registerLimit its registrations; person authenticates
// the one deciding on a request on the consent page, as the product signs
// its people in.
func (s *Server) Register(mux Mux, limit, registerLimit func(httpx.HandlerFunc) httpx.HandlerFunc, person func(*http.Request) (*Person, error)) {
	mux.Handle("GET "+MetadataPath, httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		httpx.WriteJSON(w, http.StatusOK, s.Metadata())
		return nil
	}))
	mux.Handle("POST "+RegisterPath, httpx.Adapt(registerLimit(s.handleRegister)))
	mux.Handle("GET "+AuthorizePath, httpx.Adapt(limit(s.handleAuthorize)))
	mux.Handle("POST "+TokenPath, httpx.Adapt(limit(s.handleToken)))
	mux.Handle("POST "+RevokePath, httpx.Adapt(limit(s.handleRevoke)))
	mux.Handle("GET "+RequestsPath+"{id}", httpx.Adapt(limit(func(w http.ResponseWriter, r *http.Request) error {
		if _, err := person(r); err != nil {
			return err
		}
		req, err := s.Request(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"data": req})
		return nil
	})))
	mux.Handle("POST "+RequestsPath+"{id}", httpx.Adapt(limit(func(w http.ResponseWriter, r *http.Request) error {
		p, err := person(r)
		if err != nil {
			return err
		}
		var in struct {
			Approve *bool    `json:"approve"`
			Scopes  []string `json:"scopes"`
		}
		if err := httpx.Decode(w, r, &in); err != nil {
			return err
		}
		if in.Approve == nil {
			return apperr.Field("approve", "is required: true to approve, false to deny")
		}
		to, err := s.Decide(r.Context(), r.PathValue("id"), *p, *in.Approve, in.Scopes)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"redirectTo": to}})
		return nil
	})))
}

// writeError answers an OAuth error: 401 for a client that is not known,
// 400 for the rest (RFC 6749, section 5.2).
func writeError(w http.ResponseWriter, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	status := http.StatusBadRequest
	if e.Code == "invalid_client" {
		status = http.StatusUnauthorized
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, status, e)
	return nil
}

// form reads a form-encoded body: bounded, each parameter at most once
// (RFC 6749, section 3.2).
func form(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return nil, &Error{Code: "invalid_request", Description: "The body is application/x-www-form-urlencoded."}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxForm))
	if err != nil {
		return nil, &Error{Code: "invalid_request", Description: "The body is too large."}
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, &Error{Code: "invalid_request", Description: "The body is not a valid form."}
	}
	for k, vs := range v {
		if len(vs) > 1 {
			return nil, &Error{Code: "invalid_request", Description: "The parameter " + k + " is sent more than once."}
		}
	}
	return v, nil
}

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return writeError(w, &Error{Code: "invalid_client_metadata", Description: "The body is a JSON object of client metadata."})
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxForm))
	if err != nil {
		return writeError(w, &Error{Code: "invalid_client_metadata", Description: "The body is too large."})
	}
	var m oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return writeError(w, &Error{Code: "invalid_client_metadata", Description: "The body is a JSON object of client metadata."})
	}
	out, err := s.RegisterClient(r.Context(), &m)
	if err != nil {
		return writeError(w, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusCreated, out)
	return nil
}

func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	for k, vs := range q {
		if len(vs) > 1 {
			return s.showError(w, r, &Error{Code: "invalid_request", Description: "The parameter " + k + " is sent more than once."})
		}
	}
	to, err := s.Authorize(r.Context(), AuthorizeParams{
		ResponseType: q.Get("response_type"), ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		Scope: q.Get("scope"), State: q.Get("state"), CodeChallenge: q.Get("code_challenge"),
		CodeChallengeMethod: q.Get("code_challenge_method"), Resource: q.Get("resource"),
	})
	var redirect *Redirect
	switch {
	case errors.As(err, &redirect):
		to = redirect.URL
	case err != nil:
		return s.showError(w, r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusFound)
	return nil
}

// showError sends the person to the consent page, which explains an
// error that cannot go back to the client (unknown client, redirect URI
// not its own).
func (s *Server) showError(w http.ResponseWriter, r *http.Request, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, s.cfg.ConsentPage+"?"+url.Values{"error": {e.Code}, "error_description": {e.Description}}.Encode(), http.StatusFound)
	return nil
}

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) error {
	v, err := form(w, r)
	if err != nil {
		return writeError(w, err)
	}
	out, err := s.Token(r.Context(), TokenParams{
		GrantType: v.Get("grant_type"), ClientID: v.Get("client_id"), Code: v.Get("code"), RedirectURI: v.Get("redirect_uri"),
		CodeVerifier: v.Get("code_verifier"), RefreshToken: v.Get("refresh_token"), Resource: v.Get("resource"), Scope: v.Get("scope"),
	})
	if err != nil {
		return writeError(w, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) error {
	v, err := form(w, r)
	if err != nil {
		return writeError(w, err)
	}
	if err := s.Revoke(r.Context(), v.Get("client_id"), v.Get("token")); err != nil {
		return writeError(w, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return nil
}
