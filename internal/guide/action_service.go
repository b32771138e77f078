package guide

import (
	"context"
)

// ActionAsk is a high-risk operation an API key asked for: nothing has
// happened yet; its owner (or, for ConfirmActor keys, the key) confirms
// the action.
type ActionAsk struct {
	Action *PendingAction
	// Created is false when the key had already asked for the same and
	// that action is still pending: it is the one returned, and the person
	// was not notified again.
	Created bool
	// Why the operation waits, for the person reading the answer.
	Why string
}

// askAction stores a pending action of the caller's key for action on
// target, payload saying what is to be done, or returns the one still
// open for the same ask. The store enqueues a new action's notification
// to the person's devices.
func (s *Service) askAction(ctx context.Context, c *Caller, action, target string, payload any, why string) (*ActionAsk, error) {
	a, created, err := s.Actions.CreateAction(ctx, c, action, target, payload, s.ActionTTL)
	if err != nil {
		return nil, err
	}
	return &ActionAsk{Action: a, Created: created, Why: why}, nil
}

// PendingAction returns a pending action the caller asked for: the key
// that asked, or its owner with a user token; with its result once
// confirmed. Errors: apperr.Unauthorized, apperr.NotFound (an id that is
// not a UUID, or an action of someone else).
func (s *Service) PendingAction(ctx context.Context, c *Caller, id string) (*PendingAction, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "pending action")
	if err != nil {
		return nil, err
	}
	return s.Actions.FindActionByID(ctx, c, id)
}

// ConfirmAction confirms a pending action and performs it under the rules
// in force now; the answer says what it did, or why the rules refused it.
// Errors: apperr.Unauthorized, apperr.NotFound, apperr.InvalidState (not
// pending any more), apperr.PersonConfirmation (an API key confirming an
// action only the person may).
func (s *Service) ConfirmAction(ctx context.Context, c *Caller, id string) (*ConfirmedAction, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "pending action")
	if err != nil {
		return nil, err
	}
	return s.Actions.ConfirmAction(ctx, c, id)
}

// OpenAction returns the action the caller's key asked for action on
// target that is still pending, of the kind of confirmation the caller
// asks for: an agent that asks again is given it back rather than asking
// anew. Errors: apperr.Unauthorized, apperr.NotFound (none open).
func (s *Service) OpenAction(ctx context.Context, c *Caller, action, target string) (*PendingAction, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	return s.Actions.FindPendingAction(ctx, c, action, target)
}
