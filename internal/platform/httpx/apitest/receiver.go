package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Receiver is a webhook endpoint for tests: it verifies every delivery's
// signature with the Standard Webhooks reference library (not the
// project's own code), deduplicates by webhook-id as a receiver should,
// and answers what the test scripts.
type Receiver struct {
	URL string

	tb      testing.TB
	mu      sync.Mutex
	secrets []string
	answers []Answer // scripted answers, used in turn; then 200
	got     []Delivery
	seen    map[string]bool
}

// Answer is a scripted answer of a Receiver.
type Answer struct {
	Status     int
	RetryAfter string
}

// Delivery is a request a Receiver took.
type Delivery struct {
	ID         string // webhook-id
	Timestamp  string
	Signatures []string
	Type       string
	Body       map[string]any
	Duplicate  bool // a webhook-id seen before
	Verified   []bool
	Status     int // what the receiver answered
	// TraceParent is the delivery's W3C traceparent header; "" when it
	// had none (tracing off).
	TraceParent string
}

// NewReceiver starts a receiver on 127.0.0.1.
func NewReceiver(tb testing.TB) *Receiver {
	rc := &Receiver{tb: tb, seen: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(rc.serve))
	tb.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hooks"
	return rc
}

// SetSecrets sets the secrets to verify with; each delivery records, per
// secret, whether one of its signatures verifies with it.
func (rc *Receiver) SetSecrets(secrets ...string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secrets = secrets
}

// Script queues answers for the next deliveries.
func (rc *Receiver) Script(answers ...Answer) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.answers = append(rc.answers, answers...)
}

// Deliveries returns what the receiver took so far.
func (rc *Receiver) Deliveries() []Delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// Unique returns the ids of the deliveries processed (the first of each
// webhook-id, answered 2xx), in arrival order.
func (rc *Receiver) Unique() []Delivery {
	var out []Delivery
	for _, d := range rc.Deliveries() {
		if !d.Duplicate && d.Status < 300 {
			out = append(out, d)
		}
	}
	return out
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d := Delivery{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
		Signatures: strings.Fields(r.Header.Get("webhook-signature")), TraceParent: r.Header.Get("traceparent")}
	for _, s := range rc.secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			rc.tb.Errorf("receiver: secret %q: %v", s, err)
			continue
		}
		// The deliveries carry the test clock's time, not the wall clock's.
		d.Verified = append(d.Verified, wh.VerifyIgnoringTimestamp(body, r.Header) == nil)
	}
	if err := json.Unmarshal(body, &d.Body); err != nil {
		rc.tb.Errorf("receiver: body is not JSON: %s", body)
	}
	d.Type, _ = d.Body["type"].(string)
	d.Status = http.StatusOK
	if len(rc.answers) > 0 {
		a := rc.answers[0]
		rc.answers = rc.answers[1:]
		d.Status = a.Status
		if a.RetryAfter != "" {
			w.Header().Set("Retry-After", a.RetryAfter)
		}
	}
	verified := slices.Contains(d.Verified, true)
	if !verified {
		d.Status = http.StatusUnauthorized
	}
	if d.Status < 300 {
		d.Duplicate = rc.seen[d.ID]
		rc.seen[d.ID] = true
	}
	rc.got = append(rc.got, d)
	w.WriteHeader(d.Status)
}
