package guidehttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
)

// The OCTO supplier door (docs/octo.md): the OCTO specification's paths
// under /octo, for API keys holding octo:sell, answering in OCTO's wire
// format and error body. Wire types are in octo_wire.go.

// octoCtx is what an OCTO request asked for besides its body: the
// capabilities in effect and the locale of the content.
type octoCtx struct {
	caps    []string
	locale  string
	content bool // octo/content is in effect
}

type octoCtxKey struct{}

func octoOf(ctx context.Context) *octoCtx {
	o, _ := ctx.Value(octoCtxKey{}).(*octoCtx)
	return o
}

func (s *Server) octoRoutes() {
	for _, rt := range []struct {
		method, path string
		h            httpx.HandlerFunc
	}{
		{"GET", "/supplier", s.handleOctoSupplier},
		{"GET", "/capabilities", s.handleOctoCapabilities},
		{"GET", "/products", s.handleOctoProducts},
		{"GET", "/products/{id}", s.handleOctoProduct},
		{"POST", "/availability/calendar", s.handleOctoCalendar},
		{"POST", "/availability", s.handleOctoAvailability},
		{"POST", "/bookings", s.handleOctoReserve},
		{"GET", "/bookings", s.handleOctoBookings},
		{"GET", "/bookings/{uuid}", s.handleOctoBooking},
		{"PATCH", "/bookings/{uuid}", s.handleOctoUpdate},
		{"POST", "/bookings/{uuid}/confirm", s.handleOctoConfirm},
		{"POST", "/bookings/{uuid}/extend", s.handleOctoExtend},
		{"POST", "/bookings/{uuid}/cancel", s.handleOctoCancel},
	} {
		// Resellers write the paths with and without a trailing slash.
		s.router.Handle(rt.method+" /octo"+rt.path, s.octoHandler(rt.h))
		s.router.Handle(rt.method+" /octo"+rt.path+"/{$}", s.octoHandler(rt.h))
	}
	// An unknown path or a wrong method under /octo is answered as the
	// endpoint answers, in OCTO's body, for the same keys.
	s.router.HandleTree("/octo/", func(h httpx.HandlerFunc) httpx.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			s.octoHandler(h).ServeHTTP(w, r)
			return nil
		}
	})
}

// octoHandler is an OCTO handler: authenticated by an API key with
// octo:sell, metered like every key request, with the capabilities and
// locale of the request in its context, and its errors in OCTO's body.
func (s *Server) octoHandler(h httpx.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caps := guide.OctoCapabilitiesOf(r.Header.Get("Octo-Capabilities"))
		oc := &octoCtx{caps: caps, locale: guide.OctoLocale(r.Header.Get("Accept-Language")), content: slices.Contains(caps, "octo/content")}
		w.Header().Set("Octo-Capabilities", strings.Join(caps, ", "))
		if oc.content {
			w.Header().Set("Content-Language", oc.locale)
			w.Header().Set("Available-Languages", strings.Join(guide.Locales, ", "))
		}
		r = r.WithContext(context.WithValue(r.Context(), octoCtxKey{}, oc))
		err := func() error {
			c, err := s.authenticate(w, r, keyOr(guide.ScopeOctoSell))
			if err != nil {
				return err
			}
			r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
			if c.APIKey == nil {
				return h(w, r) // the service refuses it
			}
			s.cfg.KeyUsage.Record(c.APIKey.ID, s.cfg.Clock.Now())
			return httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, func(*http.Request) (string, ratelimit.Limit) {
				return "guide:key:" + c.APIKey.ID, ratelimit.PerMinute(c.APIKey.RateLimit)
			}, h)(w, r)
		}()
		if err != nil {
			writeOctoError(w, r, err)
		}
	})
}

// octoError is OCTO's error body: the code, a message, and the id at
// fault (productId, optionId, unitId, availabilityId or uuid) when there
// is one.
type octoError map[string]any

// writeOctoError answers err in OCTO's error body. OCTO answers every
// error of the request 400 (UNAUTHORIZED and FORBIDDEN too, as its
// document and validator do); a spent rate limit is 429 with
// Retry-After, an internal error 500 (logged) and an outage 503. Only the
// router answers an unknown path (404) or a wrong method (405, with
// Allow), as BAD_REQUEST: the service names an unknown id with OCTO's
// codes, never apperr.NotFound.
func writeOctoError(w http.ResponseWriter, r *http.Request, err error) {
	status, code := http.StatusBadRequest, guide.OctoBadRequest
	var e *apperr.Error
	switch {
	case errors.As(err, &e):
	case apperr.Outage(err):
		slog.WarnContext(r.Context(), "request failed: a dependency is unavailable", "err", err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Code: apperr.Unavailable, Message: "The service is briefly unavailable; retry shortly.", RetryAfter: 1}
	default:
		slog.ErrorContext(r.Context(), "request failed", "err", err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Code: apperr.Internal, Message: "There was an un-recoverable error, please try again."}
	}
	body := octoError{}
	msg := e.Message
	switch e.Code {
	case guide.OctoInvalidProductID, guide.OctoInvalidOptionID, guide.OctoInvalidUnitID, guide.OctoInvalidAvailabilityID,
		guide.OctoInvalidBookingUUID, guide.OctoUnprocessable, guide.OctoBadRequest:
		code = e.Code
		for k, v := range e.Details {
			body[k] = v
		}
	case apperr.Unauthorized:
		code = "UNAUTHORIZED"
	case apperr.Forbidden, apperr.Scope:
		code = "FORBIDDEN"
	case apperr.InvalidState, apperr.Conflict:
		code = guide.OctoUnprocessable
	case apperr.Validation:
		var parts []string
		for f, m := range e.Details {
			parts = append(parts, f+" "+toString(m))
		}
		slices.Sort(parts)
		msg = strings.Join(parts, "; ")
	case apperr.NotFound:
		status = http.StatusNotFound
	case apperr.MethodNotAllowed:
		status = http.StatusMethodNotAllowed
	case apperr.RateLimited:
		status = http.StatusTooManyRequests
	case apperr.Unavailable:
		status, code = http.StatusServiceUnavailable, "INTERNAL_SERVER_ERROR"
	case apperr.Internal:
		status, code = http.StatusInternalServerError, "INTERNAL_SERVER_ERROR"
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	body["error"], body["errorMessage"] = code, msg
	w.Header().Del("Content-Language")
	w.Header().Del("Available-Languages")
	httpx.WriteJSON(w, status, body)
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *Server) handleOctoSupplier(w http.ResponseWriter, r *http.Request) error {
	sup, err := s.svc.OctoSupplier(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	out := octoSupplier{ID: sup.ID, Name: sup.Name, Endpoint: sup.Endpoint,
		Contact: octoSupplierContact{Website: &sup.Website}}
	if octoOf(r.Context()).content {
		out.octoSupplierContent = &octoSupplierContent{ShortDescription: &sup.ShortDescription, Media: []octoMedia{}}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleOctoCapabilities(w http.ResponseWriter, r *http.Request) error {
	caps, err := s.svc.OctoCapabilityList(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	out := []octoCapability{}
	for _, c := range caps {
		out = append(out, octoCapability{ID: c, Revision: 1, Required: false, Dependencies: []string{}, Docs: nil})
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleOctoProducts(w http.ResponseWriter, r *http.Request) error {
	oc := octoOf(r.Context())
	ps, err := s.svc.OctoProducts(r.Context(), caller(r.Context()), oc.locale)
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

func (s *Server) handleOctoProduct(w http.ResponseWriter, r *http.Request) error {
	oc := octoOf(r.Context())
	p, err := s.svc.OctoProduct(r.Context(), caller(r.Context()), r.PathValue("id"), oc.locale)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, newOctoProduct(r.Context(), p, oc))
	return nil
}

func (s *Server) handleOctoCalendar(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoAvailabilityRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	days, err := s.svc.OctoCalendar(r.Context(), caller(r.Context()), in)
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

func (s *Server) handleOctoAvailability(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoAvailabilityRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	starts, _, err := s.svc.OctoAvailability(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	out := make([]octoAvailability, len(starts))
	for i := range starts {
		out[i] = newOctoAvailability(&starts[i], octoOf(r.Context()))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleOctoReserve(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoReservationRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.OctoReserve(r.Context(), caller(r.Context()), in, r.Header.Get("Idempotency-Key"))
	return writeOctoBooking(w, r, b, err)
}

func (s *Server) handleOctoBookings(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	bs, err := s.svc.OctoBookings(r.Context(), caller(r.Context()), q.Get("resellerReference"), q.Get("supplierReference"))
	if err != nil {
		return err
	}
	out := make([]octoBooking, len(bs))
	for i := range bs {
		out[i] = newOctoBooking(&bs[i], octoOf(r.Context()))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleOctoBooking(w http.ResponseWriter, r *http.Request) error {
	b, err := s.svc.OctoBooking(r.Context(), caller(r.Context()), r.PathValue("uuid"))
	return writeOctoBooking(w, r, b, err)
}

func (s *Server) handleOctoUpdate(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoUpdateRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.OctoUpdate(r.Context(), caller(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func (s *Server) handleOctoConfirm(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoConfirmationRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.OctoConfirm(r.Context(), caller(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func (s *Server) handleOctoExtend(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoExtendRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.OctoExtend(r.Context(), caller(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func (s *Server) handleOctoCancel(w http.ResponseWriter, r *http.Request) error {
	var in guide.OctoCancellationRequest
	if err := httpx.DecodeOpen(w, r, &in); err != nil {
		return err
	}
	b, err := s.svc.OctoCancel(r.Context(), caller(r.Context()), r.PathValue("uuid"), in)
	return writeOctoBooking(w, r, b, err)
}

func writeOctoBooking(w http.ResponseWriter, r *http.Request, b *guide.OctoBooking, err error) error {
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, newOctoBooking(b, octoOf(r.Context())))
	return nil
}
