package guide

import (
	"context"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// ReportInput is a report as a door receives it.
type ReportInput struct {
	TargetType *string `json:"targetType"`
	TargetID   *string `json:"targetId"`
	Reason     *string `json:"reason"`
	Text       *string `json:"text"`
}

// Bounds of moderation texts, in characters.
const (
	maxReportText   = 2000
	maxActionReason = 1000
	maxTargetID     = 100
)

// CreateReport files the caller's report of a review, travelogue, package
// or expert the public can see: one open report per reporter and target.
// A person's user token only: no agent files reports. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key or MCP),
// apperr.Validation, apperr.NotFound (no such public target),
// apperr.Conflict (an open report on it already).
func (s *Service) CreateReport(ctx context.Context, c *Caller, in ReportInput) (*Report, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	if c.APIKey != nil || c.MCP {
		return nil, apperr.Errorf(apperr.Forbidden, "Reports are filed by people, signed in with a user token.")
	}
	errs := apperr.FieldErrors{}
	r := NewReport{ReporterID: c.User.ID}
	r.TargetType = requiredEnum(errs, "targetType", in.TargetType, TargetTypes)
	r.TargetID = field.CheckString(errs, "targetId", in.TargetID, true, 1, maxTargetID)
	r.Reason = requiredEnum(errs, "reason", in.Reason, ReportReasons)
	if text := field.CheckString(errs, "text", in.Text, false, 0, maxReportText); text != "" {
		r.Text = &text
	}
	if r.Reason == "other" && r.Text == nil {
		errs.Add("text", "is required when the reason is other")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Moderation.CreateReport(ctx, r)
}

// requiredEnum returns *v if it is one of allowed (exactly as spelled).
func requiredEnum(errs apperr.FieldErrors, name string, v *string, allowed []string) string {
	switch {
	case v == nil:
		errs.Add(name, "is required")
	case !slices.Contains(allowed, *v):
		errs.Add(name, "must be one of: "+strings.Join(allowed, ", "))
	default:
		return *v
	}
	return ""
}

// ReportSearch selects reports as a door receives it.
type ReportSearch struct {
	PageArgs
	Status string
}

// Reports returns reports for the admins: open ones by default, oldest
// first (order=desc for newest first). Errors: apperr.Unauthorized,
// apperr.Forbidden (not an admin), apperr.Validation.
func (s *Service) Reports(ctx context.Context, c *Caller, in ReportSearch) ([]AdminReport, paging.Meta, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, paging.Meta{}, err
	}
	errs := apperr.FieldErrors{}
	if in.Order == "" {
		in.Order = "asc"
	}
	f := ReportFilter{Page: in.check(errs),
		Status: field.Enum(errs, "status", in.Status, ReportOpen, []string{ReportOpen, ReportResolved, ReportDismissed})}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	reports, total, err := s.Moderation.FindReports(ctx, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return reports, paging.NewMeta(f.Page, total), nil
}

// ModerationInput is a moderation action as a door receives it.
type ModerationInput struct {
	Action     *string `json:"action"`
	TargetType *string `json:"targetType"`
	TargetID   *string `json:"targetId"`
	Reason     *string `json:"reason"`
}

// Moderate applies an admin's action: hide or restore a review,
// travelogue or package; suspend or reinstate an expert. A reason is
// required; the action is audited and resolves the target's open reports.
// Errors: apperr.Unauthorized, apperr.Forbidden (not an admin),
// apperr.Validation, apperr.NotFound, apperr.InvalidState (already so).
func (s *Service) Moderate(ctx context.Context, c *Caller, in ModerationInput) (*ModerationResult, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	m := Moderation{AdminID: c.User.ID}
	m.Action = requiredEnum(errs, "action", in.Action, []string{ActionHide, ActionRestore, ActionSuspend, ActionReinstate})
	m.TargetType = requiredEnum(errs, "targetType", in.TargetType, TargetTypes)
	m.TargetID = field.CheckString(errs, "targetId", in.TargetID, true, 1, maxTargetID)
	m.Reason = field.CheckString(errs, "reason", in.Reason, true, 1, maxActionReason)
	if m.Action != "" && m.TargetType != "" {
		expertAction := m.Action == ActionSuspend || m.Action == ActionReinstate
		if expertAction != (m.TargetType == TargetExpert) {
			errs.Add("action", "experts are suspended and reinstated; reviews, travelogues and packages are hidden and restored")
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Moderation.Moderate(ctx, m)
}

// DismissReport closes an open report without acting on its target, with
// the admin's reason, audited. Errors: apperr.Unauthorized,
// apperr.Forbidden (not an admin), apperr.Validation, apperr.NotFound,
// apperr.InvalidState (not open).
func (s *Service) DismissReport(ctx context.Context, c *Caller, id string, reason *string) (*AdminReport, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	why := field.CheckString(errs, "reason", reason, true, 1, maxActionReason)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Moderation.DismissReport(ctx, c.User.ID, id, why)
}
