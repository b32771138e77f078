package guide

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// DeletionBlocker is a reason an account cannot be closed yet.
type DeletionBlocker struct {
	Type    string `json:"type"` // active_bookings
	Count   int    `json:"count"`
	Message string `json:"message"`
}

// DeletionCheck says whether an account can be closed now.
type DeletionCheck struct {
	CanDelete bool              `json:"canDelete"`
	Blockers  []DeletionBlocker `json:"blockers"`
}

// Check tells whether the account can be closed now, naming the first
// blocker and listing all in details.blockers. Errors: apperr.InvalidState.
func (c *DeletionCheck) Check() error {
	if c.CanDelete {
		return nil
	}
	e := apperr.Errorf(apperr.InvalidState, "The account cannot be closed: %s", c.Blockers[0].Message)
	e.Details = map[string]any{"blockers": c.Blockers}
	return e
}

// ClosureStore closes accounts.
type ClosureStore interface {
	// CheckDeletion lists what keeps the account from being closed:
	// bookings still to happen, as traveller or as expert.
	CheckDeletion(ctx context.Context, userID string) (*DeletionCheck, error)
	// CloseAccount anonymises the account in one transaction and removes
	// every way back into it. Errors: apperr.InvalidState when blocked.
	CloseAccount(ctx context.Context, userID string) (time.Time, error)
}
