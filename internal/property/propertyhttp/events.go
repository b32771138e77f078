package propertyhttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/property"
)

// eventRoutes registers the change feed (API keys) and the webhook
// endpoints (the portal).
func (s *Server) eventRoutes() {
	feed := &changes.FeedAPI{Feed: s.cfg.Events, Types: property.EventTypes, Audience: func(r *http.Request) []string {
		c := caller(r.Context())
		return []string{property.Audience(c.DeveloperID, c.Mode == property.ModeTest)}
	}}
	s.open("GET /api/v1/events", property.ScopeEventsRead, feed.Handle)

	hooks := &changes.EndpointAPI{
		Store:  s.cfg.Webhooks,
		Policy: s.cfg.WebhookPolicy,
		Types:  property.EventTypes,
		Modes:  []string{property.ModeLive, property.ModeTest},
		Owner:  func(r *http.Request) string { return "developer:" + developer(r.Context()).ID },
		Audience: func(r *http.Request, mode string) string {
			return property.Audience(developer(r.Context()).ID, mode == property.ModeTest)
		},
		Item: func(v any) any { return v },
	}
	s.portal("POST /portal/api/webhooks", hooks.HandleCreate)
	s.portal("GET /portal/api/webhooks", hooks.HandleList)
	s.portal("GET /portal/api/webhooks/{id}", hooks.HandleGet)
	s.portal("PATCH /portal/api/webhooks/{id}", hooks.HandleUpdate)
	s.portal("DELETE /portal/api/webhooks/{id}", hooks.HandleDelete)
	s.portal("POST /portal/api/webhooks/{id}/rotate-secret", hooks.HandleRotate)
	s.portal("POST /portal/api/webhooks/{id}/test", hooks.HandleTest)
	s.portal("GET /portal/api/webhooks/{id}/deliveries", hooks.HandleDeliveries)
	s.portal("POST /portal/api/webhooks/deliveries/{id}/redeliver", hooks.HandleRedeliver)
}
