package guidehttp

import (
	"net/http"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
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
	s.authed("GET /api/v1/admin/reports", userOrSession, s.handleReportList)
	s.authed("POST /api/v1/admin/reports/{id}/dismiss", userOrSession, s.handleReportDismiss)
	s.authed("POST /api/v1/admin/moderation", userOrSession, s.handleModerate)
	// Reports come from people (user tokens), bounded per user before the
	// body is read.
	s.authed("POST /api/v1/reports", userOnly, httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.reportKey, s.handleReportCreate))
}

func (s *Server) reportKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:report:" + caller(r.Context()).User.ID, s.cfg.ReportLimit
}

func (s *Server) handleReportCreate(w http.ResponseWriter, r *http.Request) error {
	var in guide.ReportInput
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	rep, err := s.svc.CreateReport(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, item{rep})
	return nil
}

func (s *Server) handleReportList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	reports, meta, err := s.svc.Reports(r.Context(), caller(r.Context()), guide.ReportSearch{PageArgs: page, Status: q.Get("status")})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[guide.AdminReport]{reports, meta})
	return nil
}

func (s *Server) handleReportDismiss(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "report")
	if err != nil {
		return err
	}
	var in struct {
		Reason *string `json:"reason"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	rep, err := s.svc.DismissReport(r.Context(), caller(r.Context()), id, in.Reason)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{rep})
	return nil
}

func (s *Server) handleModerate(w http.ResponseWriter, r *http.Request) error {
	var in guide.ModerationInput
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	res, err := s.svc.Moderate(r.Context(), caller(r.Context()), in)
	if err != nil {
		return err
	}
	// What was hidden or restored shows in the catalogue at once.
	s.catalogChanged()
	httpx.WriteJSON(w, http.StatusOK, item{res})
	return nil
}

func (s *Server) handleAuditLog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := pageArgs(q)
	if err != nil {
		return err
	}
	entries, meta, err := s.svc.AuditLog(r.Context(), caller(r.Context()), guide.AuditSearch{PageArgs: page,
		TargetType: q.Get("targetType"), TargetID: q.Get("targetId")})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, list[guide.AuditEntry]{entries, meta})
	return nil
}
