package propertyhttp

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
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
	var in struct {
		Email    *string `json:"email"`
		Password *string `json:"password"`
		Name     *string `json:"name"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	email := httpx.CheckEmail(errs, "email", in.Email)
	password := httpx.CheckPassword(errs, "password", in.Password)
	name := httpx.CheckString(errs, "name", in.Name, true, 2, 100)
	if err := errs.Err(); err != nil {
		return err
	}
	hash, err := auth.HashPassword(r.Context(), password)
	if err != nil {
		return err
	}
	d, err := s.cfg.Accounts.CreateDeveloper(r.Context(), property.NewDeveloper{Email: email, Name: name, PasswordHash: hash})
	if err != nil {
		return err
	}
	return s.writeToken(w, http.StatusCreated, d)
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
	d, hash, err := s.cfg.Accounts.FindDeveloperByEmail(r.Context(), email)
	if err != nil && apperr.Code(err) != apperr.NotFound {
		return err
	}
	if d == nil {
		hash = ""
	}
	if ok, err := auth.CheckLogin(r.Context(), hash, password); err != nil {
		return err
	} else if !ok {
		return errBadLogin
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
	var in struct {
		Name   *string   `json:"name"`
		Mode   *string   `json:"mode"`
		Scopes *[]string `json:"scopes"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	name := httpx.CheckString(errs, "name", in.Name, true, 1, 100)
	mode := ""
	switch {
	case in.Mode == nil:
		errs.Add("mode", "is required: test or live")
	case *in.Mode != property.ModeTest && *in.Mode != property.ModeLive:
		errs.Add("mode", "must be test or live")
	default:
		mode = *in.Mode
	}
	scopes := property.Scopes
	if in.Scopes != nil {
		scopes = nil
		if len(*in.Scopes) == 0 {
			errs.Add("scopes", "must name at least one scope, or be left out for all of them")
		}
		for _, sc := range *in.Scopes {
			if !slices.Contains(property.Scopes, sc) {
				errs.Add("scopes", "unknown scope "+strconv.Quote(sc)+"; allowed: "+strings.Join(property.Scopes, ", "))
			} else if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	full, prefix, hash, err := auth.NewAPIKey(mode)
	if err != nil {
		return err
	}
	k := &property.Key{DeveloperID: developer(r.Context()).ID, Name: name, KeyPrefix: prefix, Mode: mode, Scopes: scopes}
	if err := s.cfg.Accounts.CreateKey(r.Context(), k, hash); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, createdKey{Key: *k, Secret: &full})
	return nil
}

func (s *Server) handleKeyList(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.cfg.Accounts.FindKeys(r.Context(), developer(r.Context()).ID)
	if err != nil {
		return err
	}
	pending := s.cfg.Usage.Pending()
	for i := range keys {
		for uk, c := range pending {
			if uk.KeyID == keys[i].ID && (keys[i].LastUsedAt == nil || c.LastUsed.After(*keys[i].LastUsedAt)) {
				t := c.LastUsed
				keys[i].LastUsedAt = &t
			}
		}
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		Data []property.Key `json:"data"`
	}{keys})
	return nil
}

// keyID returns the {id} of the path when it is a UUID; anything else
// names no key.
func keyID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", apperr.Errorf(apperr.NotFound, "No working API key with id %q.", id)
	}
	return u.String(), nil
}

func (s *Server) handleKeyRevoke(w http.ResponseWriter, r *http.Request) error {
	id, err := keyID(r)
	if err != nil {
		return err
	}
	if _, err := s.cfg.Accounts.RevokeKey(r.Context(), developer(r.Context()).ID, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleKeyRotate(w http.ResponseWriter, r *http.Request) error {
	id, err := keyID(r)
	if err != nil {
		return err
	}
	dev := developer(r.Context())
	keys, err := s.cfg.Accounts.FindKeys(r.Context(), dev.ID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(keys, func(k property.Key) bool { return k.ID == id })
	if i < 0 {
		return apperr.Errorf(apperr.NotFound, "No working API key with id %q.", id)
	}
	full, prefix, hash, err := auth.NewAPIKey(keys[i].Mode)
	if err != nil {
		return err
	}
	k, err := s.cfg.Accounts.RotateKey(r.Context(), dev.ID, id, prefix, hash, property.RotationGrace)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, createdKey{Key: *k, Secret: &full})
	return nil
}

// maxUsageDays bounds the range of a usage request.
const maxUsageDays = 366

func (s *Server) handleUsage(w http.ResponseWriter, r *http.Request) error {
	q := httpx.NewQuery(r.URL.Query())
	today := property.DateOf(s.cfg.Clock.Now().UTC())
	to := dateParam(q, "to", today)
	from := dateParam(q, "from", to.AddDays(-29))
	if err := q.Err(); err != nil {
		return err
	}
	switch n := from.DaysUntil(to) + 1; {
	case n < 1:
		return apperr.Field("to", "must not be before from")
	case n > maxUsageDays:
		return apperr.Field("to", "the range is at most "+strconv.Itoa(maxUsageDays)+" days")
	}
	days, err := s.cfg.Accounts.FindUsage(r.Context(), developer(r.Context()).ID, from, to, s.cfg.Usage.Pending())
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, struct {
		From property.Date       `json:"from"`
		To   property.Date       `json:"to"`
		Data []property.UsageDay `json:"data"`
	}{from, to, days})
	return nil
}

// dateParam reads a YYYY-MM-DD query parameter, def when absent.
func dateParam(q *httpx.Query, name string, def property.Date) property.Date {
	v := q.String(name, 10)
	if v == "" {
		return def
	}
	d, err := property.ParseDate(v)
	if err != nil {
		q.Errs.Add(name, err.Error())
		return def
	}
	return d
}
