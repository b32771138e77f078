package guide

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// AuditEntry is one thing an admin did: a decision on an expert
// application or a moderation action, with who, when and why. Entries are
// never changed; undoing an action is an entry of its own.
type AuditEntry struct {
	ID         string     `json:"id"`
	Actor      AuditActor `json:"actor"`
	Action     string     `json:"action"`
	TargetType string     `json:"targetType"`
	TargetID   string     `json:"targetId"`
	Reason     *string    `json:"reason"`
	CreatedAt  time.Time  `json:"createdAt"`
}

// AuditActor is the admin an audit entry names.
type AuditActor struct {
	ID   string  `json:"id"`
	Name *string `json:"name"`
}

// AuditFilter selects audit entries: all of them, newest first, or those
// of one target.
type AuditFilter struct {
	Page       paging.Page
	TargetType string // with TargetID: one target's entries
	TargetID   string
}

// AdminStore keeps the audit log.
type AdminStore interface {
	// FindAuditEntries returns a page of entries, newest first, and the
	// number of entries f selects.
	FindAuditEntries(ctx context.Context, f AuditFilter) ([]AuditEntry, int, error)
}
