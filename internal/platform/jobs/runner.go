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

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/ai"
	"github.com/wayfarer-asia/platform/internal/platform/blob"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/push"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Defaults of the Runner's settings.
const (
	DefaultPollInterval  = 2 * time.Second
	DefaultConcurrency   = 8
	DefaultJobTimeout    = 2 * time.Minute
	DefaultLease         = 5 * time.Minute
	DefaultShutdownGrace = 10 * time.Second
	DefaultMaxAttempts   = 8
	// A webhook attempt waits on someone else's server, one at a time per
	// endpoint (store.Jobs.Claim): many may hang at once without costing
	// more than a goroutine and a connection each.
	DefaultWebhookConcurrency = 64
	// DefaultWebhookLease is above an attempt's bound (the client's
	// timeout and the recording of the outcome), so that a delivery whose
	// runner died is sent again within about a minute.
	DefaultWebhookLease = time.Minute
	// An attempt that has not ended after DefaultWebhookSlowAfter leaves
	// its webhook slot for one of DefaultWebhookSlowSlots, so that
	// endpoints that hang, however many accounts own them, leave the
	// slots to the endpoints that answer.
	DefaultWebhookSlowAfter = time.Second
	DefaultWebhookSlowSlots = 256
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

// Guide is what the guide's jobs read and write (guidedb.Guide).
type Guide interface {
	FanOutPushMessage(ctx context.Context, jobID, messageID string) (int, error)
	PushDelivery(ctx context.Context, messageID, token string) (*guidedb.PushDelivery, error)
	ActionPushDelivery(ctx context.Context, actionID, token string) (*guidedb.ActionPush, error)
	DeletePushToken(ctx context.Context, token string) error
	LoadAIReplyContext(ctx context.Context, conversationID, messageID string) (*guidedb.AIReplyContext, error)
	PostAIReply(ctx context.Context, conversationID, messageID, text string) (string, error)
	FindLiveMessage(ctx context.Context, messageID string) (*guidedb.LiveMessage, error)
	MessageRecipient(ctx context.Context, messageID string) (conversationID, recipientID string, err error)
	UnreadCountOf(ctx context.Context, userID string) (int, error)
	FindLiveConversation(ctx context.Context, conversationID, userID string) (*guide.ConversationSummary, error)
}

// Runner works through the guide's jobs: push notifications, AI replies
// and realtime publications. Any number of runners, in one process or many, may share a
// database: each job is claimed by one of them at a time.
type Runner struct {
	Jobs  Queue
	Guide Guide
	Clock clock.Clock // nil: clock.System; give the queue's clock
	// Push delivers notifications; nil logs them (push.LogSender).
	Push push.Sender
	// AI writes the replies of experts with AI auto-reply; nil completes
	// AI jobs without a reply.
	AI *ai.Client
	// Blobs holds files that jobs may remove (a closed account's avatar);
	// nil leaves blob jobs queued.
	Blobs blob.Store
	// Realtime publishes recorded messages, read receipts and unread
	// counts on the realtime channel, and tells who follows a
	// conversation live (no push for them); nil completes realtime jobs
	// without publishing.
	Realtime Publisher
	// PublicURL is the guide API's external base URL, for the absolute
	// image URLs of published messages and the confirmation URL of a
	// pending action's notification.
	PublicURL string
	// Webhooks sends webhook deliveries; nil leaves them queued. Guide nil
	// makes a runner of webhook deliveries only (the property platform's).
	Webhooks *Webhooks
	Logger   *slog.Logger // nil: slog.Default()

	PollInterval  time.Duration // how long Run waits when no job is due
	Concurrency   int           // jobs handled at once other than push notifications and webhooks (AI replies, file removals, late publications)
	JobTimeout    time.Duration // bound of one attempt (webhooks: their client's timeout)
	Lease         time.Duration // how long a claimed job is withheld from other runners; above JobTimeout
	ShutdownGrace time.Duration // how long Run lets jobs in flight finish once stopped
	MaxAttempts   int           // failed attempts after which a job is given up
	// PushConcurrency bounds the push notifications sent at once (0:
	// DefaultConcurrency); they have slots of their own, so that a slow AI
	// model or webhook endpoint never holds them up.
	PushConcurrency int
	// WebhookConcurrency bounds the webhook attempts in flight (0:
	// DefaultWebhookConcurrency), one per endpoint at a time.
	WebhookConcurrency int
	// WebhookLease is the lease of a webhook attempt (0:
	// DefaultWebhookLease), at least its timeout and half a minute.
	WebhookLease time.Duration
	// WebhookSlowAfter and WebhookSlowSlots (0: the defaults): an attempt
	// still running after WebhookSlowAfter moves to one of
	// WebhookSlowSlots, freeing its slot of WebhookConcurrency.
	WebhookSlowAfter time.Duration
	WebhookSlowSlots int

	poolsOnce sync.Once
	pools     []*pool
	laneOnce  sync.Once
	lane      *lane // lane.go
}

// A pool claims and handles the jobs of some kinds on its own, each job
// in a slot that it frees when it ends: a job never waits for another
// pool's, nor for the jobs claimed with it.
type pool struct {
	name    string
	kinds   []string
	slots   int
	timeout time.Duration // of one attempt
	lease   time.Duration
	// keyed jobs (store.Jobs.EnqueueKeyed) run one at a time per key: as
	// one ends, the next of its key may be claimed, so the pool looks
	// again.
	keyed bool
	wake  chan struct{}
	// saturated: the last claim filled every free slot, so more jobs may
	// be due when a slot frees.
	saturated atomic.Bool
	// A job still running after slowAfter (0: never) moves to one of
	// slowSlots, when one is free, and frees its slot.
	slowAfter time.Duration
	slowSlots int
}

// NewRunner returns a runner with the default settings. sender nil logs
// notifications instead of sending them; aiClient nil turns AI replies off.
func NewRunner(jobs Queue, g Guide, c clock.Clock, sender push.Sender, aiClient *ai.Client) *Runner {
	return &Runner{
		Jobs: jobs, Guide: g, Clock: c, Push: sender, AI: aiClient,
		PollInterval: DefaultPollInterval, Concurrency: DefaultConcurrency, JobTimeout: DefaultJobTimeout,
		Lease: DefaultLease, ShutdownGrace: DefaultShutdownGrace, MaxAttempts: DefaultMaxAttempts,
	}
}

// poolsOf returns the runner's pools: push notifications, webhook
// deliveries and the other jobs, each with slots of its own.
func (r *Runner) poolsOf() []*pool {
	r.poolsOnce.Do(func() {
		add := func(p *pool) {
			if len(p.kinds) > 0 {
				p.wake = make(chan struct{}, 1)
				r.pools = append(r.pools, p)
			}
		}
		other := &pool{name: "jobs", slots: r.limit(), timeout: r.jobTimeout(), lease: r.lease()}
		if r.Guide != nil {
			add(&pool{name: "push", kinds: []string{guidedb.JobPushMessage, guidedb.JobPushDevice, guidedb.JobPushAction},
				slots: orDefault(r.PushConcurrency, DefaultConcurrency), timeout: r.jobTimeout(), lease: r.lease()})
			other.kinds = append(other.kinds, guidedb.JobAIReply, guidedb.JobRealtimeMessage, guidedb.JobRealtimeRead, guidedb.JobRealtimeConversation)
		}
		if r.Blobs != nil {
			other.kinds = append(other.kinds, guidedb.JobBlobDelete)
		}
		add(other)
		if r.Webhooks != nil {
			// The attempt is bounded by the client; loading the delivery
			// comes on top (recording its outcome has a bound of its own).
			timeout := r.Webhooks.Client.Timeout() + 5*time.Second
			add(&pool{name: "webhooks", kinds: []string{store.JobWebhookDeliver}, keyed: true,
				slots: orDefault(r.WebhookConcurrency, DefaultWebhookConcurrency), timeout: timeout,
				lease:     max(orDefault(r.WebhookLease, DefaultWebhookLease), timeout+30*time.Second),
				slowAfter: orDefault(r.WebhookSlowAfter, DefaultWebhookSlowAfter), slowSlots: orDefault(r.WebhookSlowSlots, DefaultWebhookSlowSlots)})
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

func (r *Runner) now() time.Time {
	if r.Clock != nil {
		return r.Clock.Now()
	}
	return clock.System{}.Now()
}

func (r *Runner) sender() push.Sender {
	if r.Push != nil {
		return r.Push
	}
	return push.LogSender{Logger: r.Logger}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (r *Runner) jobTimeout() time.Duration { return orDefault(r.JobTimeout, DefaultJobTimeout) }

// limit is how many jobs a round claims.
func (r *Runner) limit() int { return orDefault(r.Concurrency, DefaultConcurrency) }

func (r *Runner) lease() time.Duration {
	// A lease that ran out while the job is still being handled would let
	// a second runner take it.
	return max(orDefault(r.Lease, DefaultLease), r.jobTimeout()+time.Minute)
}

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
		if p.keyed || p.saturated.Load() {
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

// Outcomes of a handler other than success (nil) and a retriable failure.
var errFinished = errors.New("job finished by its handler")

type deferral struct{ until time.Time }

func (d *deferral) Error() string { return "deferred until " + d.until.Format(time.RFC3339) }

type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

type retryLater struct {
	err   error
	after time.Duration // at least this long, as the remote service asked
}

func (e *retryLater) Error() string { return e.err.Error() }
func (e *retryLater) Unwrap() error { return e.err }

// decode reads a job's payload; a payload that does not decode is a
// permanent failure.
func decode(j store.Job, v any) error {
	if err := json.Unmarshal(j.Payload, v); err != nil {
		return &permanent{fmt.Errorf("payload: %w", err)}
	}
	return nil
}

// handle runs the job's handler with hctx (ctx bounded by the attempt's
// deadline, one for the jobs handled together) and records the outcome,
// or returns done when the job succeeded: its caller completes the round's
// jobs together.
// The outcome is recorded even when ctx has ended, so that a notification
// sent is not sent again.
func (r *Runner) handle(ctx, hctx context.Context, j store.Job) (done bool, _ error) {
	var err error
	switch j.Kind {
	case guidedb.JobPushMessage:
		err = r.fanOut(hctx, j)
	case guidedb.JobPushDevice:
		err = r.deliver(hctx, j)
	case guidedb.JobPushAction:
		err = r.deliverAction(hctx, j)
	case guidedb.JobAIReply:
		err = r.aiReply(hctx, j)
	case guidedb.JobBlobDelete:
		err = r.deleteBlob(hctx, j)
	case guidedb.JobRealtimeMessage:
		err = r.publishMessage(hctx, j)
	case guidedb.JobRealtimeRead:
		err = r.publishRead(hctx, j)
	case guidedb.JobRealtimeConversation:
		err = r.publishConversation(hctx, j)
	case store.JobWebhookDeliver:
		err = r.deliverWebhook(hctx, j)
	default:
		err = &permanent{fmt.Errorf("unknown job kind %q", j.Kind)}
	}
	if err == nil {
		return true, nil
	}
	if errors.Is(err, errFinished) || errors.Is(err, store.ErrJobDone) {
		return false, nil
	}

	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	log := r.logger().With("job", j.ID, "kind", j.Kind, "attempt", j.Attempts)
	now := r.now()
	var d *deferral
	var p *permanent
	var rl *retryLater
	switch {
	case errors.As(err, &d):
		log.DebugContext(rctx, "worker: job deferred", "until", d.until)
		return false, r.Jobs.Defer(rctx, j.ID, d.until)
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

// deleteBlob removes a file no longer referenced. A missing file is done.
func (r *Runner) deleteBlob(ctx context.Context, j store.Job) error {
	var p struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Key == "" {
		return &permanent{fmt.Errorf("blob.delete payload %s: %v", j.Payload, err)}
	}
	return r.Blobs.Delete(ctx, p.Key)
}
