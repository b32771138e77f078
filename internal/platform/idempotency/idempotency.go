// Package idempotency holds the Idempotency-Key contract both APIs share:
// the contract (Do), its records in each product's database (Keys) and its
// HTTP middleware (HTTP).
//
// A request sent with a key claims it (Store.Begin). The operation that
// has an effect records its answer in the same transaction as the effect
// (the product's store calls RecordResult, which reads the Claim from the
// context and calls Claim.Render), so
// whatever fails afterwards, a retry either replays the committed answer
// or finds no effect and runs the operation for the first time. A claim
// is a lease that its request renews while it runs (Store.Hold); one whose
// server died stops being renewed and is taken over by a retry after the
// lock TTL, with a new token, so that the first request's commit, should
// it still come, holds the old one and rolls back.
package idempotency

import (
	"context"
	"errors"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// TTL is how long a key is remembered.
const TTL = 24 * time.Hour

// DefaultLockTTL is how long a claim lasts unless its request renews it:
// the longest a retry waits on a request whose server died mid-request
// before it may run the request again (IDEMPOTENCY_LOCK_TTL). A request
// still running renews its claim three times per TTL, however long it
// takes.
const DefaultLockTTL = 6 * time.Second

// Response is the answer recorded for a key.
type Response struct {
	Status int
	Body   []byte
}

// Store remembers the requests sent with a key, per account.
type Store interface {
	// Begin claims the key of the account for a request whose fingerprint
	// is hash. It returns the claim's token when the caller is to run the
	// request (and then record its answer, or call Finish or Abandon), or
	// the response recorded for the same request. Errors:
	// apperr.IdempotencyKeyReused (the key was used for another request),
	// apperr.IdempotencyInProgress (the first request still runs).
	Begin(ctx context.Context, account, key, hash string) (token string, stored *Response, err error)
	// Finish records the answer of a request that had no effect to commit
	// with it (a refusal). A claim whose answer was already committed, or
	// that a retry took over, is left as it is.
	Finish(ctx context.Context, c *Claim, status int, body []byte) error
	// Abandon forgets a claim still in progress, so that the request may be
	// sent again (after a server error); a committed answer stays.
	Abandon(ctx context.Context, c *Claim) error
	// Hold keeps the claim alive while its request runs, until release is
	// called.
	Hold(ctx context.Context, c *Claim) (release func())
}

// Claim is a running request's hold on its key.
type Claim struct {
	Account, Key, Token string
	// Status is the status of the success the operation records.
	Status int
	// Render turns the operation's result into the recorded body.
	Render func(result any) ([]byte, error)
}

type claimKey struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c *Claim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

// FromContext returns the claim of the request, or nil.
func FromContext(ctx context.Context) *Claim {
	c, _ := ctx.Value(claimKey{}).(*Claim)
	return c
}

// Call is one door's request under an Idempotency-Key.
type Call struct {
	Account, Key string
	// Fingerprint identifies the request (its operation, mode and
	// arguments): the same key sent with another fingerprint is refused.
	Fingerprint string
	// Status is the status recorded with a success in the transaction of
	// its effect; Render turns the operation's result into the recorded
	// body (see RecordResult).
	Status int
	Render func(result any) ([]byte, error)
	// Answer renders the operation's outcome as the door answers it, with
	// ok false for one that is not to be recorded (a server error, so that
	// the call may be retried with the same key).
	Answer func(result any, err error) (status int, body []byte, ok bool)
	// Wait is how long a call sent while the first one with its key still
	// runs waits for that one's answer, for a door whose clients cannot
	// retry on apperr.IdempotencyInProgress; zero refuses it at once.
	Wait time.Duration
}

// waitStep is how often a waiting call looks for the first one's answer.
const waitStep = 50 * time.Millisecond

// Do runs op at most once for c's key: the first call claims the key and
// runs op with the claim in its context (so the store commits the answer
// with the effect); the same call again returns the recorded answer with
// replayed true (after up to c.Wait, while the first call still runs).
// op's outcome is then recorded as c.Answer renders it: a
// refusal, or a success that had no effect to commit its answer with (one
// that did keeps the answer committed); an outcome Answer does not record
// abandons the claim. op's result and error are returned as they are, so
// the door encodes them as usual; a replayed answer as res. Errors of its
// own: those of Store.Begin, and, once op has run, a failure to record the
// answer or abandon the claim, joined with op's error (a success's result
// is still returned: its effect stands).
func Do(ctx context.Context, s Store, c Call, op func(ctx context.Context) (any, error)) (result any, res *Response, replayed bool, err error) {
	token, stored, err := s.Begin(ctx, c.Account, c.Key, c.Fingerprint)
	if apperr.Code(err) == apperr.IdempotencyInProgress && c.Wait > 0 {
		// A real wait, not the clock's time: the first call is running now.
		deadline := time.NewTimer(c.Wait)
		defer deadline.Stop()
		tick := time.NewTicker(waitStep)
		defer tick.Stop()
	wait:
		for apperr.Code(err) == apperr.IdempotencyInProgress {
			select {
			case <-ctx.Done():
				return nil, nil, false, err
			case <-deadline.C:
				break wait
			case <-tick.C:
			}
			token, stored, err = s.Begin(ctx, c.Account, c.Key, c.Fingerprint)
		}
	}
	if err != nil {
		return nil, nil, false, err
	}
	if stored != nil {
		return nil, stored, true, nil
	}
	claim := &Claim{Account: c.Account, Key: c.Key, Token: token, Status: c.Status, Render: c.Render}
	// Past this point the claim is settled whatever happens to the caller:
	// one that leaves must not cancel the bookkeeping.
	settle := context.WithoutCancel(ctx)
	settled := false
	defer func() {
		if !settled { // a panic: forget the claim (a committed answer stays)
			s.Abandon(settle, claim)
		}
	}()
	release := s.Hold(settle, claim)
	result, err = op(NewContext(ctx, claim))
	release()
	settled = true
	status, body, ok := c.Answer(result, err)
	if !ok {
		if aerr := s.Abandon(settle, claim); aerr != nil {
			return result, nil, false, errors.Join(err, aerr)
		}
		return result, nil, false, err
	}
	if ferr := s.Finish(settle, claim, status, body); ferr != nil {
		return result, nil, false, errors.Join(err, ferr)
	}
	return result, nil, false, err
}
