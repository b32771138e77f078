// Package guideocto is the guide marketplace's OCTO supplier door
// (docs/octo.md): the OCTO specification's paths under /octo, for API keys
// holding octo:sell, answering in OCTO's wire format (wire.go) and error
// body (errors.go), and the endpoint's reference under /docs/octo. It
// authenticates and meters as every guide door does (guideauth) and calls
// guide.Service.
package guideocto

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guideauth"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/webui"
)

// Config is what the OCTO door needs to serve, besides the service.
type Config struct {
	Service *guide.Service
	// OAuth is the authorization server whose access tokens are taken as
	// API keys of their grants.
	OAuth   *oauth.Server
	Limiter ratelimit.Limiter
	Metrics *httpx.Metrics // may be nil
	OpenAPI []byte         // the OCTO document as JSON
	// Idempotency keeps the Idempotency-Key records of the reserves, in
	// the key space the guide server's other doors use.
	Idempotency idempotency.Store
}

// Door is the OCTO door's HTTP handler. It is mounted on the guide
// server's port, inside its logging, metrics and compression.
type Door struct {
	svc     *guide.Service
	keys    idempotency.Store
	auth    *guideauth.Authenticator
	router  *httpx.Router
	openAPI *httpx.Precompressed // the OCTO document, kept gzipped too
}

// New returns the OCTO door with every route registered.
func New(cfg Config) *Door {
	d := &Door{svc: cfg.Service, keys: cfg.Idempotency, router: httpx.NewRouter(), openAPI: &httpx.Precompressed{Body: cfg.OpenAPI},
		auth: &guideauth.Authenticator{Service: cfg.Service, OAuth: cfg.OAuth, Limiter: cfg.Limiter, Metrics: cfg.Metrics}}
	d.routes()
	return d
}

func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.router.ServeHTTP(w, r) }

// Routes lists the "METHOD /path" patterns the door answers.
func (d *Door) Routes() []string { return d.router.Patterns() }

// request is what an OCTO request asked for besides its body: the
// capabilities in effect and the locale of the content, and its caller.
type request struct {
	caps    []string
	locale  string
	content bool // octo/content is in effect
	caller  *guide.Caller
}

type requestKey struct{}

func requestOf(ctx context.Context) *request {
	o, _ := ctx.Value(requestKey{}).(*request)
	return o
}

func callerOf(ctx context.Context) *guide.Caller { return requestOf(ctx).caller }

func (d *Door) routes() {
	for _, rt := range []struct {
		method, path string
		h            httpx.HandlerFunc
	}{
		{"GET", "/supplier", d.handleOctoSupplier},
		{"GET", "/capabilities", d.handleOctoCapabilities},
		{"GET", "/products", d.handleOctoProducts},
		{"GET", "/products/{id}", d.handleOctoProduct},
		{"POST", "/availability/calendar", d.handleOctoCalendar},
		{"POST", "/availability", d.handleOctoAvailability},
		{"POST", "/bookings", d.handleOctoReserve},
		{"GET", "/bookings", d.handleOctoBookings},
		{"GET", "/bookings/{uuid}", d.handleOctoBooking},
		{"PATCH", "/bookings/{uuid}", d.handleOctoUpdate},
		{"POST", "/bookings/{uuid}/confirm", d.handleOctoConfirm},
		{"POST", "/bookings/{uuid}/extend", d.handleOctoExtend},
		{"POST", "/bookings/{uuid}/cancel", d.handleOctoCancel},
	} {
		// Resellers write the paths with and without a trailing slash.
		d.router.Handle(rt.method+" /octo"+rt.path, d.octoHandler(rt.h))
		d.router.Handle(rt.method+" /octo"+rt.path+"/{$}", d.octoHandler(rt.h))
	}
	// An unknown path or a wrong method under /octo is answered as the
	// endpoint answers, in OCTO's body, for the same keys.
	d.router.HandleTree("/octo/", func(h httpx.HandlerFunc) httpx.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			d.octoHandler(h).ServeHTTP(w, r)
			return nil
		}
	})
	// The reference of the endpoint: GET /docs/octo/ and its document. The
	// document is not under /octo, where every path takes a reseller's key.
	webui.Docs(webui.DocsConfig{Title: "OCTO supplier API", Prefix: "/docs/octo", SpecURL: "/docs/octo/openapi.json",
		Links: []webui.Link{{Text: "Guide Marketplace API", Href: "/docs/"}}}).Register(d.router)
	d.router.Handle("GET /docs/octo/openapi.json", httpx.Adapt(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "public, max-age=300")
		d.openAPI.Write(w, r)
		return nil
	}))
}

// octoHandler is an OCTO handler: authenticated by an API key with
// octo:sell, metered like every key request, with the capabilities and
// locale of the request in its context, and its errors in OCTO's body.
func (d *Door) octoHandler(h httpx.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caps := capabilitiesOf(r.Header.Get("Octo-Capabilities"))
		oc := &request{caps: caps, locale: localeOf(r.Header.Get("Accept-Language")), content: slices.Contains(caps, "octo/content")}
		w.Header().Set("Octo-Capabilities", strings.Join(caps, ", "))
		if oc.content {
			w.Header().Set("Content-Language", oc.locale)
			w.Header().Set("Available-Languages", strings.Join(guide.Locales, ", "))
		}
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, oc))
		err := func() error {
			c, err := d.auth.Authenticate(w, r, guideauth.Rule{Scope: guide.ScopeOctoSell})
			if err != nil {
				return err
			}
			oc.caller = c
			if c.APIKey != nil { // without one, the service refuses the request
				if err := d.auth.Meter(w, r, c.APIKey); err != nil {
					return err
				}
			}
			return h(w, r)
		}()
		if err != nil {
			writeError(w, r, err)
		}
	})
}

func (d *Door) handleOctoSupplier(w http.ResponseWriter, r *http.Request) error {
	sup, err := d.svc.OctoSupplier(r.Context(), callerOf(r.Context()))
	if err != nil {
		return err
	}
	out := octoSupplier{ID: sup.ID, Name: sup.Name, Endpoint: sup.Endpoint,
		Contact: octoSupplierContact{Website: &sup.Website}}
	if requestOf(r.Context()).content {
		out.octoSupplierContent = &octoSupplierContent{ShortDescription: &sup.ShortDescription, Media: []octoMedia{}}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (d *Door) handleOctoCapabilities(w http.ResponseWriter, r *http.Request) error {
	if _, err := guide.CheckOctoSeller(callerOf(r.Context())); err != nil {
		return err
	}
	out := []octoCapability{}
	for _, c := range capabilities {
		out = append(out, octoCapability{ID: c, Revision: 1, Required: false, Dependencies: []string{}, Docs: nil})
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (d *Door) handleOctoProducts(w http.ResponseWriter, r *http.Request) error {
	oc := requestOf(r.Context())
	ps, err := d.svc.OctoProducts(r.Context(), callerOf(r.Context()), oc.locale)
	if err != nil {
		return err
	}
	out := make([]octoProduct, len(ps))
	for i := range ps {
		out[i] = newOctoProduct(r.Context(), &ps[i], oc)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (d *Door) handleOctoProduct(w http.ResponseWriter, r *http.Request) error {
	oc := requestOf(r.Context())
	p, err := d.svc.OctoProduct(r.Context(), callerOf(r.Context()), r.PathValue("id"), oc.locale)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, newOctoProduct(r.Context(), p, oc))
	return nil
}

func (d *Door) handleOctoCalendar(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoAvailabilityRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	days, err := d.svc.OctoCalendar(r.Context(), callerOf(r.Context()), in)
	if err != nil {
		return err
	}
	out := make([]octoCalendarDay, len(days))
	for i, d := range days {
		out[i] = octoCalendarDay{LocalDate: d.Date, Available: d.Available, Status: d.Status, Vacancies: &d.Vacancies,
			Capacity: &d.Capacity, OpeningHours: []octoOpeningHours{}}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (d *Door) handleOctoAvailability(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoAvailabilityRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	starts, _, err := d.svc.OctoAvailability(r.Context(), callerOf(r.Context()), in)
	if err != nil {
		return err
	}
	out := make([]octoAvailability, len(starts))
	for i := range starts {
		out[i] = newOctoAvailability(&starts[i], requestOf(r.Context()))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (d *Door) handleOctoReserve(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoReservationRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	c := callerOf(r.Context())
	b, err := d.svc.OctoReserve(r.Context(), c, in, r.Header.Get("Idempotency-Key"), d.reserveOnce(c))
	return writeOctoBooking(w, r, b, err)
}

// reserveOnce keeps the caller's reserves sent with an Idempotency-Key
// through idempotency.Do: a hold commits its uuid as the key's answer, and
// a retry answers that booking as it is now, read again; a refusal is not
// kept, so that a retry may succeed. OCTO has no answer for a key still
// in progress, so a retry sent meanwhile waits for the first one's answer,
// as long as an abandoned claim lasts. OCTO's keys have a space of their
// own beside the REST and MCP keys of the same account, as they had before
// they moved to the shared records: a reseller's key never meets a key the
// same account sent to another door.
func (d *Door) reserveOnce(c *guide.Caller) guide.OctoOnce {
	return func(ctx context.Context, key, fingerprint string, place func(context.Context) (*guide.OctoBooking, error)) (*guide.OctoBooking, error) {
		result, stored, _, err := idempotency.Do(ctx, d.keys, idempotency.Call{
			Account: "octo:" + c.User.ID, Key: key, Fingerprint: fingerprint, Status: http.StatusOK, Render: holdUUID,
			Answer: func(result any, err error) (int, []byte, bool) {
				if err != nil {
					return 0, nil, false
				}
				body, rerr := holdUUID(result)
				return http.StatusOK, body, rerr == nil
			},
			Wait: idempotency.DefaultLockTTL,
		}, func(ctx context.Context) (any, error) { return place(ctx) })
		if b, _ := result.(*guide.OctoBooking); b != nil {
			if err != nil { // the hold stands: only its bookkeeping failed
				slog.ErrorContext(ctx, "record idempotent OCTO reserve", "err", err, "uuid", b.UUID)
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		var id string
		if err := json.Unmarshal(stored.Body, &id); err != nil {
			return nil, fmt.Errorf("replay of Idempotency-Key %q: %w", key, err)
		}
		return d.svc.OctoBooking(ctx, c, id)
	}
}

// holdUUID is the answer kept for a reserve: the uuid of its booking.
func holdUUID(result any) ([]byte, error) { return json.Marshal(result.(*guide.OctoBooking).UUID) }

func (d *Door) handleOctoBookings(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	bs, err := d.svc.OctoBookings(r.Context(), callerOf(r.Context()), q.Get("resellerReference"), q.Get("supplierReference"))
	if err != nil {
		return err
	}
	out := make([]octoBooking, len(bs))
	for i := range bs {
		out[i] = newOctoBooking(&bs[i], requestOf(r.Context()))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (d *Door) handleOctoBooking(w http.ResponseWriter, r *http.Request) error {
	b, err := d.svc.OctoBooking(r.Context(), callerOf(r.Context()), r.PathValue("uuid"))
	return writeOctoBooking(w, r, b, err)
}

func (d *Door) handleOctoUpdate(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoUpdateRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := d.svc.OctoUpdate(r.Context(), callerOf(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func (d *Door) handleOctoConfirm(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoConfirmationRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := d.svc.OctoConfirm(r.Context(), callerOf(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func (d *Door) handleOctoExtend(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoExtendRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := d.svc.OctoExtend(r.Context(), callerOf(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func (d *Door) handleOctoCancel(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoCancellationRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := d.svc.OctoCancel(r.Context(), callerOf(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func writeOctoBooking(w http.ResponseWriter, r *http.Request, b *guide.OctoBooking, err error) error {
	if err != nil {
		return bookingError(err)
	}
	httpx.WriteJSON(w, http.StatusOK, newOctoBooking(b, requestOf(r.Context())))
	return nil
}
