package oauth

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Error is an OAuth error answer: its code (RFC 6749, section 5.2, and
// the extensions') and a description for the developer.
type Error struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

// checkText tells whether s is UTF-8 text without control characters, of
// at most max bytes.
func checkText(s string, max int) bool {
	if len(s) > max || !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// AuthorizeParams are the parameters of an authorization request.
type AuthorizeParams struct {
	ResponseType, ClientID, RedirectURI, Scope, State string
	CodeChallenge, CodeChallengeMethod, Resource      string
}

// Redirect is an error to send the client to its redirect URI, as the
// protocol wants once the redirect URI is known to be the client's.
type Redirect struct {
	URL string
}

func (r *Redirect) Error() string { return "redirect to " + r.URL }

// Authorize checks an authorization request and keeps it for the person
// to decide on, returning the consent page's URL. Until the client and
// its redirect URI are known, a refusal is an *Error shown to the person;
// after, it is a *Redirect that carries the error to the client.
func (s *Server) Authorize(ctx context.Context, p AuthorizeParams) (consentURL string, err error) {
	for _, v := range []string{p.ResponseType, p.RedirectURI, p.Scope, p.State, p.CodeChallenge, p.CodeChallengeMethod, p.Resource} {
		if !checkText(v, maxURL) {
			return "", &Error{Code: "invalid_request", Description: fmt.Sprintf("Each parameter is text of at most %d bytes.", maxURL)}
		}
	}
	c, err := s.client(ctx, p.ClientID)
	if err != nil {
		return "", err
	}
	if p.RedirectURI == "" && len(c.RedirectURIs) == 1 && !httpx.Loopback(hostOf(c.RedirectURIs[0])) {
		p.RedirectURI = c.RedirectURIs[0]
	}
	if !c.redirectAllowed(p.RedirectURI) {
		return "", &Error{Code: "invalid_request", Description: "redirect_uri is not one of the client's redirect URIs."}
	}
	refuse := func(code, desc string) error {
		return &Redirect{URL: s.redirectURL(p.RedirectURI, url.Values{"error": {code}, "error_description": {desc}, "state": {p.State}})}
	}
	switch {
	case p.ResponseType != "code":
		return "", refuse("unsupported_response_type", "response_type must be code.")
	case p.CodeChallenge == "":
		return "", refuse("invalid_request", "code_challenge is required (PKCE, S256).")
	case p.CodeChallengeMethod != "S256":
		return "", refuse("invalid_request", "code_challenge_method must be S256.")
	case len(p.CodeChallenge) != 43 || !unreserved(p.CodeChallenge):
		return "", refuse("invalid_request", "code_challenge is the base64url SHA-256 of the verifier: 43 characters.")
	case p.Resource != "" && p.Resource != s.cfg.Resource:
		return "", refuse("invalid_target", "This server issues tokens for the resource "+s.cfg.Resource+" only.")
	}
	scopes := s.requested(p.Scope)
	if len(scopes) == 0 {
		return "", refuse("invalid_scope", "Ask for at least one of: "+strings.Join(s.cfg.Scopes, " ")+".")
	}
	id, _ := secret("")
	now := s.cfg.Clock.Now().UTC()
	b, err := json.Marshal(scopes)
	if err != nil {
		return "", err
	}
	if _, err := s.cfg.DB.ExecContext(ctx, `INSERT INTO oauth_requests (id, client_id, redirect_uri, state, code_challenge, resource, scopes, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, id, c.ID, p.RedirectURI, p.State, p.CodeChallenge, s.cfg.Resource, string(b), now.Add(RequestTTL), now); err != nil {
		return "", fmt.Errorf("keep authorization request: %w", err)
	}
	return s.cfg.ConsentPage + "?request=" + id, nil
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// unreserved tells whether s holds only the characters of a PKCE
// verifier or challenge (RFC 7636, section 4.1).
func unreserved(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' || r == '~')
	})
}

// requested are the known scopes of a scope parameter, each once; no
// scope asked for means all of them (the person may grant fewer).
// Unknown scopes are left out (RFC 6749, section 3.3, lets the server
// grant less than asked).
func (s *Server) requested(scope string) []string {
	if strings.TrimSpace(scope) == "" {
		return slices.Clone(s.cfg.Scopes)
	}
	var out []string
	for f := range strings.FieldsSeq(scope) {
		if slices.Contains(s.cfg.Scopes, f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// redirectURL is redirect with the parameters added, and the issuer (RFC
// 9207), so a client talking to several servers knows which answered.
func (s *Server) redirectURL(redirect string, params url.Values) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return redirect
	}
	q := u.Query()
	for k, vs := range params {
		if len(vs) == 1 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	q.Set("iss", s.cfg.Issuer)
	u.RawQuery = q.Encode()
	return u.String()
}

// Request is an authorization request as the consent page shows it.
type Request struct {
	ID     string   `json:"id"`
	Client *Client  `json:"client"`
	Scopes []string `json:"scopes"`
	// RedirectHost is where the person will be sent back to.
	RedirectHost string    `json:"redirectHost"`
	ExpiresAt    time.Time `json:"expiresAt"`
}

// errNoRequest is the answer about a request that is unknown, decided or
// expired.
var errNoRequest = apperr.Errorf(apperr.NotFound, "This authorization request is unknown, expired or already decided; start again from the application.")

// Request returns a request waiting for a decision. Errors:
// apperr.NotFound.
func (s *Server) Request(ctx context.Context, id string) (*Request, error) {
	r, err := s.pending(ctx, s.cfg.DB.DB, id, false)
	if err != nil {
		return nil, err
	}
	c, err := s.findClient(ctx, r.clientID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errNoRequest
	}
	return &Request{ID: id, Client: c, Scopes: r.scopes, RedirectHost: hostOf(r.redirectURI), ExpiresAt: r.expiresAt}, nil
}

type pendingRequest struct {
	clientID, redirectURI, state string
	scopes                       []string
	expiresAt                    time.Time
}

func (s *Server) pending(ctx context.Context, q store.Querier, id string, lock bool) (*pendingRequest, error) {
	if !checkText(id, 64) {
		return nil, errNoRequest
	}
	forUpdate := ""
	if lock && s.cfg.DB.Engine == store.Postgres {
		forUpdate = " FOR UPDATE"
	}
	var r pendingRequest
	var scopes []byte
	err := q.QueryRowContext(ctx, `SELECT client_id, redirect_uri, state, scopes, expires_at FROM oauth_requests
		WHERE id = $1 AND decided_at IS NULL AND expires_at > $2`+forUpdate, id, s.cfg.Clock.Now()).
		Scan(&r.clientID, &r.redirectURI, &r.state, &scopes, &r.expiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoRequest
	} else if err != nil {
		return nil, fmt.Errorf("find authorization request: %w", err)
	}
	r.scopes, r.expiresAt = store.StringList(scopes), r.expiresAt.UTC()
	return &r, nil
}

// Person is who decides on a request: the id the product's Grants know,
// and the scopes their rights allow.
type Person struct {
	ID     string
	Scopes []string
}

// Decide records the person's decision on a request and returns where to
// send the person: the client's redirect URI with a code (approved, for
// the scopes granted, some of those asked for and allowed) or with
// access_denied. Errors: apperr.NotFound, apperr.Validation.
func (s *Server) Decide(ctx context.Context, id string, p Person, approve bool, scopes []string) (string, error) {
	if approve {
		slices.Sort(scopes)
		scopes = slices.Compact(scopes)
		if len(scopes) == 0 {
			return "", apperr.Field("scopes", "grant at least one scope, or deny")
		}
		for _, sc := range scopes {
			if !slices.Contains(p.Scopes, sc) {
				return "", apperr.Field("scopes", "you cannot grant "+sc)
			}
		}
	}
	var to string
	err := s.cfg.DB.InTx(ctx, func(tx *sql.Tx) error {
		r, err := s.pending(ctx, tx, id, true)
		if err != nil {
			return err
		}
		now := s.cfg.Clock.Now().UTC()
		if !approve {
			if _, err := tx.ExecContext(ctx, `UPDATE oauth_requests SET decided_at = $1 WHERE id = $2`, now, id); err != nil {
				return err
			}
			to = s.redirectURL(r.redirectURI, url.Values{"error": {"access_denied"}, "error_description": {"The person denied the request."}, "state": {r.state}})
			return nil
		}
		for _, sc := range scopes {
			if !slices.Contains(r.scopes, sc) {
				return apperr.Field("scopes", "the application did not ask for "+sc)
			}
		}
		c, err := s.findClient(ctx, r.clientID)
		if err != nil {
			return err
		}
		if c == nil {
			return errNoRequest
		}
		grant, err := s.cfg.Grants.SaveGrant(ctx, tx, p.ID, c, scopes)
		if err != nil {
			return err
		}
		code, hash := secret("")
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_requests SET decided_at = $1, code_hash = $2, grant_id = $3, code_expires_at = $4
			WHERE id = $5`, now, hash, grant, now.Add(CodeTTL), id); err != nil {
			return err
		}
		to = s.redirectURL(r.redirectURI, url.Values{"code": {code}, "state": {r.state}})
		return nil
	})
	return to, err
}

// TokenParams are the parameters of a token request.
type TokenParams struct {
	GrantType, ClientID, Code, RedirectURI, CodeVerifier, RefreshToken, Resource, Scope string
}

// Tokens are the answer to a token request (RFC 6749, section 5.1).
type Tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// errReplay is the refusal of a code or refresh token used before; the
// tokens it gave are revoked (RFC 9700, sections 2.1.1 and 4.14).
var errReplay = &Error{Code: "invalid_grant", Description: "This grant was already used; the tokens it gave are revoked. Authorize again."}

// Token answers a token request: an authorization code or a refresh
// token exchanged for new tokens. Errors: *Error.
func (s *Server) Token(ctx context.Context, p TokenParams) (*Tokens, error) {
	for _, v := range []string{p.GrantType, p.ClientID, p.Code, p.RedirectURI, p.CodeVerifier, p.RefreshToken, p.Resource, p.Scope} {
		if !checkText(v, maxURL) {
			return nil, &Error{Code: "invalid_request", Description: fmt.Sprintf("Each parameter is text of at most %d bytes.", maxURL)}
		}
	}
	if p.ClientID == "" {
		return nil, &Error{Code: "invalid_client", Description: "client_id is required: clients are public here."}
	}
	if p.Resource != "" && p.Resource != s.cfg.Resource {
		return nil, &Error{Code: "invalid_target", Description: "This server issues tokens for the resource " + s.cfg.Resource + " only."}
	}
	var out *Tokens
	var replay bool
	err := s.cfg.DB.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		switch p.GrantType {
		case "authorization_code":
			out, replay, err = s.exchangeCode(ctx, tx, p)
		case "refresh_token":
			out, replay, err = s.refresh(ctx, tx, p)
		default:
			err = &Error{Code: "unsupported_grant_type", Description: "grant_type must be authorization_code or refresh_token."}
		}
		return err
	})
	if replay {
		// The revocation committed; the client is told its grant is gone.
		return nil, errReplay
	}
	return out, err
}

func (s *Server) exchangeCode(ctx context.Context, tx *sql.Tx, p TokenParams) (*Tokens, bool, error) {
	if p.Code == "" || p.CodeVerifier == "" {
		return nil, false, &Error{Code: "invalid_request", Description: "code and code_verifier are required."}
	}
	forUpdate := ""
	if s.cfg.DB.Engine == store.Postgres {
		forUpdate = " FOR UPDATE"
	}
	var id, clientID, redirectURI, challenge, resource string
	var grant sql.NullString
	var expires sql.NullTime
	var used sql.NullTime
	err := tx.QueryRowContext(ctx, `SELECT id, client_id, redirect_uri, code_challenge, resource, grant_id, code_expires_at, code_used_at
		FROM oauth_requests WHERE code_hash = $1`+forUpdate, hashOf(p.Code)).
		Scan(&id, &clientID, &redirectURI, &challenge, &resource, &grant, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, &Error{Code: "invalid_grant", Description: "The code is not valid."}
	} else if err != nil {
		return nil, false, err
	}
	now := s.cfg.Clock.Now().UTC()
	switch {
	case used.Valid:
		// A second use: someone else may hold the code. What the first
		// use gave is revoked.
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE chain = $1`, id); err != nil {
			return nil, false, err
		}
		return nil, true, nil
	case clientID != p.ClientID:
		return nil, false, &Error{Code: "invalid_grant", Description: "The code was issued to another client."}
	case !expires.Valid || !expires.Time.After(now):
		return nil, false, &Error{Code: "invalid_grant", Description: "The code has expired; authorize again."}
	case p.RedirectURI != "" && p.RedirectURI != redirectURI:
		return nil, false, &Error{Code: "invalid_grant", Description: "redirect_uri is not the one the code was issued for."}
	case len(p.CodeVerifier) < 43 || len(p.CodeVerifier) > 128 || !unreserved(p.CodeVerifier) ||
		subtle.ConstantTimeCompare([]byte(oauth2.S256ChallengeFromVerifier(p.CodeVerifier)), []byte(challenge)) != 1:
		return nil, false, &Error{Code: "invalid_grant", Description: "code_verifier does not match the code_challenge."}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE oauth_requests SET code_used_at = $1 WHERE id = $2`, now, id); err != nil {
		return nil, false, err
	}
	out, err := s.issue(ctx, tx, grant.String, clientID, id, resource, "")
	return out, false, err
}

func (s *Server) refresh(ctx context.Context, tx *sql.Tx, p TokenParams) (*Tokens, bool, error) {
	if p.RefreshToken == "" {
		return nil, false, &Error{Code: "invalid_request", Description: "refresh_token is required."}
	}
	forUpdate := ""
	if s.cfg.DB.Engine == store.Postgres {
		forUpdate = " FOR UPDATE"
	}
	var grant, clientID, chain, resource string
	var expires time.Time
	var used sql.NullTime
	err := tx.QueryRowContext(ctx, `SELECT grant_id, client_id, chain, resource, expires_at, used_at FROM oauth_tokens
		WHERE hash = $1 AND kind = 'refresh'`+forUpdate, hashOf(p.RefreshToken)).Scan(&grant, &clientID, &chain, &resource, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, &Error{Code: "invalid_grant", Description: "The refresh token is not valid (revoked, or its grant was)."}
	} else if err != nil {
		return nil, false, err
	}
	now := s.cfg.Clock.Now().UTC()
	switch {
	case used.Valid:
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE chain = $1`, chain); err != nil {
			return nil, false, err
		}
		return nil, true, nil
	case clientID != p.ClientID:
		return nil, false, &Error{Code: "invalid_grant", Description: "The refresh token was issued to another client."}
	case !expires.After(now):
		return nil, false, &Error{Code: "invalid_grant", Description: "The refresh token has expired; authorize again."}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET used_at = $1 WHERE hash = $2`, now, hashOf(p.RefreshToken)); err != nil {
		return nil, false, err
	}
	out, err := s.issue(ctx, tx, grant, clientID, chain, resource, p.Scope)
	return out, false, err
}

// issue mints an access token and a refresh token of the grant, if it
// still stands and holds every scope of ask (a refresh may name fewer,
// never more), in the chain of one authorization. A refusal rolls the
// transaction back, the spent code or refresh token with it.
func (s *Server) issue(ctx context.Context, tx *sql.Tx, grant, clientID, chain, resource, ask string) (*Tokens, error) {
	scopes, err := s.cfg.Grants.GrantScopes(ctx, tx, grant)
	if apperr.Code(err) == apperr.NotFound {
		return nil, &Error{Code: "invalid_grant", Description: "The person revoked this application's access, or closed the account."}
	} else if err != nil {
		return nil, err
	}
	for f := range strings.FieldsSeq(ask) {
		if !slices.Contains(scopes, f) {
			return nil, &Error{Code: "invalid_scope", Description: "The grant does not hold " + f + "; authorize again to ask for it."}
		}
	}
	now := s.cfg.Clock.Now().UTC()
	access, accessHash := secret(accessPrefix)
	refresh, refreshHash := secret(refreshPrefix)
	for _, t := range []struct {
		hash, kind string
		expires    time.Time
	}{{accessHash, "access", now.Add(AccessTTL)}, {refreshHash, "refresh", now.Add(RefreshTTL)}} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, kind, grant_id, client_id, chain, resource, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, t.hash, t.kind, grant, clientID, chain, resource, t.expires, now); err != nil {
			return nil, fmt.Errorf("keep token: %w", err)
		}
	}
	return &Tokens{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(AccessTTL / time.Second), RefreshToken: refresh, Scope: strings.Join(scopes, " ")}, nil
}

// Revoke revokes a token of the client (RFC 7009): an access token alone,
// a refresh token with every token of its chain. An unknown token, or
// another client's, is not an error: the answer must not tell.
func (s *Server) Revoke(ctx context.Context, clientID, token string) error {
	if !checkText(token, maxURL) || !checkText(clientID, maxClientIDURL) {
		return &Error{Code: "invalid_request", Description: "token and client_id are text."}
	}
	if token == "" {
		return &Error{Code: "invalid_request", Description: "token is required."}
	}
	return s.cfg.DB.InTx(ctx, func(tx *sql.Tx) error {
		var kind, chain, owner string
		err := tx.QueryRowContext(ctx, `SELECT kind, chain, client_id FROM oauth_tokens WHERE hash = $1`, hashOf(token)).Scan(&kind, &chain, &owner)
		if errors.Is(err, sql.ErrNoRows) || err == nil && owner != clientID {
			return nil
		} else if err != nil {
			return err
		}
		if kind == "refresh" {
			_, err = tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE chain = $1`, chain)
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE hash = $1`, hashOf(token))
		}
		return err
	})
}

// AccessToken is what an access token says.
type AccessToken struct {
	GrantID  string
	ClientID string
}

// Verify returns what a live access token of this server's resource
// says. The product then checks the grant itself (not revoked, its
// account open), as for any API key. Errors: apperr.Unauthorized.
func (s *Server) Verify(ctx context.Context, token string) (*AccessToken, error) {
	var t AccessToken
	err := s.cfg.DB.QueryRowContext(ctx, `SELECT grant_id, client_id FROM oauth_tokens
		WHERE hash = $1 AND kind = 'access' AND expires_at > $2 AND resource = $3`, hashOf(token), s.cfg.Clock.Now(), s.cfg.Resource).
		Scan(&t.GrantID, &t.ClientID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The access token is invalid, expired or revoked.")
	} else if err != nil {
		return nil, fmt.Errorf("verify access token: %w", err)
	}
	return &t, nil
}

// Purge deletes what can no longer be used: expired tokens, requests
// past their time, and registered clients no grant came of within a day.
func (s *Server) Purge(ctx context.Context) (int64, error) {
	now := s.cfg.Clock.Now()
	var n int64
	for _, q := range []struct {
		sql string
		at  time.Time
	}{
		{`DELETE FROM oauth_tokens WHERE expires_at <= $1`, now},
		// A request is kept a day past its time, so that a code used
		// again late is still recognised.
		{`DELETE FROM oauth_requests WHERE expires_at <= $1`, now.Add(-24 * time.Hour)},
		{`DELETE FROM oauth_clients WHERE document = FALSE AND created_at <= $1
			AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = oauth_clients.id)
			AND NOT EXISTS (SELECT 1 FROM oauth_requests r WHERE r.client_id = oauth_clients.id)`, now.Add(-24 * time.Hour)},
	} {
		res, err := s.cfg.DB.ExecContext(ctx, q.sql, q.at)
		if err != nil {
			return n, fmt.Errorf("purge oauth records: %w", err)
		}
		m, _ := res.RowsAffected()
		n += m
	}
	return n, nil
}
