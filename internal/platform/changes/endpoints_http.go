package changes

import (
	"net/http"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// EndpointAPI serves the management of webhook endpoints for the owner of
// the request.
type EndpointAPI struct {
	Store  *Endpoints
	Policy Policy
	Types  []string // the event types an endpoint may subscribe to
	// Modes, when set, are the values of an endpoint's mode (the property
	// platform's test and live); the first is the default.
	Modes []string
	// Owner returns who manages endpoints in the request.
	Owner func(r *http.Request) string
	// Audience returns the feed audience an endpoint of the request's
	// owner receives, for mode ("" without Modes).
	Audience func(r *http.Request, mode string) string
	// Item wraps a single resource as the API answers it.
	Item func(v any) any
}

// createdEndpoint is an endpoint as answered at creation and rotation:
// with its secret, which is never shown again.
type createdEndpoint struct {
	*Endpoint
	Secret string `json:"secret"`
}

type listOf[T any] struct {
	Data []T `json:"data"`
}

type endpointInput struct {
	URL         *string   `json:"url"`
	Types       *[]string `json:"types"`
	Description *string   `json:"description"`
	Mode        *string   `json:"mode"`
	Enabled     *bool     `json:"enabled"`
}

// check validates the input; create requires url.
func (a *EndpointAPI) check(in *endpointInput, create bool) error {
	errs := apperr.FieldErrors{}
	switch {
	case in.URL == nil && create:
		errs.Add("url", "is required")
	case in.URL != nil:
		if msg := a.Policy.CheckURL(*in.URL); msg != "" {
			errs.Add("url", msg)
		}
	}
	if in.Types != nil {
		for _, t := range *in.Types {
			if !slices.Contains(a.Types, t) {
				errs.Add("types", "must name event types among: "+joinComma(a.Types))
				break
			}
		}
		// Each type once, in a stable order.
		types := slices.Clone(*in.Types)
		slices.Sort(types)
		*in.Types = slices.Compact(types)
	}
	if in.Description != nil {
		field.CheckString(errs, "description", in.Description, false, 0, 200)
	}
	if in.Mode != nil {
		if !create || len(a.Modes) == 0 {
			errs.Add("mode", "is not a field of this request")
		} else if !slices.Contains(a.Modes, *in.Mode) {
			errs.Add("mode", "must be one of: "+joinComma(a.Modes))
		}
	}
	if in.Enabled != nil && create {
		errs.Add("enabled", "is not a field of this request; a new endpoint is enabled")
	}
	return errs.Err()
}

func joinComma(s []string) string { return strings.Join(s, ", ") }

// HandleCreate creates an endpoint and answers it with its secret.
func (a *EndpointAPI) HandleCreate(w http.ResponseWriter, r *http.Request) error {
	var in endpointInput
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	if err := a.check(&in, true); err != nil {
		return err
	}
	owner := a.Owner(r)
	mode := ""
	if len(a.Modes) > 0 {
		mode = a.Modes[0]
		if in.Mode != nil {
			mode = *in.Mode
		}
	}
	e := &Endpoint{Owner: owner, Audience: a.Audience(r, mode), URL: *in.URL, Description: in.Description, Mode: mode}
	if in.Types != nil {
		e.Types = *in.Types
	}
	secret, err := NewSecret()
	if err != nil {
		return err
	}
	if err := a.Store.Create(r.Context(), e, secret); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusCreated, a.Item(createdEndpoint{e, secret}))
	return nil
}

// withMode fills in the modes of endpoints from their audiences.
func (a *EndpointAPI) withMode(es ...*Endpoint) {
	for _, e := range es {
		for _, m := range a.Modes {
			if suffix := ":" + m; len(e.Audience) > len(suffix) && e.Audience[len(e.Audience)-len(suffix):] == suffix {
				e.Mode = m
			}
		}
	}
}

// HandleList lists the owner's endpoints.
func (a *EndpointAPI) HandleList(w http.ResponseWriter, r *http.Request) error {
	es, err := a.Store.List(r.Context(), a.Owner(r))
	if err != nil {
		return err
	}
	for i := range es {
		a.withMode(&es[i])
	}
	httpx.WriteJSON(w, http.StatusOK, listOf[Endpoint]{es})
	return nil
}

// HandleGet answers one endpoint.
func (a *EndpointAPI) HandleGet(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook endpoint")
	if err != nil {
		return err
	}
	e, err := a.Store.Get(r.Context(), a.Owner(r), id)
	if err != nil {
		return err
	}
	a.withMode(e)
	httpx.WriteJSON(w, http.StatusOK, a.Item(e))
	return nil
}

// HandleUpdate changes an endpoint: url, types, description, enabled.
func (a *EndpointAPI) HandleUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook endpoint")
	if err != nil {
		return err
	}
	var in endpointInput
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	if err := a.check(&in, false); err != nil {
		return err
	}
	e, err := a.Store.Update(r.Context(), a.Owner(r), id,
		EndpointUpdate{URL: in.URL, Types: in.Types, Description: in.Description, Enabled: in.Enabled})
	if err != nil {
		return err
	}
	a.withMode(e)
	httpx.WriteJSON(w, http.StatusOK, a.Item(e))
	return nil
}

// HandleDelete removes an endpoint.
func (a *EndpointAPI) HandleDelete(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook endpoint")
	if err != nil {
		return err
	}
	if err := a.Store.Delete(r.Context(), a.Owner(r), id); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a.Item(struct {
		ID      string `json:"id"`
		Deleted bool   `json:"deleted"`
	}{id, true}))
	return nil
}

// HandleRotate gives an endpoint a new secret and answers it; the old one
// keeps signing too for RotationGrace.
func (a *EndpointAPI) HandleRotate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook endpoint")
	if err != nil {
		return err
	}
	secret, err := NewSecret()
	if err != nil {
		return err
	}
	e, err := a.Store.RotateSecret(r.Context(), a.Owner(r), id, secret, RotationGrace)
	if err != nil {
		return err
	}
	a.withMode(e)
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, a.Item(createdEndpoint{e, secret}))
	return nil
}

// HandleTest enqueues a webhook.test ping to an endpoint.
func (a *EndpointAPI) HandleTest(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook endpoint")
	if err != nil {
		return err
	}
	d, err := a.Store.Ping(r.Context(), a.Owner(r), id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusAccepted, a.Item(d))
	return nil
}

// HandleDeliveries lists the latest deliveries to an endpoint.
func (a *EndpointAPI) HandleDeliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook endpoint")
	if err != nil {
		return err
	}
	q := httpx.NewQuery(r.URL.Query())
	limit := q.Int("limit", 50, 1, 100)
	if err := q.Err(); err != nil {
		return err
	}
	ds, err := a.Store.Deliveries(r.Context(), a.Owner(r), id, limit)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, listOf[Delivery]{ds})
	return nil
}

// HandleRedeliver sends a delivery again, with the same webhook-id.
func (a *EndpointAPI) HandleRedeliver(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "webhook delivery")
	if err != nil {
		return err
	}
	d, err := a.Store.Redeliver(r.Context(), a.Owner(r), id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusAccepted, a.Item(d))
	return nil
}
