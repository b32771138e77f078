// Package fleet_test is the load driver of the fleet test (run.sh beside
// it): it sends keyed writes and reads through the load balancer while the
// script restarts, kills and disturbs the replicas behind it, then checks
// the databases. It runs only when run.sh sets FLEET_GUIDE_URL.
package fleet_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The phases run.sh writes, one per line, into FLEET_PHASE_FILE: each
// attempt is counted in the phase in force when it started.
const (
	phaseWarmup   = "warmup"   // three replicas up
	phaseRoll     = "roll"     // each replica in turn: SIGTERM, exit, start, ready
	phaseKill     = "kill"     // one replica SIGKILLed, then started again
	phasePostgres = "postgres" // PostgreSQL restarting (pg_ctl restart -m fast)
	phaseRecover  = "recover"  // PostgreSQL is back; no replica is restarted
	phaseRedis    = "redis"    // Redis stopped, then started again
	phaseDone     = "done"     // stop the load and check
)

// recoveryBound is how long after PostgreSQL is back the fleet may still
// fail requests.
const recoveryBound = 15 * time.Second

// retryFor is how long a client keeps retrying a keyed write with its key:
// longer than an Idempotency-Key's lease (6 s) held by a killed replica.
const retryFor = 45 * time.Second

type attempt struct {
	phase  string
	at     time.Time
	what   string
	status int
	err    string
}

func (a attempt) failed() bool { return a.err != "" }

type driver struct {
	t        *testing.T
	guide    string
	property string
	client   *http.Client

	phase   atomic.Value // string
	phaseAt sync.Map     // phase → time it began

	mu       sync.Mutex
	attempts []attempt
	// keyed writes: key → id answered 2xx (guide and property), and the
	// keys whose client gave up.
	guideAcked    map[string]string
	propertyAcked map[string]string
	propertySold  int // keys answered 409: the stay was sold out
	gaveUp        []string
	retried       int
}

func TestFleet(t *testing.T) {
	guideURL := os.Getenv("FLEET_GUIDE_URL")
	if guideURL == "" {
		t.Skip("run by e2e/fleet/run.sh (needs FLEET_GUIDE_URL, FLEET_PROPERTY_URL, FLEET_PHASE_FILE, FLEET_GUIDE_DB, FLEET_PROPERTY_DB)")
	}
	d := &driver{t: t, guide: guideURL, property: os.Getenv("FLEET_PROPERTY_URL"),
		client:     &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}},
		guideAcked: map[string]string{}, propertyAcked: map[string]string{}}
	d.phase.Store(phaseWarmup)
	d.phaseAt.Store(phaseWarmup, time.Now())
	phaseFile := os.Getenv("FLEET_PHASE_FILE")
	password := os.Getenv("FLEET_DEMO_PASSWORD")

	// Setup, before the script disturbs anything.
	status, login := d.call("POST", d.guide+"/api/v1/auth/login", "", "", map[string]string{"email": "traveller@example.com", "password": password})
	if status != 200 {
		t.Fatalf("login as the demo traveller: %d %v", status, login)
	}
	token := login["token"].(string)
	status, expert := d.call("GET", d.guide+"/api/v1/experts/demo-expert", "", "", nil)
	if status != 200 {
		t.Fatalf("demo expert: %d %v", status, expert)
	}
	expertID := expert["data"].(map[string]any)["id"].(string)
	status, signup := d.call("POST", d.property+"/portal/api/signup", "", "", map[string]string{"email": "fleet-" + randomHex(4) + "@example.com", "password": "a-long-password", "name": "Fleet"})
	if status != 201 && status != 200 {
		t.Fatalf("portal signup: %d %v", status, signup)
	}
	status, created := d.call("POST", d.property+"/portal/api/keys", signup["token"].(string), "", map[string]any{"name": "fleet", "mode": "live"})
	if status != 201 {
		t.Fatalf("portal key: %d %v", status, created)
	}
	key := created["key"].(string)
	stays := d.findStays(key)
	if len(stays) == 0 {
		t.Fatal("no bookable one-night stay found in Tokyo next month")
	}
	t.Logf("load: 3 guide writers, 1 property writer over %d stays, 3 readers", len(stays))

	// The load, until the script says done.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	when := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Hour).Format(time.RFC3339)
	for range 3 {
		wg.Go(func() {
			for !stopped(stop) {
				k := "fleet-" + randomHex(8)
				d.keyedWrite("guide booking", d.guide+"/api/v1/bookings", token, k,
					map[string]any{"expertId": expertID, "scheduledDate": when, "customRequest": "fleet:" + k}, d.guideAcked)
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Go(func() {
		for i := 0; !stopped(stop); i++ {
			s := stays[i%len(stays)]
			k := "fleet-" + randomHex(8)
			d.keyedWrite("property booking", d.property+"/api/v1/bookings", key, k, map[string]any{
				"propertyId": s.property, "roomTypeId": s.roomType, "checkIn": s.checkIn, "checkOut": s.checkOut, "guests": 1,
				"externalReference": k, "guest": map[string]any{"firstName": "Fleet", "lastName": "Test", "email": "fleet@example.com"}}, d.propertyAcked)
			time.Sleep(20 * time.Millisecond)
		}
	})
	reads := []struct{ what, url, cred string }{
		{"guide experts", d.guide + "/api/v1/experts?pageSize=5", ""},
		{"guide my bookings", d.guide + "/api/v1/bookings?pageSize=5", token},
		{"property search", d.property + "/api/v1/properties?city=tokyo&pageSize=5", key},
	}
	for _, r := range reads {
		wg.Go(func() {
			for !stopped(stop) {
				d.read(r.what, r.url, r.cred)
				time.Sleep(10 * time.Millisecond)
			}
		})
	}

	// Follow the script's phases.
	deadline := time.Now().Add(5 * time.Minute)
	for d.phase.Load() != phaseDone {
		if time.Now().After(deadline) {
			close(stop)
			t.Fatal("run.sh never wrote the phase done")
		}
		if b, err := os.ReadFile(phaseFile); err == nil {
			lines := strings.Fields(string(b))
			if n := len(lines); n > 0 && lines[n-1] != d.phase.Load() {
				d.phaseAt.LoadOrStore(lines[n-1], time.Now())
				d.phase.Store(lines[n-1])
				t.Logf("%s phase: %s", time.Now().Format("15:04:05.000"), lines[n-1])
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	d.report()
	d.checkDatabases(os.Getenv("FLEET_GUIDE_DB"), os.Getenv("FLEET_PROPERTY_DB"))
}

func stopped(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// keyedWrite sends one create with an Idempotency-Key and, like a real
// client, sends it again with the same key after a failure, an answer
// that says to retry (5xx, 429, 409 IDEMPOTENCY_IN_PROGRESS), or none.
func (d *driver) keyedWrite(what, u, cred, key string, body map[string]any, acked map[string]string) {
	first := time.Now()
	var ids []string
	for n := 0; ; n++ {
		if n > 0 {
			d.mu.Lock()
			d.retried++
			d.mu.Unlock()
		}
		a := attempt{phase: d.phase.Load().(string), at: time.Now(), what: what}
		status, res, retryAfter, err := d.do("POST", u, cred, key, body)
		a.status = status
		switch {
		case err != nil:
			a.err = err.Error()
		case status == 201:
			ids = append(ids, id(res))
		case status == 409 && code(res) == "IDEMPOTENCY_IN_PROGRESS":
			a.err = "409 IDEMPOTENCY_IN_PROGRESS"
		case status == 409 && what == "property booking":
			// The stay is sold out: a final answer, not a failure.
			ids = append(ids, "")
		default:
			a.err = fmt.Sprintf("%d %s", status, code(res))
		}
		d.record(a)
		if len(ids) > 0 {
			d.mu.Lock()
			if ids[0] == "" {
				d.propertySold++
			} else {
				acked[key] = ids[0]
			}
			d.mu.Unlock()
			return
		}
		retriable := err != nil || status >= 500 || status == 429 || status == 409
		if !retriable || time.Since(first) > retryFor {
			d.mu.Lock()
			d.gaveUp = append(d.gaveUp, key)
			d.mu.Unlock()
			return
		}
		wait := 200 * time.Millisecond
		if retryAfter > 0 {
			wait = min(time.Duration(retryAfter)*time.Second, time.Second)
		}
		time.Sleep(wait)
	}
}

func (d *driver) read(what, u, cred string) {
	a := attempt{phase: d.phase.Load().(string), at: time.Now(), what: what}
	status, res, _, err := d.do("GET", u, cred, "", nil)
	a.status = status
	if err != nil {
		a.err = err.Error()
	} else if status != 200 {
		a.err = fmt.Sprintf("%d %s", status, code(res))
	}
	d.record(a)
}

func (d *driver) record(a attempt) {
	d.mu.Lock()
	d.attempts = append(d.attempts, a)
	d.mu.Unlock()
}

func (d *driver) call(method, u, cred, key string, body any) (int, map[string]any) {
	status, res, _, err := d.do(method, u, cred, key, body)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, u, err)
	}
	return status, res
}

func (d *driver) do(method, u, cred, key string, body any) (int, map[string]any, int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := d.client.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer res.Body.Close()
	var out map[string]any
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, nil, 0, fmt.Errorf("reading the answer: %w", err)
	}
	json.Unmarshal(raw, &out)
	retryAfter, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	return res.StatusCode, out, retryAfter, nil
}

// id is the id of a created resource: wrapped in data on the guide API,
// bare on the property API.
func id(res map[string]any) string {
	if data, ok := res["data"].(map[string]any); ok {
		res = data
	}
	s, _ := res["id"].(string)
	return s
}

func code(res map[string]any) string {
	if e, ok := res["error"].(map[string]any); ok {
		s, _ := e["code"].(string)
		return s
	}
	return ""
}

type stay struct{ property, roomType, checkIn, checkOut string }

// findStays lists one-night stays next month with units left, so that the
// property bookings mostly succeed.
func (d *driver) findStays(key string) []stay {
	from := time.Now().UTC().AddDate(0, 1, 0)
	_, list := d.call("GET", d.property+"/api/v1/properties?city=tokyo&pageSize=20", key, "", nil)
	items, _ := list["data"].([]any)
	var out []stay
	for _, item := range items {
		pid := item.(map[string]any)["id"].(string)
		q := url.Values{"from": {from.Format("2006-01-02")}, "to": {from.AddDate(0, 0, 20).Format("2006-01-02")}}
		_, av := d.call("GET", d.property+"/api/v1/properties/"+pid+"/availability?"+q.Encode(), key, "", nil)
		rts, _ := av["roomTypes"].([]any)
		for _, rt := range rts {
			nights := rt.(map[string]any)["nights"].([]any)
			for i := 0; i+1 < len(nights); i++ {
				n, next := nights[i].(map[string]any), nights[i+1].(map[string]any)
				if n["availableUnits"].(float64) >= 1 && n["minStay"].(float64) == 1 && n["closed"] == false &&
					n["closedToArrival"] == false && next["closedToDeparture"] == false {
					out = append(out, stay{pid, rt.(map[string]any)["roomTypeId"].(string), n["date"].(string), next["date"].(string)})
				}
			}
		}
	}
	return out
}

// report prints the attempts per phase and asserts what the phases
// promise: no failure during the rolling restart, and recovery within
// recoveryBound once PostgreSQL is back.
func (d *driver) report() {
	t := d.t
	type count struct{ total, failed int }
	per := map[string]*count{}
	failures := map[string][]attempt{}
	for _, a := range d.attempts {
		c := per[a.phase]
		if c == nil {
			c = &count{}
			per[a.phase] = c
		}
		c.total++
		if a.failed() {
			c.failed++
			failures[a.phase] = append(failures[a.phase], a)
		}
	}
	t.Log("phase      attempts  failed")
	for _, p := range []string{phaseWarmup, phaseRoll, phaseKill, phasePostgres, phaseRecover, phaseRedis} {
		c := per[p]
		if c == nil {
			c = &count{}
		}
		t.Logf("%-9s %9d %7d", p, c.total, c.failed)
		for i, a := range failures[p] {
			if i == 5 {
				t.Logf("          … %d more", len(failures[p])-5)
				break
			}
			t.Logf("          %s %s: %s", a.at.Format("15:04:05.000"), a.what, a.err)
		}
	}
	t.Logf("keyed writes: %d guide bookings and %d property bookings acknowledged, %d property stays sold out (409), %d retries with the same key, %d keys given up",
		len(d.guideAcked), len(d.propertyAcked), d.propertySold, d.retried, len(d.gaveUp))

	for _, p := range []string{phaseWarmup, phaseRoll, phaseKill, phasePostgres, phaseRecover, phaseRedis} {
		if per[p] == nil || per[p].total == 0 {
			t.Errorf("no request was sent in the %s phase", p)
		}
	}
	if c := per[phaseRoll]; c != nil && c.failed > 0 {
		t.Errorf("%d of %d requests failed during the rolling restart; want 0", c.failed, c.total)
	}
	// Without Redis every replica keeps serving, with limits counted per
	// replica.
	if c := per[phaseRedis]; c != nil && c.failed > 0 {
		t.Errorf("%d of %d requests failed while Redis was down; want 0", c.failed, c.total)
	}
	if len(d.gaveUp) > 0 {
		t.Errorf("%d keyed writes were never acknowledged within %s of retries: %v", len(d.gaveUp), retryFor, d.gaveUp[:min(5, len(d.gaveUp))])
	}
	// Recovery: from PostgreSQL back to the last failure.
	back, ok := d.phaseAt.Load(phaseRecover)
	if !ok {
		t.Error("no recover phase")
		return
	}
	var last time.Time
	succeeded := 0
	for _, a := range d.attempts {
		if a.phase != phasePostgres && a.phase != phaseRecover {
			continue
		}
		if a.failed() && a.at.After(last) {
			last = a.at
		}
	}
	for _, a := range d.attempts {
		if a.phase == phaseRecover && !a.failed() && a.at.After(last) {
			succeeded++
		}
	}
	recovered := max(last.Sub(back.(time.Time)), 0)
	t.Logf("recovery: last failed request %s after PostgreSQL was back; %d requests succeeded after it, no replica restarted",
		recovered.Round(time.Millisecond), succeeded)
	if recovered > recoveryBound {
		t.Errorf("requests still failed %s after PostgreSQL was back; want within %s", recovered, recoveryBound)
	}
	if succeeded < 20 {
		t.Errorf("only %d requests succeeded after the recovery", succeeded)
	}
}

// checkDatabases asserts that every acknowledged booking is stored and
// that no Idempotency-Key ran twice: each key is in one booking at most.
func (d *driver) checkDatabases(guideDB, propertyDB string) {
	t := d.t
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(name, dsn, query, prefix string, acked map[string]string) {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer rows.Close()
		stored := map[string][]string{} // key → booking ids
		for rows.Next() {
			var bid, ref string
			if err := rows.Scan(&bid, &ref); err != nil {
				t.Fatal(err)
			}
			k := strings.TrimPrefix(ref, prefix)
			stored[k] = append(stored[k], bid)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		var lost, twice []string
		for k, bid := range acked {
			if ids := stored[k]; len(ids) != 1 || ids[0] != bid {
				lost = append(lost, fmt.Sprintf("%s→%s (stored %v)", k, bid, ids))
			}
		}
		for k, ids := range stored {
			if len(ids) > 1 {
				twice = append(twice, fmt.Sprintf("%s: %v", k, ids))
			}
		}
		sort.Strings(lost)
		sort.Strings(twice)
		t.Logf("%s: %d acknowledged, %d stored with a fleet key, %d lost, %d keys executed twice", name, len(acked), len(stored), len(lost), len(twice))
		if len(lost) > 0 {
			t.Errorf("%s: %d acknowledged bookings are not stored as answered: %v", name, len(lost), lost[:min(5, len(lost))])
		}
		if len(twice) > 0 {
			t.Errorf("%s: %d Idempotency-Keys created more than one booking: %v", name, len(twice), twice[:min(5, len(twice))])
		}
	}
	check("guide", guideDB, `SELECT id, custom_request FROM bookings WHERE custom_request LIKE 'fleet:%'`, "fleet:", d.guideAcked)
	check("property", propertyDB, `SELECT id, external_reference FROM bookings WHERE external_reference LIKE 'fleet-%'`, "", d.propertyAcked)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
