package guidedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.ActionStore = (*Guide)(nil)

// CreateAction stores a pending action of the caller's API key and, in
// the same transaction, its action.pending event and a guide.JobPushAction per
// device of the person, who alone is to confirm it. The unique index
// pending_actions_open keeps one open action per key, operation, target
// and kind of confirmation: an ask whose insert it refuses returns the
// open action instead, without notifying anyone again. Being a
// constraint, it holds for concurrent asks too, where a read before the
// insert would let both insert. An expired action gives up its place
// first (superseded), so that a new ask can be made.
func (g *Guide) CreateAction(ctx context.Context, c *guide.Caller, action, targetID string, payload any, ttl time.Duration) (_ *guide.PendingAction, created bool, err error) {
	defer store.Wrap(&err, "create %s action", action)
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, false, err
	}
	var a *guide.PendingAction
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		now := g.clock.Now()
		a = &guide.PendingAction{ID: store.NewID(), Action: action, Status: guide.ActionPending, ExpiresAt: now.Add(ttl), CreatedAt: now,
			UserID: c.User.ID, TargetID: targetID, Payload: body, PersonOnly: c.PersonConfirms()}
		if c.APIKey != nil {
			id := c.APIKey.ID
			a.APIKeyID = &id
		}
		if _, err := tx.ExecContext(ctx, `UPDATE pending_actions SET superseded = TRUE
			WHERE api_key_id = $1 AND action = $2 AND target_id = $3 AND person_only = $4
			AND status = 'pending' AND NOT superseded AND expires_at <= $5`,
			a.APIKeyID, action, targetID, a.PersonOnly, now); err != nil {
			return err
		}
		// Twice at most: the open action an insert runs into may be
		// confirmed by another transaction before it is read here, which
		// gives up its place to this one.
		for try := 0; ; try++ {
			res, err := tx.ExecContext(ctx, `INSERT INTO pending_actions (id, user_id, api_key_id, action, target_id, payload, status, expires_at, created_at, person_only)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
				a.ID, a.UserID, a.APIKeyID, a.Action, nullIfEmpty(targetID), string(body), a.Status, a.ExpiresAt, now, a.PersonOnly)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if created = n == 1; created {
				break
			}
			w := &store.Where{}
			openCondition(w, c, action, targetID, now)
			open, err := g.queryAction(ctx, tx, w, "")
			if err == nil {
				a = open
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) || try == 1 {
				return err
			}
		}
		if _, err := g.events.Record(ctx, tx, guide.EventActionPending, []string{guide.Audience(a.UserID)}, a); err != nil {
			return err
		}
		_, err = g.enqueuePerDevice(ctx, tx, a.UserID, guide.JobPushAction, "actionId", a.ID, now)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return a, created, nil
}

// actorCondition limits a query on pending_actions to those the caller
// may see: the key that asked for the action, or its owner with a user
// token. Anything else is reported as not found.
func actorCondition(w *store.Where, c *guide.Caller) {
	w.And("user_id = " + w.Arg(c.User.ID))
	if c.APIKey != nil {
		w.And("api_key_id = " + w.Arg(c.APIKey.ID))
	}
}

// FindActionByID returns an action of the original actor.
func (g *Guide) FindActionByID(ctx context.Context, c *guide.Caller, id string) (_ *guide.PendingAction, err error) {
	defer store.Wrap(&err, "find action %s", id)
	return g.findAction(ctx, g.db, c, id)
}

// openCondition limits a query on pending_actions to the open action
// (the one pending_actions_open admits) of the caller's key for action
// and targetID, of the kind of confirmation the caller asks for, unexpired
// at now.
func openCondition(w *store.Where, c *guide.Caller, action, targetID string, now time.Time) {
	actorCondition(w, c)
	w.And("action = " + w.Arg(action))
	w.And("target_id = " + w.Arg(targetID))
	w.And("person_only = " + w.Arg(c.PersonConfirms()))
	w.And("status = 'pending' AND NOT superseded")
	w.And("expires_at > " + w.Arg(now))
}

// FindPendingAction returns the open, unexpired action of the caller's
// key for action and targetID, of the kind of confirmation the caller
// asks for: never one the caller's kind of ask would not have made.
func (g *Guide) FindPendingAction(ctx context.Context, c *guide.Caller, action, targetID string) (_ *guide.PendingAction, err error) {
	defer store.Wrap(&err, "find pending %s action", action)
	w := &store.Where{}
	openCondition(w, c, action, targetID, g.clock.Now())
	a, err := g.queryAction(ctx, g.db, w, "")
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No pending %s action for %q.", action, targetID)
	}
	return a, err
}

func (g *Guide) findAction(ctx context.Context, q store.Querier, c *guide.Caller, id string) (*guide.PendingAction, error) {
	w := &store.Where{}
	w.And("id = " + w.Arg(id))
	actorCondition(w, c)
	a, err := g.queryAction(ctx, q, w, "")
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No pending action with id %q.", id)
	}
	return a, err
}

// queryAction reads the first pending action that w and then selects;
// sql.ErrNoRows when there is none.
func (g *Guide) queryAction(ctx context.Context, q store.Querier, w *store.Where, then string) (*guide.PendingAction, error) {
	var a guide.PendingAction
	var apiKey, target sql.NullString
	var confirmed sql.NullTime
	var payload, result []byte
	var superseded bool
	err := q.QueryRowContext(ctx, `SELECT id, action, status, expires_at, confirmed_at, created_at,
		user_id, api_key_id, target_id, payload, result, person_only, superseded FROM pending_actions`+w.String()+then, w.Args...).Scan(
		&a.ID, &a.Action, &a.Status, &a.ExpiresAt, &confirmed, &a.CreatedAt, &a.UserID, &apiKey, &target, &payload, &result, &a.PersonOnly, &superseded)
	if err != nil {
		return nil, err
	}
	a.ExpiresAt, a.CreatedAt, a.ConfirmedAt = a.ExpiresAt.UTC(), a.CreatedAt.UTC(), store.NullTime(confirmed)
	a.TargetID = target.String
	if apiKey.Valid {
		a.APIKeyID = &apiKey.String
	}
	a.Payload, a.Result = store.RawJSON(payload, "{}"), store.RawJSON(result, "null")
	// A superseded action expired before a new ask took its place (or,
	// asked before pending_actions_open, was repeated by a newer one).
	if a.Status == guide.ActionPending && (superseded || !g.clock.Now().Before(a.ExpiresAt)) {
		a.Status = guide.ActionExpired
	}
	return &a, nil
}

// actionFailure is the result of a confirmed action whose operation failed.
type actionFailure struct {
	OK    bool `json:"ok"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// ConfirmAction confirms a pending action and performs it, in one
// transaction: the conditional update lets one of two racing confirmations
// win; the operation's own failure is recorded as the result and the
// action stays confirmed. A PersonOnly action is refused to every API key
// (apperr.PersonConfirmation): the person confirms it with their user
// token or web session. Every condition sits on the updated row itself:
// PostgreSQL re-checks those against the row a concurrent confirmation
// committed, but would not re-run a subquery.
func (g *Guide) ConfirmAction(ctx context.Context, c *guide.Caller, id string) (_ *guide.ConfirmedAction, err error) {
	defer store.Wrap(&err, "confirm action %s", id)
	var out *guide.ConfirmedAction
	err = g.db.InTx(ctx, func(tx *sql.Tx) error {
		now := g.clock.Now()
		w := &store.Where{}
		at := w.Arg(now)
		w.And("id = " + w.Arg(id))
		w.And("status = 'pending' AND NOT superseded")
		w.And("expires_at > " + at)
		actorCondition(w, c)
		if c.APIKey != nil {
			w.And("NOT person_only")
		}
		// #nosec G202 -- only $N placeholders are concatenated; values are bound.
		res, err := tx.ExecContext(ctx, `UPDATE pending_actions SET status = 'confirmed', confirmed_at = `+at+w.String(), w.Args...)
		if err != nil {
			return err
		}
		a, err := g.findAction(ctx, tx, c, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// The update's conditions are the rule's, at the same now: it
			// says which one refused.
			return a.CheckConfirm(c, now)
		}
		result, err := g.perform(ctx, tx, c.User, a)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE pending_actions SET result = $1 WHERE id = $2`, string(result), id); err != nil {
			return err
		}
		out = &guide.ConfirmedAction{ActionID: a.ID, Action: a.Action, Status: guide.ActionConfirmed, Payload: a.Payload, Result: result}
		ev := struct {
			*guide.ConfirmedAction
			PreviousStatus string `json:"previousStatus"`
		}{out, guide.ActionPending}
		if _, err := g.events.Record(ctx, tx, guide.EventActionConfirmed, []string{guide.Audience(a.UserID)}, ev); err != nil {
			return err
		}
		return idempotency.RecordResult(ctx, tx, out)
	})
	return out, err
}

// perform runs a confirmed action's operation under today's rules. A rule
// that refuses it becomes a failure result; only unexpected errors abort.
func (g *Guide) perform(ctx context.Context, tx *sql.Tx, user *guide.User, a *guide.PendingAction) (json.RawMessage, error) {
	var result any
	var opErr error
	switch a.Action {
	case guide.ActionBookingCancel:
		if _, opErr = g.transition(ctx, tx, user, a.TargetID, guide.Cancel); opErr == nil {
			var b guide.CancelledBooking
			opErr = tx.QueryRowContext(ctx, `SELECT id, status, cancelled_at FROM bookings WHERE id = $1`, a.TargetID).Scan(&b.ID, &b.Status, &b.CancelledAt)
			b.CancelledAt = b.CancelledAt.UTC()
			result = b // the spec: the cancelled booking itself, unwrapped
		}
	case guide.ActionAccountDelete:
		var at time.Time
		if at, opErr = g.closeAccount(ctx, tx, user.ID); opErr == nil {
			result = map[string]any{"ok": true, "deleted": true, "deletedAt": at}
		}
	default:
		opErr = apperr.Errorf(apperr.InvalidState, "Unknown action %q.", a.Action)
	}
	var ae *apperr.Error
	if errors.As(opErr, &ae) {
		f := actionFailure{}
		f.Error.Code, f.Error.Message = ae.Code, ae.Message
		result = f
	} else if opErr != nil {
		return nil, opErr
	}
	return json.Marshal(result)
}
