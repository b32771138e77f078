package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
)

// ScopeEventsRead lets an API key read the change feed.
const ScopeEventsRead = "events:read"

// eventRoutes registers the change feed and the webhook endpoints.
func (s *Server) eventRoutes() {
	feed := &changes.FeedAPI{Feed: s.cfg.Events, Types: guide.EventTypes, Audience: func(r *http.Request) []string {
		return []string{guide.Audience(caller(r.Context()).User.ID)}
	}, Withheld: func(r *http.Request) []string {
		if caller(r.Context()).APIKey != nil {
			return guide.KeyWithheldEventTypes
		}
		return nil
	}}
	s.authed("GET /api/v1/events", keyOr(ScopeEventsRead), feed.Handle)

	hooks := &changes.EndpointAPI{
		Store:  s.cfg.Webhooks,
		Policy: s.cfg.WebhookPolicy,
		Types:  guide.EventTypes,
		Owner:  func(r *http.Request) string { return guide.Audience(caller(r.Context()).User.ID) },
		Audience: func(r *http.Request, _ string) string {
			return guide.Audience(caller(r.Context()).User.ID)
		},
		Item: func(v any) any { return item{v} },
	}
	s.authed("POST /api/v1/webhooks", userOnly, hooks.HandleCreate)
	s.authed("GET /api/v1/webhooks", userOnly, hooks.HandleList)
	s.authed("GET /api/v1/webhooks/{id}", userOnly, hooks.HandleGet)
	s.authed("PATCH /api/v1/webhooks/{id}", userOnly, hooks.HandleUpdate)
	s.authed("DELETE /api/v1/webhooks/{id}", userOnly, hooks.HandleDelete)
	s.authed("POST /api/v1/webhooks/{id}/rotate-secret", userOnly, hooks.HandleRotate)
	s.authed("POST /api/v1/webhooks/{id}/test", userOnly, hooks.HandleTest)
	s.authed("GET /api/v1/webhooks/{id}/deliveries", userOnly, hooks.HandleDeliveries)
	s.authed("POST /api/v1/webhooks/deliveries/{id}/redeliver", userOnly, hooks.HandleRedeliver)
}
