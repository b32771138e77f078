package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// adminRoutes registers the admins' routes. They take user tokens only
// (and the web session of the admin console); the service then checks
// that the caller is an admin.
func (s *Server) adminRoutes() {
	s.authed("GET /api/v1/admin/audit", userOrSession, s.handleAuditLog)
	// Expert applications (application.go).
	s.authed("GET /api/v1/admin/expert-applications", userOrSession, s.handleApplicationQueue)
	s.authed("GET /api/v1/admin/expert-applications/{id}", userOrSession, s.handleApplicationGet)
	s.authed("POST /api/v1/admin/expert-applications/{id}/{decision}", userOrSession, s.handleApplicationDecision)
	s.authed("GET /api/v1/admin/expert-applications/{id}/documents/{docId}", userOrSession, s.handleApplicationDocumentGet)
}

func (s *Server) handleAuditLog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	entries, meta, err := s.svc.AuditLog(r.Context(), caller(r.Context()), guide.AuditSearch{PageArgs: pageArgs(q),
		TargetType: q.Get("targetType"), TargetID: q.Get("targetId")})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[guide.AuditEntry]{entries, meta})
	return nil
}
