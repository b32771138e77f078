package changes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// JobDeliver is the job kind that sends one webhook delivery; its
// payload is {"deliveryId": …}.
const JobDeliver = "webhook.deliver"

// TypeTest is the type of the ping POST …/webhooks/{id}/test sends; it
// is not an event of the feed.
const TypeTest = "webhook.test"

// Webhook endpoint and delivery statuses.
const (
	EndpointActive   = "active"   // receives deliveries
	EndpointFailing  = "failing"  // still receives; a delivery ran out of retries (StatusReason says why)
	EndpointDisabled = "disabled" // receives nothing: its owner turned it off, or it answered 410

	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Endpoint is a URL that receives the events of its audience.
type Endpoint struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Types       []string `json:"types"` // empty: every type
	Description *string  `json:"description"`
	// Mode is the property platform's key mode (test or live) whose events
	// the endpoint receives; empty on the guide API.
	Mode         string    `json:"mode,omitempty"`
	Status       string    `json:"status"`
	StatusReason *string   `json:"statusReason"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// PreviousSecretExpiresAt is when the secret before the last rotation
	// stops signing deliveries; null when there is none.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt"`
	Owner                   string     `json:"-"` // who manages it: "user:<id>" or "developer:<id>"
	Audience                string     `json:"-"` // whose events it receives (event_audience keys)
}

// Delivery is one event (or test ping) sent to an endpoint, with
// its latest attempt and the history of its attempts.
type Delivery struct {
	ID             string     `json:"id"`
	EndpointID     string     `json:"endpointId"`
	EventID        string     `json:"eventId"`
	EventType      string     `json:"eventType"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	ResponseStatus *int       `json:"responseStatus"`
	LatencyMS      *int       `json:"latencyMs"`
	LastError      *string    `json:"lastError"`
	NextAttemptAt  *time.Time `json:"nextAttemptAt"`
	CreatedAt      time.Time  `json:"createdAt"`
	DeliveredAt    *time.Time `json:"deliveredAt"`
	// AttemptHistory is every attempt made, oldest first.
	AttemptHistory []Attempt `json:"attemptHistory"`
}

// Attempt is one attempt of a delivery, as recorded.
type Attempt struct {
	Attempt        int       `json:"attempt"` // 1 for the first
	AttemptedAt    time.Time `json:"attemptedAt"`
	ResponseStatus *int      `json:"responseStatus"` // null: no answer
	LatencyMS      int       `json:"latencyMs"`
	Error          *string   `json:"error"` // null on success
}

// EndpointUpdate changes an endpoint; nil fields stay as they are.
type EndpointUpdate struct {
	URL         *string
	Types       *[]string
	Description *string
	Enabled     *bool // true: active again (clears the reason); false: disabled
}

// Endpoints keeps the webhook endpoints and deliveries of one database.
type Endpoints struct {
	db    *store.DB
	clock clock.Clock
}

// NewEndpoints returns the webhook endpoints of db.
func NewEndpoints(db *store.DB, c clock.Clock) *Endpoints { return &Endpoints{db: db, clock: c} }

const endpointColumns = `id, url, types, description, status, status_reason, created_at, updated_at, previous_secret_until, owner, audience`

func scanEndpoint(s store.Scanner, e *Endpoint) error {
	var types string
	var desc, reason sql.NullString
	var prevUntil sql.NullTime
	if err := s.Scan(&e.ID, &e.URL, &types, &desc, &e.Status, &reason, &e.CreatedAt, &e.UpdatedAt, &prevUntil, &e.Owner, &e.Audience); err != nil {
		return err
	}
	e.Types = splitTypes(types)
	e.Description, e.StatusReason, e.PreviousSecretExpiresAt = store.NullString(desc), store.NullString(reason), store.NullTime(prevUntil)
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return nil
}

func splitTypes(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// MaxEndpoints bounds the endpoints of one owner, and so the
// deliveries one event can cause.
const MaxEndpoints = 20

// Create stores a new endpoint with its signing secret; ID, Status and
// the times are set on e. The owner's endpoints are counted in the
// transaction of the insert, under a lock of the owner (SQLite's
// writer is one at a time; PostgreSQL takes a transaction lock on the
// owner's name), so that concurrent creations never pass the bound.
// Errors: apperr.InvalidState when the owner has MaxEndpoints.
func (s *Endpoints) Create(ctx context.Context, e *Endpoint, secret string) (err error) {
	defer store.Wrap(&err, "create webhook endpoint of %s", e.Owner)
	now := s.clock.Now().UTC()
	e.ID, e.Status, e.CreatedAt, e.UpdatedAt = store.NewID(), EndpointActive, now, now
	if e.Types == nil {
		e.Types = []string{}
	}
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		if s.db.Engine == store.Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0))`, e.Owner); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_endpoints WHERE owner = $1`, e.Owner).Scan(&n); err != nil {
			return err
		}
		if n >= MaxEndpoints {
			return apperr.Errorf(apperr.InvalidState, "An account has at most %d webhook endpoints; delete one first.", MaxEndpoints)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (id, owner, audience, url, types, description, secret, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
			e.ID, e.Owner, e.Audience, e.URL, strings.Join(e.Types, ","), e.Description, secret, e.Status, now)
		return err
	})
}

// List returns the owner's endpoints, oldest first.
func (s *Endpoints) List(ctx context.Context, owner string) (_ []Endpoint, err error) {
	defer store.Wrap(&err, "find webhook endpoints of %s", owner)
	rows, err := s.db.QueryContext(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE owner = $1 ORDER BY created_at, id`, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Endpoint{}
	for rows.Next() {
		var e Endpoint
		if err := scanEndpoint(rows, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Get returns an endpoint of the owner.
// Errors: apperr.NotFound.
func (s *Endpoints) Get(ctx context.Context, owner, id string) (_ *Endpoint, err error) {
	defer store.Wrap(&err, "find webhook endpoint %s", id)
	return findEndpoint(ctx, s.db, owner, id)
}

func findEndpoint(ctx context.Context, q store.Querier, owner, id string) (*Endpoint, error) {
	var e Endpoint
	err := scanEndpoint(q.QueryRowContext(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE id = $1 AND owner = $2`, id, owner), &e)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No webhook endpoint with id %q.", id)
	}
	return &e, err
}

// Update changes an endpoint of the owner.
// Errors: apperr.NotFound.
func (s *Endpoints) Update(ctx context.Context, owner, id string, u EndpointUpdate) (_ *Endpoint, err error) {
	defer store.Wrap(&err, "update webhook endpoint %s", id)
	var out *Endpoint
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		e, err := findEndpoint(ctx, tx, owner, id)
		if err != nil {
			return err
		}
		if u.URL != nil {
			e.URL = *u.URL
		}
		if u.Types != nil {
			e.Types = *u.Types
		}
		if u.Description != nil {
			e.Description = u.Description
		}
		if u.Enabled != nil {
			switch {
			case *u.Enabled && e.Status != EndpointActive:
				e.Status, e.StatusReason = EndpointActive, nil
			case !*u.Enabled:
				e.Status, e.StatusReason = EndpointDisabled, ptr("Disabled by its owner.")
			}
		}
		e.UpdatedAt = s.clock.Now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET url = $1, types = $2, description = $3, status = $4, status_reason = $5, updated_at = $6
			WHERE id = $7`, e.URL, strings.Join(e.Types, ","), e.Description, e.Status, e.StatusReason, e.UpdatedAt, id); err != nil {
			return err
		}
		out = e
		return nil
	})
	return out, err
}

// Delete removes an endpoint of the owner and its deliveries; their
// pending jobs find nothing to send. Errors: apperr.NotFound.
func (s *Endpoints) Delete(ctx context.Context, owner, id string) (err error) {
	defer store.Wrap(&err, "delete webhook endpoint %s", id)
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := findEndpoint(ctx, tx, owner, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE endpoint_id = $1`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE id = $1`, id)
		return err
	})
}

// RotateSecret gives the endpoint a new secret; the current one keeps
// signing (alongside) for grace. Errors: apperr.NotFound.
func (s *Endpoints) RotateSecret(ctx context.Context, owner, id, secret string, grace time.Duration) (_ *Endpoint, err error) {
	defer store.Wrap(&err, "rotate secret of webhook endpoint %s", id)
	var out *Endpoint
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := findEndpoint(ctx, tx, owner, id); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = $1, secret = $2, updated_at = $3
			WHERE id = $4`, now.Add(grace), secret, now, id); err != nil {
			return err
		}
		out, err = findEndpoint(ctx, tx, owner, id)
		return err
	})
	return out, err
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// enqueueDelivery writes a pending delivery of payload to an endpoint and
// the job that sends it, in q. The endpoint is the job's concurrency key:
// its deliveries are sent one at a time, so one that hangs holds up only
// its own endpoint's.
func enqueueDelivery(ctx context.Context, q store.Querier, queue *store.Jobs, now time.Time, endpointID, eventID, eventType string, payload []byte) (string, error) {
	id := store.NewID()
	if _, err := q.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6, $6)`, id, endpointID, eventID, eventType, string(payload), now); err != nil {
		return "", fmt.Errorf("insert delivery: %w", err)
	}
	return id, queue.EnqueueKeyed(ctx, q, JobDeliver, "webhook:"+endpointID, map[string]string{"deliveryId": id}, now)
}

// fanOut enqueues a delivery of ev to every endpoint that is not disabled,
// belongs to the event's audience (any endpoint for AudienceAll) and
// subscribed to its type, in the event's transaction q.
func fanOut(ctx context.Context, q store.Querier, queue *store.Jobs, ev Event, audience []string) error {
	w := &store.Where{}
	w.And("status <> 'disabled'")
	if !slices.Contains(audience, AudienceAll) {
		if len(audience) == 0 {
			return nil
		}
		in := make([]string, len(audience))
		for i, a := range audience {
			in[i] = w.Arg(a)
		}
		w.And("audience IN (" + strings.Join(in, ", ") + ")")
	}
	// #nosec G202 -- only $N placeholders are concatenated; values are bound.
	rows, err := q.QueryContext(ctx, `SELECT id, types FROM webhook_endpoints`+w.String()+` ORDER BY id`, w.Args...)
	if err != nil {
		return fmt.Errorf("find endpoints: %w", err)
	}
	var targets []string
	for rows.Next() {
		var id, types string
		if err := rows.Scan(&id, &types); err != nil {
			rows.Close()
			return err
		}
		if t := splitTypes(types); len(t) == 0 || slices.Contains(t, ev.Type) {
			targets = append(targets, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(targets) == 0 {
		return err
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	for _, id := range targets {
		if _, err := enqueueDelivery(ctx, q, queue, ev.CreatedAt, id, ev.ID, ev.Type, payload); err != nil {
			return err
		}
	}
	return nil
}

// Test pings an endpoint may be sent within TestPingWindow.
const (
	TestPingLimit  = 5
	TestPingWindow = time.Minute
)

// Ping enqueues a ping to an endpoint of the owner, sent even when the
// endpoint is disabled: {"id", "type": "webhook.test", "createdAt",
// "data": {"endpointId"}}. At most TestPingLimit pings per endpoint are made
// within TestPingWindow (counted with the endpoint's row locked), so that
// pings cannot pile up on an endpoint. Errors: apperr.NotFound;
// apperr.RateLimited, with the seconds until the oldest ping in the window
// leaves it.
func (s *Endpoints) Ping(ctx context.Context, owner, id string) (_ *Delivery, err error) {
	defer store.Wrap(&err, "test webhook endpoint %s", id)
	var out *Delivery
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := findEndpoint(ctx, tx, owner, id); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		if s.db.Engine == store.Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE`, id); err != nil {
				return err
			}
		}
		// The latest pings in the window, newest first: the limit's worth.
		rows, err := tx.QueryContext(ctx, `SELECT created_at FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = $2 AND created_at > $3
			ORDER BY created_at DESC LIMIT $4`, id, TypeTest, now.Add(-TestPingWindow), TestPingLimit)
		if err != nil {
			return err
		}
		var pings []time.Time
		for rows.Next() {
			var at time.Time
			if err := rows.Scan(&at); err != nil {
				rows.Close()
				return err
			}
			pings = append(pings, at)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(pings) >= TestPingLimit {
			// The oldest of them leaves the window first.
			wait := max(pings[len(pings)-1].Add(TestPingWindow).Sub(now), time.Second)
			return &apperr.Error{Code: apperr.RateLimited, RetryAfter: int((wait + time.Second - 1) / time.Second),
				Message: fmt.Sprintf("An endpoint takes at most %d test pings a minute; try again later.", TestPingLimit)}
		}
		data, err := json.Marshal(map[string]string{"endpointId": id})
		if err != nil {
			return err
		}
		ev := Event{ID: store.NewID(), Type: TypeTest, CreatedAt: now, Data: data}
		payload, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		did, err := enqueueDelivery(ctx, tx, store.NewJobs(s.db, s.clock), ev.CreatedAt, id, ev.ID, ev.Type, payload)
		if err != nil {
			return err
		}
		out, err = findDelivery(ctx, tx, owner, did)
		return err
	})
	return out, err
}

// Redeliver sends a delivery of the owner again, as a new delivery with
// the same webhook-id and body. Errors: apperr.NotFound.
func (s *Endpoints) Redeliver(ctx context.Context, owner, deliveryID string) (_ *Delivery, err error) {
	defer store.Wrap(&err, "redeliver %s", deliveryID)
	var out *Delivery
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		var endpointID, eventID, eventType, payload string
		err := tx.QueryRowContext(ctx, `SELECT d.endpoint_id, d.event_id, d.event_type, d.payload FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1 AND e.owner = $2`, deliveryID, owner).Scan(&endpointID, &eventID, &eventType, &payload)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "No webhook delivery with id %q.", deliveryID)
		} else if err != nil {
			return err
		}
		did, err := enqueueDelivery(ctx, tx, store.NewJobs(s.db, s.clock), s.clock.Now().UTC(), endpointID, eventID, eventType, []byte(payload))
		if err != nil {
			return err
		}
		out, err = findDelivery(ctx, tx, owner, did)
		return err
	})
	return out, err
}

const deliveryColumns = `d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.response_status, d.latency_ms, d.last_error,
	d.next_attempt_at, d.created_at, d.delivered_at`

func scanDelivery(s store.Scanner, d *Delivery) error {
	var code, latency sql.NullInt64
	var lastErr sql.NullString
	var next, delivered sql.NullTime
	if err := s.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Status, &d.Attempts, &code, &latency, &lastErr,
		&next, &d.CreatedAt, &delivered); err != nil {
		return err
	}
	if code.Valid {
		d.ResponseStatus = ptr(int(code.Int64))
	}
	if latency.Valid {
		d.LatencyMS = ptr(int(latency.Int64))
	}
	d.LastError, d.NextAttemptAt, d.DeliveredAt, d.CreatedAt = store.NullString(lastErr), store.NullTime(next), store.NullTime(delivered), d.CreatedAt.UTC()
	return nil
}

func findDelivery(ctx context.Context, q store.Querier, owner, id string) (*Delivery, error) {
	var d Delivery
	err := scanDelivery(q.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1 AND e.owner = $2`, id, owner), &d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No webhook delivery with id %q.", id)
	} else if err != nil {
		return nil, err
	}
	ds := []Delivery{d}
	if err := withAttempts(ctx, q, ds); err != nil {
		return nil, err
	}
	return &ds[0], nil
}

// withAttempts fills in the attempt history of the deliveries, in one
// query.
func withAttempts(ctx context.Context, q store.Querier, ds []Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	index := make(map[string]int, len(ds))
	ids := make([]string, len(ds))
	for i := range ds {
		ds[i].AttemptHistory = []Attempt{}
		index[ds[i].ID], ids[i] = i, ds[i].ID
	}
	w := &store.Where{}
	// #nosec G202 -- only $N placeholders are concatenated; values are bound.
	rows, err := q.QueryContext(ctx, `SELECT delivery_id, attempt, attempted_at, response_status, latency_ms, error
		FROM webhook_delivery_attempts WHERE delivery_id IN (`+w.ArgStrings(ids)+`) ORDER BY delivery_id, attempt`, w.Args...)
	if err != nil {
		return fmt.Errorf("find attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a Attempt
		var code sql.NullInt64
		var errText sql.NullString
		if err := rows.Scan(&id, &a.Attempt, &a.AttemptedAt, &code, &a.LatencyMS, &errText); err != nil {
			return err
		}
		if code.Valid {
			a.ResponseStatus = ptr(int(code.Int64))
		}
		a.AttemptedAt, a.Error = a.AttemptedAt.UTC(), store.NullString(errText)
		d := &ds[index[id]]
		d.AttemptHistory = append(d.AttemptHistory, a)
	}
	return rows.Err()
}

// Deliveries lists the latest deliveries to an endpoint of the
// owner, newest first, each with its attempts. Errors: apperr.NotFound.
func (s *Endpoints) Deliveries(ctx context.Context, owner, endpointID string, limit int) (_ []Delivery, err error) {
	defer store.Wrap(&err, "find deliveries of webhook endpoint %s", endpointID)
	if _, err := findEndpoint(ctx, s.db, owner, endpointID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id DESC LIMIT $2`, endpointID, limit)
	if err != nil {
		return nil, err
	}
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		if err := scanDelivery(rows, &d); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, withAttempts(ctx, s.db, out)
}

// deliveryTask is what a worker needs to send a delivery.
type deliveryTask struct {
	DeliveryID     string
	EndpointID     string
	URL            string
	Secrets        []string // the current secret, and the previous one while it still signs
	EndpointStatus string
	EventID        string
	EventType      string
	Payload        []byte
	Attempts       int // attempts made before this one
}

// loadTask loads a delivery for sending. Errors: apperr.NotFound when the
// delivery (or its endpoint) was deleted.
func (s *Endpoints) loadTask(ctx context.Context, deliveryID string) (_ *deliveryTask, err error) {
	defer store.Wrap(&err, "load delivery %s", deliveryID)
	t := &deliveryTask{DeliveryID: deliveryID}
	var prev sql.NullString
	var prevUntil sql.NullTime
	var secret, payload string
	err = s.db.QueryRowContext(ctx, `SELECT d.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_until, e.status, d.event_id, d.event_type, d.payload, d.attempts
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1`, deliveryID).Scan(
		&t.EndpointID, &t.URL, &secret, &prev, &prevUntil, &t.EndpointStatus, &t.EventID, &t.EventType, &payload, &t.Attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No webhook delivery with id %q.", deliveryID)
	} else if err != nil {
		return nil, err
	}
	t.Secrets, t.Payload = []string{secret}, []byte(payload)
	if prev.Valid && prevUntil.Valid && s.clock.Now().Before(prevUntil.Time) {
		t.Secrets = append(t.Secrets, prev.String)
	}
	return t, nil
}

// outcome is the outcome of one attempt.
type outcome struct {
	At             time.Time // when it was made; zero: when it is recorded
	ResponseStatus int       // 0: no answer
	Latency        time.Duration
	Error          string    // "" on success
	Succeeded      bool      // a 2xx answer
	NextAttemptAt  time.Time // zero: no retry (success, or given up)
	// EndpointStatus, when not empty, is the endpoint's new status, with
	// EndpointReason: disabled after a 410, failing once retries run out,
	// active after a success.
	EndpointStatus string
	EndpointReason string
}

// finish records an attempt on the delivery (its latest and its history),
// its endpoint and its job in one transaction: the job runs again at
// NextAttemptAt, or is done. Errors: store.ErrJobDone when another worker
// finished the job.
func (s *Endpoints) finish(ctx context.Context, jobID string, t *deliveryTask, a outcome) (err error) {
	defer store.Wrap(&err, "finish attempt of delivery %s", t.DeliveryID)
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		now := s.clock.Now().UTC()
		status := DeliveryPending
		var next, delivered, code, lastErr any
		switch {
		case a.Succeeded:
			status, delivered = DeliverySucceeded, now
		case a.NextAttemptAt.IsZero():
			status = DeliveryFailed
		default:
			next = a.NextAttemptAt.UTC()
		}
		if a.ResponseStatus != 0 {
			code = a.ResponseStatus
		}
		if a.Error != "" {
			lastErr = a.Error
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1, response_status = $2, latency_ms = $3,
			last_error = $4, next_attempt_at = $5, delivered_at = $6, updated_at = $7 WHERE id = $8`,
			status, code, a.Latency.Milliseconds(), lastErr, next, delivered, now, t.DeliveryID); err != nil {
			return err
		}
		at := a.At
		if at.IsZero() {
			at = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, response_status, latency_ms, error)
			VALUES ($1, (SELECT attempts FROM webhook_deliveries WHERE id = $1), $2, $3, $4, $5)`,
			t.DeliveryID, at.UTC(), code, a.Latency.Milliseconds(), lastErr); err != nil {
			return err
		}
		if a.EndpointStatus != "" {
			// A disabled endpoint stays disabled whatever a late attempt says.
			var reason any
			if a.EndpointReason != "" {
				reason = a.EndpointReason
			}
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET status = $1, status_reason = $2, updated_at = $3
				WHERE id = $4 AND status <> 'disabled'`, a.EndpointStatus, reason, now, t.EndpointID); err != nil {
				return err
			}
		}
		var res sql.Result
		var err error
		if next != nil {
			res, err = tx.ExecContext(ctx, `UPDATE jobs SET run_at = $2, locked_until = NULL, last_error = $3 WHERE id = $1 AND done_at IS NULL`,
				jobID, next, lastErr)
		} else {
			res, err = tx.ExecContext(ctx, `UPDATE jobs SET done_at = $2, locked_until = NULL, last_error = $3 WHERE id = $1 AND done_at IS NULL`,
				jobID, now, lastErr)
		}
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrJobDone
		}
		return nil
	})
}

// PurgeDeliveries forgets the deliveries that are finished (succeeded or
// failed) and older than EventTTL, and returns how many.
func (s *Endpoints) PurgeDeliveries(ctx context.Context) (_ int, err error) {
	defer store.Wrap(&err, "purge webhook deliveries")
	res, err := s.db.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at <= $1`, s.clock.Now().Add(-EventTTL))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
