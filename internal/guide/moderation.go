package guide

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// What a report or a moderation action is about. A target is named by
// the identifier the public API shows for it: a review's or a package's
// id, a travelogue's slug, an expert's handle.
const (
	TargetReview     = "review"
	TargetTravelogue = "travelogue"
	TargetPackage    = "package"
	TargetExpert     = "expert"
)

// TargetTypes are the kinds of things that can be reported and moderated.
var TargetTypes = []string{TargetReview, TargetTravelogue, TargetPackage, TargetExpert}

// ReportReasons are the reasons a report may give; "other" needs a text.
var ReportReasons = []string{"spam", "inappropriate", "fraud", "misleading", "harassment", "other"}

// Report statuses: open until an admin acts on its target (resolved) or
// dismisses it.
const (
	ReportOpen      = "open"
	ReportResolved  = "resolved"
	ReportDismissed = "dismissed"
)

// Moderation actions: hide and restore a review, travelogue or package;
// suspend and reinstate an expert.
const (
	ActionHide      = "hide"
	ActionRestore   = "restore"
	ActionSuspend   = "suspend"
	ActionReinstate = "reinstate"
)

// Report is a signed-in user's report of something they saw, as its
// reporter sees it.
type Report struct {
	ID         string    `json:"id"`
	TargetType string    `json:"targetType"`
	TargetID   string    `json:"targetId"`
	Reason     string    `json:"reason"`
	Text       *string   `json:"text"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"createdAt"`
}

// CheckDismiss tells whether an admin may dismiss the report: an open one.
// Errors: apperr.InvalidState.
func (r *Report) CheckDismiss() error {
	if r.Status != ReportOpen {
		return apperr.Errorf(apperr.InvalidState, "This report is %s; only an open one can be dismissed.", r.Status)
	}
	return nil
}

// NewReport is a report to file, checked.
type NewReport struct {
	ReporterID string
	TargetType string
	TargetID   string
	Reason     string
	Text       *string
}

// AdminReport is a report as the admins see it: who filed it, what its
// target is now, and how it was closed.
type AdminReport struct {
	Report
	Reporter   AuditActor        `json:"reporter"`
	Target     ReportTarget      `json:"target"`
	Resolution *ReportResolution `json:"resolution"`
}

// ReportTarget summarises a report's target for the admin deciding on it.
type ReportTarget struct {
	// Label is the package's or travelogue's title, the expert's name, or
	// the review's comment; nil when there is none.
	Label *string `json:"label"`
	// OwnerHandle is the handle of the expert the target belongs to (the
	// reviewed expert for a review), or of the travelogue's author.
	OwnerHandle *string `json:"ownerHandle"`
	// Moderated tells whether the target is hidden (or the expert
	// suspended) now.
	Moderated bool `json:"moderated"`
	// OpenReports counts the open reports on the target, this one included.
	OpenReports int `json:"openReports"`
}

// ReportResolution is how a report was closed.
type ReportResolution struct {
	By     AuditActor `json:"by"`
	Action string     `json:"action"` // the moderation action, or "dismiss"
	At     time.Time  `json:"at"`
}

// ReportFilter selects reports: those of one status, oldest first unless
// the page says desc.
type ReportFilter struct {
	Page   paging.Page
	Status string
}

// Moderation is a checked moderation action by an admin.
type Moderation struct {
	AdminID    string
	Action     string
	TargetType string
	TargetID   string
	Reason     string
}

// Hides reports whether m hides (or suspends) its target, rather than
// restoring (or reinstating) it.
func (m Moderation) Hides() bool { return m.Action == ActionHide || m.Action == ActionSuspend }

// Check tells whether m may act on its target, moderated (hidden, or
// suspended) now or not: only to change it. Errors: apperr.InvalidState.
func (m Moderation) Check(moderated bool) error {
	if m.Hides() != moderated {
		return nil
	}
	state := "visible"
	switch {
	case m.TargetType == TargetExpert && moderated:
		state = "suspended"
	case m.TargetType == TargetExpert:
		state = "active"
	case moderated:
		state = "hidden"
	}
	return apperr.Errorf(apperr.InvalidState, "This %s is already %s.", m.TargetType, state)
}

// ModerationResult is what a moderation action did.
type ModerationResult struct {
	Action     string `json:"action"`
	TargetType string `json:"targetType"`
	TargetID   string `json:"targetId"`
	// Moderated tells whether the target is now hidden (suspended).
	Moderated bool `json:"moderated"`
	// ResolvedReports counts the open reports on the target the action
	// resolved.
	ResolvedReports int `json:"resolvedReports"`
	// CancelledBookings counts the future bookings a suspension cancelled.
	CancelledBookings int `json:"cancelledBookings"`
	// Expert is the reviewed expert's rating and count after a review is
	// hidden or restored; nil for other targets.
	Expert *ReviewedExpert `json:"expert"`
	At     time.Time       `json:"at"`
}

// ReviewedExpert is an expert's rating as recomputed from its visible
// reviews.
type ReviewedExpert struct {
	Handle      string  `json:"handle"`
	Rating      float64 `json:"rating"`
	ReviewCount int     `json:"reviewCount"`
}

// ModerationStore keeps reports and applies moderation actions.
type ModerationStore interface {
	// CreateReport files r on a target the public can see. Errors:
	// apperr.NotFound (no such public target), apperr.Conflict (the
	// reporter has an open report on it).
	CreateReport(ctx context.Context, r NewReport) (*Report, error)
	// FindReports returns a page of reports and the number f selects.
	FindReports(ctx context.Context, f ReportFilter) ([]AdminReport, int, error)
	// Moderate applies m, resolves the target's open reports and writes
	// the audit entry, in one transaction. Errors: apperr.NotFound (no
	// such target), apperr.InvalidState (already in the state asked).
	Moderate(ctx context.Context, m Moderation) (*ModerationResult, error)
	// DismissReport closes an open report without acting on its target,
	// audited. Errors: apperr.NotFound, apperr.InvalidState (not open).
	DismissReport(ctx context.Context, adminID, id, reason string) (*AdminReport, error)
}
