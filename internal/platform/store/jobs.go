package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Jobs is the job queue of one database: deferred work is enqueued in the
// transaction of the change that asks for it, and claimed and finished
// safely with many worker processes on one database. Each product names its
// own job kinds.
type Jobs struct {
	db    *DB
	clock clock.Clock
}

// NewJobs returns the job queue of db.
func NewJobs(db *DB, c clock.Clock) *Jobs { return &Jobs{db: db, clock: c} }

// Enqueue records deferred work in the jobs table, inside the caller's
// transaction when q is one, so that the work exists if and only if the
// change that asked for it was committed. Once q commits, the job is
// handed to this process's runner (see Handoff).
func (s *Jobs) Enqueue(ctx context.Context, q Querier, kind string, payload any, runAt time.Time) error {
	return s.EnqueueKeyed(ctx, q, kind, "", payload, runAt)
}

// EnqueueKeyed is Enqueue with a concurrency key: of the jobs that share
// a key, one at a time is leased (see Claim). "" is no key.
func (s *Jobs) EnqueueKeyed(ctx context.Context, q Querier, kind, key string, payload any, runAt time.Time) error {
	j, err := s.newJob(ctx, kind, payload, runAt)
	if err != nil {
		return err
	}
	var k any
	if key != "" {
		k = key
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO jobs (id, kind, payload, run_at, created_at, locked_until, attempts, concurrency_key, traceparent)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, j.ID, kind, string(j.Payload), runAt, j.CreatedAt, j.lockedUntil(), j.Attempts, k, j.traceparent()); err != nil {
		return fmt.Errorf("enqueue %s job: %w", kind, err)
	}
	s.Handoff(q, j)
	return nil
}

// EnqueueFrom is Enqueue as a part of the caller's PostgreSQL statement,
// to save it a round trip: it returns an insert of the job for each row of
// from (a data-modifying WITH of the statement, so that the job exists only
// if that row was written), its values added to w's arguments, and the
// job, for the caller to hand off (Handoff) once it knows the row was
// written. ctx is the enqueuing request's, whose trace the job joins.
func (s *Jobs) EnqueueFrom(ctx context.Context, w *Where, from, kind string, payload any, runAt time.Time) (string, Job, error) {
	j, err := s.newJob(ctx, kind, payload, runAt)
	if err != nil {
		return "", Job{}, err
	}
	return `INSERT INTO jobs (id, kind, payload, run_at, created_at, locked_until, attempts, traceparent) SELECT ` + w.Arg(j.ID) + `::text, ` +
		w.Arg(kind) + `::text, ` + w.Arg(string(j.Payload)) + `::jsonb, ` + w.Arg(runAt) + `::timestamptz, ` +
		w.Arg(j.CreatedAt) + `::timestamptz, ` + w.Arg(j.lockedUntil()) + `::timestamptz, ` + w.Arg(j.Attempts) + `, ` +
		w.Arg(j.traceparent()) + `::text FROM ` + from, j, nil
}

// newJob is a job of kind to insert; it keeps the traceparent of the span
// ctx carries (telemetry.TraceParent), so that the job's run joins the
// trace of the request that asked for it.
func (s *Jobs) newJob(ctx context.Context, kind string, payload any, runAt time.Time) (Job, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return Job{}, fmt.Errorf("enqueue %s job: %w", kind, err)
	}
	now := s.clock.Now()
	j := Job{ID: NewID(), Kind: kind, Payload: body, RunAt: runAt, CreatedAt: now, TraceParent: telemetry.TraceParent(ctx)}
	if h := s.db.handoff.Load(); h != nil && h.Direct != nil && h.Direct(kind) && !runAt.After(now) {
		// Inserted as claimed by this process, its first attempt counted:
		// no runner claims it before its lease runs out.
		j.Attempts, j.direct = 1, true
	}
	return j, nil
}

// Handoff gives j, a job enqueued in q, to this process's runner once q
// commits (see SetHandoff).
func (s *Jobs) Handoff(q Querier, j Job) {
	if h := s.db.handoff.Load(); h != nil && h.Committed != nil {
		s.db.afterCommit(q, func() { h.Committed(j) })
	}
}

// Handoff is how the job runner of this process hears of the jobs its
// transactions enqueue, so that it need not wait for its next poll. The
// kernel knows no runner: the wiring gives it these functions
// (SetHandoff).
type Handoff struct {
	// Direct tells whether a due job of kind goes straight to this
	// process without a claim: it is inserted already leased for
	// DirectLease, its first attempt counted, and handed to Committed.
	// Should the process die or drop the job, the lease runs out and any
	// runner claims it, as when a worker dies holding a claimed job. For
	// work that is quick and wanted at once (realtime publications). nil:
	// no kind.
	Direct func(kind string) bool
	// Committed receives each job enqueued in a transaction once it
	// commits (Job.Direct tells which were leased to this process). It
	// must not block; a direct job it drops runs after its lease.
	Committed func(Job)
}

// DirectLease is how long a job handed straight to this process
// (Handoff.Direct) is withheld from the other runners.
const DirectLease = time.Minute

// SetHandoff makes h how this process hears of the database's jobs (the
// zero Handoff: not at all). Set it before the database takes writes.
func (s *Jobs) SetHandoff(h Handoff) {
	if h.Direct == nil && h.Committed == nil {
		s.db.handoff.Store(nil)
		return
	}
	s.db.handoff.Store(&h)
}

// Job is a claimed row of jobs.
type Job struct {
	ID      string
	Kind    string
	Payload json.RawMessage
	RunAt   time.Time
	// Attempts counts the claims of the job, this one included: 1 on the
	// first run.
	Attempts  int
	LastError *string
	CreatedAt time.Time
	// Key is the job's concurrency key; "" for none.
	Key string
	// TraceParent is the W3C traceparent of the span that enqueued the
	// job; "" when there was none or tracing was off.
	TraceParent string

	direct bool // inserted leased to this process (Handoff.Direct)
}

// Direct tells whether the job was inserted leased to this process, to
// be handled without a claim (Handoff.Direct).
func (j Job) Direct() bool { return j.direct }

// traceparent is the job's TraceParent as a column value: NULL for none.
func (j Job) traceparent() any {
	if j.TraceParent == "" {
		return nil
	}
	return j.TraceParent
}

// lockedUntil is the lease a job is inserted with: none, or DirectLease.
func (j Job) lockedUntil() any {
	if !j.direct {
		return nil
	}
	return j.CreatedAt.Add(DirectLease)
}

const jobColumns = `id, kind, payload, run_at, attempts, last_error, created_at, concurrency_key, traceparent`

// Claim leases up to limit due jobs of the given kinds (any kind when
// kinds is empty) to the caller for lease: a job is due when it is not
// done, its run_at has come and no other worker holds an unexpired lease on
// it. Claiming sets locked_until and counts the attempt in the same
// statement, so two workers, in one process or many, never claim the same
// job; a job whose worker died is claimed again once its lease expires.
//
// A job with a concurrency key is passed over while another job of its
// key is leased, and a claim keeps one job of each key (it releases the
// others at once, their attempts not counted): a key's jobs run one at a
// time, so a webhook endpoint that hangs holds one worker's slot, never
// all of them. (Two claims on PostgreSQL racing at the same moment may
// each take one of a key.)
func (s *Jobs) Claim(ctx context.Context, kinds []string, limit int, lease time.Duration) ([]Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	now := s.clock.Now().UTC()
	args := []any{now.Add(lease), now, limit}
	kindCond := ""
	if len(kinds) > 0 {
		kindCond = ` AND kind IN (` + Placeholders(len(args)+1, len(kinds)) + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	const due = `done_at IS NULL AND run_at <= $2 AND (locked_until IS NULL OR locked_until < $2)`
	// The partial index jobs_leased_key answers it.
	const keyFree = ` AND (concurrency_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs busy
		WHERE busy.concurrency_key = jobs.concurrency_key AND busy.done_at IS NULL AND busy.locked_until >= $2))`
	var query string
	if s.db.Engine == Postgres {
		// SKIP LOCKED lets concurrent claimers pass over each other's rows
		// instead of queueing behind them; the conditions are stated again
		// on the updated row, which PostgreSQL re-checks on its newest
		// version should it have changed since the snapshot.
		query = `WITH picked AS (
				SELECT id FROM jobs WHERE ` + due + kindCond + keyFree + `
				ORDER BY run_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
			UPDATE jobs SET locked_until = $1, attempts = jobs.attempts + 1
			FROM picked WHERE jobs.id = picked.id
				AND jobs.done_at IS NULL AND jobs.run_at <= $2 AND (jobs.locked_until IS NULL OR jobs.locked_until < $2)
			RETURNING jobs.id, jobs.kind, jobs.payload, jobs.run_at, jobs.attempts, jobs.last_error, jobs.created_at, jobs.concurrency_key, jobs.traceparent`
	} else {
		// SQLite transactions (and single statements) take the write lock
		// up front, so the subselect and the update see the same rows.
		query = `UPDATE jobs SET locked_until = $1, attempts = attempts + 1
			WHERE id IN (SELECT id FROM jobs WHERE ` + due + kindCond + keyFree + ` ORDER BY run_at, id LIMIT $3)
			AND ` + due + `
			RETURNING ` + jobColumns
	}
	rows, err := s.db.Writer().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	defer rows.Close()
	var jobs []Job
	for rows.Next() {
		var j Job
		var payload []byte
		var lastError, key, traceparent sql.NullString
		if err := rows.Scan(&j.ID, &j.Kind, &payload, &j.RunAt, &j.Attempts, &lastError, &j.CreatedAt, &key, &traceparent); err != nil {
			return nil, fmt.Errorf("claim jobs: %w", err)
		}
		j.Payload = json.RawMessage(payload)
		j.RunAt, j.CreatedAt, j.LastError, j.Key, j.TraceParent = j.RunAt.UTC(), j.CreatedAt.UTC(), NullString(lastError), key.String, traceparent.String
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	rows.Close()
	return s.onePerKey(ctx, jobs)
}

// onePerKey keeps the first claimed job of each concurrency key and
// releases the others, their attempts not counted.
func (s *Jobs) onePerKey(ctx context.Context, jobs []Job) ([]Job, error) {
	seen := map[string]bool{}
	kept := jobs[:0]
	var extra []string
	for _, j := range jobs {
		switch {
		case j.Key == "":
		case seen[j.Key]:
			extra = append(extra, j.ID)
			continue
		default:
			seen[j.Key] = true
		}
		kept = append(kept, j)
	}
	if len(extra) == 0 {
		return kept, nil
	}
	w := &Where{}
	// #nosec G202 -- only $N placeholders are concatenated; values are bound.
	if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET locked_until = NULL, attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
		WHERE id IN (`+w.ArgStrings(extra)+`) AND done_at IS NULL`, w.Args...); err != nil {
		// Unreleased, they wait for their leases: later, not lost.
		return kept, fmt.Errorf("release jobs of a busy key: %w", err)
	}
	return kept, nil
}

// finish applies set to the job unless it is already done; op names the
// operation in errors.
func (s *Jobs) finish(ctx context.Context, op, id, set string, args ...any) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET `+set+` WHERE id = $1 AND done_at IS NULL`, append([]any{id}, args...)...); err != nil {
		return fmt.Errorf("%s job %s: %w", op, id, err)
	}
	return nil
}

// Complete marks the jobs done, in one statement: a runner completes
// the jobs of a round together, one commit for all of them.
//
// On PostgreSQL that commit does not wait for its WAL flush (the
// statement turns synchronous_commit off for its own transaction): a
// flush is most of the CPU a commit costs, and a completion lost in a
// crash of the database leaves the job claimed, to run again once its
// lease has run out, as when a worker dies before completing. Claims stay
// synchronous: a lost claim could let a second worker run a job still in
// hand.
func (s *Jobs) Complete(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	w := &Where{}
	async, from := "", ""
	if s.db.Engine == Postgres {
		async, from = `WITH async AS (SELECT set_config('synchronous_commit', 'off', true)) `, ` FROM async`
	}
	// #nosec G202 -- only $N placeholders are concatenated; values are bound.
	if _, err := s.db.ExecContext(ctx, async+`UPDATE jobs SET done_at = `+w.Arg(s.clock.Now())+`, locked_until = NULL`+from+`
		WHERE id IN (`+w.ArgStrings(ids)+`) AND done_at IS NULL`, w.Args...); err != nil {
		return fmt.Errorf("complete %d jobs: %w", len(ids), err)
	}
	return nil
}

// Retry releases the job after a failed attempt, to run again at runAt,
// and records the error.
func (s *Jobs) Retry(ctx context.Context, id string, runAt time.Time, errText string) error {
	return s.finish(ctx, "retry", id, `run_at = $2, locked_until = NULL, last_error = $3`, runAt.UTC(), errText)
}

// Defer releases the job to run again at runAt without counting the
// attempt it took: the job was not due for a reason of its own (quiet
// hours, a shutting-down worker), not a failure.
func (s *Jobs) Defer(ctx context.Context, id string, runAt time.Time) error {
	return s.finish(ctx, "defer", id, `run_at = $2, locked_until = NULL,
		attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END`, runAt.UTC())
}

// Fail gives the job up: it is done, with errText as its last error.
func (s *Jobs) Fail(ctx context.Context, id string, errText string) error {
	return s.finish(ctx, "fail", id, `done_at = $2, locked_until = NULL, last_error = $3`, s.clock.Now(), errText)
}

// CountPending counts the jobs not done yet, due or not.
func (s *Jobs) CountPending(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs WHERE done_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending jobs: %w", err)
	}
	return n, nil
}

// CompleteIn marks the job done inside the caller's transaction q, so that
// the work the job turned into commits with it. On PostgreSQL the update
// holds the job's row lock until q commits: a second worker with an
// expired lease waits for it and then finds the job done. Errors:
// ErrJobDone when another worker completed the job meanwhile.
func (s *Jobs) CompleteIn(ctx context.Context, q Querier, id string) error {
	res, err := q.ExecContext(ctx, `UPDATE jobs SET done_at = $2, locked_until = NULL WHERE id = $1 AND done_at IS NULL`, id, s.clock.Now())
	if err != nil {
		return fmt.Errorf("complete job %s: %w", id, err)
	}
	if done, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("complete job %s: %w", id, err)
	} else if done == 0 {
		return ErrJobDone
	}
	return nil
}

// ErrJobDone reports that a job was finished by another worker meanwhile.
var ErrJobDone = errors.New("store: job already done")
