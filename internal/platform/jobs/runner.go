package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Defaults of the Runner's settings.
const (
	DefaultPollInterval  = 2 * time.Second
	DefaultConcurrency   = 8
	DefaultJobTimeout    = 2 * time.Minute
	DefaultLease         = 5 * time.Minute
	DefaultShutdownGrace = 10 * time.Second
	DefaultMaxAttempts   = 8
)

// Backoff after a failed attempt: BackoffBase·2^(attempt-1), at most
// BackoffMax.
const (
	BackoffBase = 30 * time.Second
	BackoffMax  = time.Hour
)

// Backoff returns how long to wait after the attempt-th failed attempt
// (1-based): 30s, 1m, 2m, 4m ... capped at an hour.
func Backoff(attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	if attempt > 8 {
		return BackoffMax
	}
	return min(BackoffBase<<(attempt-1), BackoffMax)
}

// Queue is the job queue a Runner works through (store.Jobs).
type Queue interface {
	Claim(ctx context.Context, kinds []string, limit int, lease time.Duration) ([]store.Job, error)
	Complete(ctx context.Context, ids ...string) error
	Retry(ctx context.Context, id string, runAt time.Time, errText string) error
	Defer(ctx context.Context, id string, runAt time.Time) error
	Fail(ctx context.Context, id string, errText string) error
}

// Handler does the work of one job. It returns nil when the job is done
// (the runner completes it), ErrFinished when the handler recorded the
// outcome itself, and otherwise an error: Permanent gives the job up,
// Deferral runs it again later without counting the attempt, RetryAfter
// bounds the backoff from below, and any other error is retried with
// Backoff until MaxAttempts.
type Handler func(ctx context.Context, j store.Job) error

// Kind is a job kind a Runner handles: each product registers its own
// (Register) when the process is wired.
type Kind struct {
	Name   string
	Handle Handler
	// Pool holds the slots the kind's jobs run in, shared by the kinds
	// that name the same Pool; nil: the runner's shared pool, of
	// Concurrency slots.
	Pool *Pool
	// Direct: a due job of this kind enqueued in this process goes to the
	// runner as its transaction commits, without a claim, and is
	// completed in a batch with others (store.Handoff.Direct). For quick
	// work wanted at once.
	Direct bool
}

// Pool is a set of slots that claims and handles the jobs of its kinds on
// its own, each job in a slot that it frees when it ends: a job never
// waits for another pool's, nor for the jobs claimed with it.
type Pool struct {
	Name    string
	Slots   int           // 0: the runner's Concurrency
	Timeout time.Duration // bound of one attempt; 0: the runner's JobTimeout
	// Lease is how long a claimed job is withheld from other runners; 0:
	// the runner's Lease, at least Timeout and a minute.
	Lease time.Duration
	// A job still running after SlowAfter (0: never) moves to one of
	// SlowSlots, when one is free, and frees its slot: jobs that hang
	// leave the slots to those that answer.
	SlowAfter time.Duration
	SlowSlots int
}

// Runner works through the jobs of the kinds registered on it. Any number
// of runners, in one process or many, may share a database: each job is
// claimed by one of them at a time.
type Runner struct {
	Jobs   Queue
	Clock  clock.Clock  // nil: clock.System; give the queue's clock
	Logger *slog.Logger // nil: slog.Default()

	PollInterval  time.Duration // how long Run waits when no job is due
	Concurrency   int           // slots of the shared pool (Kind.Pool nil), and direct jobs handled at once
	JobTimeout    time.Duration // bound of one attempt, unless its pool says otherwise
	Lease         time.Duration // how long a claimed job is withheld from other runners; above JobTimeout
	ShutdownGrace time.Duration // how long Run lets jobs in flight finish once stopped
	MaxAttempts   int           // failed attempts after which a job is given up

	kinds     map[string]Kind
	order     []string // kind names in the order registered
	poolsOnce sync.Once
	pools     []*pool
	laneOnce  sync.Once
	lane      *lane // lane.go
}

// pool is a Pool at work.
type pool struct {
	name    string
	kinds   []string
	slots   int
	timeout time.Duration // of one attempt
	lease   time.Duration
	wake    chan struct{}
	// saturated: the last claim filled every free slot, so more jobs may
	// be due when a slot frees.
	saturated atomic.Bool
	slowAfter time.Duration
	slowSlots int
}

// NewRunner returns a runner of jobs, with the default settings, that
// handles no kind until kinds are registered.
func NewRunner(jobs Queue, c clock.Clock) *Runner {
	return &Runner{
		Jobs: jobs, Clock: c,
		PollInterval: DefaultPollInterval, Concurrency: DefaultConcurrency, JobTimeout: DefaultJobTimeout,
		Lease: DefaultLease, ShutdownGrace: DefaultShutdownGrace, MaxAttempts: DefaultMaxAttempts,
	}
}

// Register makes the runner handle jobs of the kinds. Register every kind
// before Run, RunOnce or Handoff; a kind registered twice is a wiring
// mistake and panics.
func (r *Runner) Register(kinds ...Kind) {
	if r.kinds == nil {
		r.kinds = map[string]Kind{}
	}
	for _, k := range kinds {
		if _, dup := r.kinds[k.Name]; dup || k.Handle == nil {
			panic("jobs: kind " + k.Name + " registered twice or without a handler")
		}
		r.kinds[k.Name] = k
		r.order = append(r.order, k.Name)
	}
}

// Handoff is how this process's store hands the runner the jobs its
// transactions enqueue (store.Jobs.SetHandoff): direct kinds to the lane,
// the others wake their pool.
func (r *Runner) Handoff() store.Handoff {
	return store.Handoff{Direct: r.direct, Committed: r.committed}
}

// direct tells whether jobs of kind go to the lane.
func (r *Runner) direct(kind string) bool { return r.kinds[kind].Direct }

func (r *Runner) committed(j store.Job) {
	if j.Direct() {
		r.take(j)
		return
	}
	r.WakeFor(j.Kind)
}

// poolsOf returns the runner's pools, in the order their first kinds were
// registered.
func (r *Runner) poolsOf() []*pool {
	r.poolsOnce.Do(func() {
		shared := &Pool{Name: "jobs"}
		byPool := map[*Pool]*pool{}
		for _, name := range r.order {
			spec := r.kinds[name].Pool
			if spec == nil {
				spec = shared
			}
			p := byPool[spec]
			if p == nil {
				timeout := orDefault(spec.Timeout, r.jobTimeout())
				// A lease that ran out while the job is still being
				// handled would let a second runner take it.
				lease := spec.Lease
				if lease <= 0 {
					lease = max(orDefault(r.Lease, DefaultLease), timeout+time.Minute)
				}
				p = &pool{name: spec.Name, slots: orDefault(spec.Slots, r.limit()), timeout: timeout, lease: lease,
					slowAfter: spec.SlowAfter, slowSlots: spec.SlowSlots, wake: make(chan struct{}, 1)}
				byPool[spec] = p
				r.pools = append(r.pools, p)
			}
			p.kinds = append(p.kinds, name)
		}
	})
	return r.pools
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// Now is the time by the runner's clock, for handlers that schedule.
func (r *Runner) Now() time.Time {
	if r.Clock != nil {
		return r.Clock.Now()
	}
	return clock.System{}.Now()
}

func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (r *Runner) jobTimeout() time.Duration { return orDefault(r.JobTimeout, DefaultJobTimeout) }

// limit is how many jobs a round of the shared pool or the lane handles
// at once.
func (r *Runner) limit() int { return orDefault(r.Concurrency, DefaultConcurrency) }

// Wake makes a waiting Run look for due jobs now rather than at the end of
// its poll interval; call it after enqueueing a job in the same process.
func (r *Runner) Wake() {
	for _, p := range r.poolsOf() {
		signal(p.wake)
	}
}

// WakeFor is Wake for the pool of jobs of kind only.
func (r *Runner) WakeFor(kind string) {
	for _, p := range r.poolsOf() {
		if slices.Contains(p.kinds, kind) {
			signal(p.wake)
		}
	}
}

// signal marks ch (of capacity 1) without waiting: a signal already
// pending stands for both.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Run handles due jobs until ctx ends, each pool on its own (poolsOf).
// Once ctx ends it claims no more jobs, lets those in flight finish for up
// to ShutdownGrace, interrupts the rest (they run again later, the attempt
// not counted) and returns.
func (r *Runner) Run(ctx context.Context) {
	jobCtx, interrupt := context.WithCancel(context.WithoutCancel(ctx))
	defer interrupt()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(orDefault(r.ShutdownGrace, DefaultShutdownGrace), interrupt) })
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() { r.runLane(ctx, jobCtx) })
	for _, p := range r.poolsOf() {
		wg.Go(func() { r.runPool(ctx, jobCtx, p) })
	}
	wg.Wait()
}

// runPool claims the pool's due jobs into its free slots and starts each
// at once. When a claim filled every free slot it claims again as soon as
// a slot frees; otherwise no job was due, and it waits for PollInterval
// or until woken (a job enqueued in this process wakes it after its
// commit; one enqueued elsewhere waits for the poll): one claim per job at
// a steady rate. Jobs run with jobCtx, which outlives ctx at shutdown.
func (r *Runner) runPool(ctx, jobCtx context.Context, p *pool) {
	sem := make(chan struct{}, p.slots)
	var slow chan struct{}
	if p.slowAfter > 0 {
		slow = make(chan struct{}, p.slowSlots)
	}
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	poll := orDefault(r.PollInterval, DefaultPollInterval)
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for ctx.Err() == nil {
		if free := p.slots - len(sem); free > 0 {
			jobs, err := r.Jobs.Claim(ctx, p.kinds, free, p.lease)
			if err != nil && ctx.Err() == nil {
				r.logger().ErrorContext(ctx, "worker: claim failed", "pool", p.name, "err", err)
			}
			p.saturated.Store(len(jobs) == free)
			for _, j := range jobs {
				sem <- struct{}{} // one of the free slots: never waits
				r.start(jobCtx, p, j, sem, slow, &inFlight)
			}
			if len(jobs) == free && err == nil {
				continue
			}
		}
		timer.Reset(poll) // since Go 1.23 a reset timer never delivers a stale tick
		select {
		case <-ctx.Done():
		case <-p.wake:
		case <-timer.C:
		}
	}
}

// start runs j, which holds a slot of sem, in a goroutine of inFlight,
// and frees the slot it holds as it ends. Should it run longer than
// p.slowAfter it moves to a slot of slow, when one is free, and frees its
// slot of sem for the pool to claim into.
func (r *Runner) start(jobCtx context.Context, p *pool, j store.Job, sem, slow chan struct{}, inFlight *sync.WaitGroup) {
	var mu sync.Mutex
	slot := sem // the slots the job holds one of; nil once it ended
	var moving *time.Timer
	if slow != nil {
		moving = time.AfterFunc(p.slowAfter, func() {
			mu.Lock()
			defer mu.Unlock()
			if slot != sem {
				return
			}
			select {
			case slow <- struct{}{}:
				<-sem
				slot = slow
				signal(p.wake)
			default: // every slow slot is taken: it keeps its own
			}
		})
	}
	inFlight.Go(func() {
		r.runJob(jobCtx, p, j)
		if moving != nil {
			moving.Stop()
		}
		mu.Lock()
		<-slot
		slot = nil
		mu.Unlock()
		// Of the jobs that share a concurrency key one runs at a time
		// (store.Jobs.EnqueueKeyed): as one ends, the next of its key may
		// be claimed.
		if j.Key != "" || p.saturated.Load() {
			signal(p.wake)
		}
	})
}

// runJob handles one job of p within the pool's timeout and records its
// outcome.
func (r *Runner) runJob(ctx context.Context, p *pool, j store.Job) {
	hctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	done, err := r.handle(ctx, hctx, j)
	if done {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		err = errors.Join(err, r.Jobs.Complete(rctx, j.ID))
	}
	if err != nil {
		// A job not recorded runs again once its lease has run out.
		r.logger().ErrorContext(ctx, "worker: recording a job's outcome failed", "job", j.ID, "kind", j.Kind, "err", err)
	}
}

// RunOnce claims the jobs that are due, up to each pool's slots, handles
// them, completes those that succeeded and returns how many it handled.
// Tests drive the runner with it.
func (r *Runner) RunOnce(ctx context.Context) (int, error) {
	n := 0
	var errs []error
	for _, p := range r.poolsOf() {
		jobs, err := r.Jobs.Claim(ctx, p.kinds, p.slots, p.lease)
		n += len(jobs)
		errs = append(errs, err, r.work(ctx, jobs, p.timeout))
	}
	return n, errors.Join(errs...)
}

// work handles jobs, Concurrency at a time, all within timeout, and
// completes those that succeeded in one statement. The outcomes are
// recorded even when ctx has ended, as handle records the others; until
// then the jobs' leases keep them from other runners.
func (r *Runner) work(ctx context.Context, jobs []store.Job, timeout time.Duration) error {
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sem := make(chan struct{}, r.limit())
	done := make([]bool, len(jobs))
	errs := make([]error, len(jobs), len(jobs)+1)
	var wg sync.WaitGroup
	for i, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			done[i], errs[i] = r.handle(ctx, hctx, j)
		})
	}
	wg.Wait()
	var ids []string
	for i, j := range jobs {
		if done[i] {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) > 0 {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		errs = append(errs, r.Jobs.Complete(rctx, ids...))
	}
	return errors.Join(errs...)
}

// ErrFinished is what a handler returns when it recorded the job's
// outcome itself (completed it in the transaction of its work, or
// rescheduled it).
var ErrFinished = errors.New("job finished by its handler")

// Deferral is a handler's answer when the job is not due yet for a reason
// of its own (a device's quiet hours): it runs again at Until, the
// attempt not counted.
type Deferral struct{ Until time.Time }

func (d *Deferral) Error() string { return "deferred until " + d.Until.Format(time.RFC3339) }

// Permanent marks err as a failure that no retry mends: the job is given
// up at once.
func Permanent(err error) error { return &permanent{err} }

type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

// RetryAfter marks err as a retriable failure after which the job waits
// at least after (as the remote service asked), at most BackoffMax.
func RetryAfter(err error, after time.Duration) error { return &retryLater{err: err, after: after} }

type retryLater struct {
	err   error
	after time.Duration
}

func (e *retryLater) Error() string { return e.err.Error() }
func (e *retryLater) Unwrap() error { return e.err }

// Decode reads a job's payload into v; a payload that does not decode is
// a permanent failure.
func Decode(j store.Job, v any) error {
	if err := json.Unmarshal(j.Payload, v); err != nil {
		return Permanent(fmt.Errorf("payload: %w", err))
	}
	return nil
}

// handle runs the job's handler with hctx (ctx bounded by the attempt's
// deadline, one for the jobs handled together) and records the outcome,
// or returns done when the job succeeded: its caller completes the round's
// jobs together.
// The outcome is recorded even when ctx has ended, so that a notification
// sent is not sent again. Each attempt is a span, in the trace of the
// request that enqueued the job when it had one (telemetry.StartJob).
func (r *Runner) handle(ctx, hctx context.Context, j store.Job) (done bool, _ error) {
	hctx, span := telemetry.StartJob(hctx, j.Kind, j.ID, j.Attempts, j.TraceParent)
	var err error
	defer func() { span.End(err) }()
	if k, ok := r.kinds[j.Kind]; ok {
		err = k.Handle(hctx, j)
	} else {
		err = Permanent(fmt.Errorf("unknown job kind %q", j.Kind))
	}
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrFinished) || errors.Is(err, store.ErrJobDone) {
		err = nil
		return false, nil
	}

	// The outcome's record and log lines go in the attempt's span.
	rctx, cancel := context.WithTimeout(trace.ContextWithSpan(context.WithoutCancel(ctx), trace.SpanFromContext(hctx)), 10*time.Second)
	defer cancel()
	log := r.logger().With("job", j.ID, "kind", j.Kind, "attempt", j.Attempts)
	now := r.Now()
	var d *Deferral
	var p *permanent
	var rl *retryLater
	switch {
	case errors.As(err, &d):
		log.DebugContext(rctx, "worker: job deferred", "until", d.Until)
		err = nil // not a failure: the span ends as a success
		return false, r.Jobs.Defer(rctx, j.ID, d.Until)
	case ctx.Err() != nil:
		// Interrupted at shutdown: not the job's failure.
		log.InfoContext(rctx, "worker: job interrupted; it will run again", "err", err)
		return false, r.Jobs.Defer(rctx, j.ID, now)
	case errors.As(err, &p):
		log.ErrorContext(rctx, "worker: job failed", "err", err)
		return false, r.Jobs.Fail(rctx, j.ID, err.Error())
	case j.Attempts >= orDefault(r.MaxAttempts, DefaultMaxAttempts):
		log.ErrorContext(rctx, "worker: job failed; giving up", "err", err)
		return false, r.Jobs.Fail(rctx, j.ID, err.Error())
	}
	delay := Backoff(j.Attempts)
	if errors.As(err, &rl) {
		delay = max(delay, min(rl.after, BackoffMax))
	}
	log.WarnContext(rctx, "worker: job failed; will retry", "err", err, "in", delay)
	return false, r.Jobs.Retry(rctx, j.ID, now.Add(delay), err.Error())
}
