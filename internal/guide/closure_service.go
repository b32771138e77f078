package guide

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// DeletionCheck tells whether the caller's account can be closed now.
// Errors: apperr.Unauthorized.
func (s *Service) DeletionCheck(ctx context.Context, c *Caller) (*DeletionCheck, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	return s.Closure.CheckDeletion(ctx, c.User.ID)
}

// AccountClosure is the answer to a request to close the account: closed
// (ClosedAt), or, asked with an API key, a pending action (Asked).
type AccountClosure struct {
	ClosedAt *time.Time
	Asked    *ActionAsk
}

// CloseAccount closes the caller's account, confirmation being the word
// "DELETE". An API key only asks: it gets a pending action that its owner
// confirms. Errors: apperr.Unauthorized, apperr.Validation,
// apperr.InvalidState (a booking still to happen; details.blockers).
func (s *Service) CloseAccount(ctx context.Context, c *Caller, confirmation *string) (*AccountClosure, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	if confirmation == nil || *confirmation != "DELETE" {
		return nil, apperr.Field("confirmation", `must be the word "DELETE"`)
	}
	check, err := s.Closure.CheckDeletion(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	if err := check.Check(); err != nil {
		return nil, err
	}
	if c.APIKey != nil {
		// High risk: a key only asks; its owner confirms. The payload
		// names the operation as the REST API offers it.
		payload := map[string]any{"method": "POST", "path": "/api/v1/profile/delete", "confirmation": "DELETE"}
		ask, err := s.askAction(ctx, c, ActionAccountDelete, c.User.ID, payload, "Closing the account with an API key needs confirmation.")
		if err != nil {
			return nil, err
		}
		return &AccountClosure{Asked: ask}, nil
	}
	at, err := s.Closure.CloseAccount(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	return &AccountClosure{ClosedAt: &at}, nil
}
