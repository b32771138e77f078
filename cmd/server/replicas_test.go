package main_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// TestReplicas runs three server processes on one PostgreSQL and one
// Redis, as a deployment behind a load balancer would, and checks what
// must hold across them: one rate limit, no overselling, a pending action
// confirmed on the other replica, a notification delivered once.
func TestReplicas(t *testing.T) {
	t.Parallel()
	pgURL, redisURL := os.Getenv("TEST_POSTGRES_URL"), os.Getenv("TEST_REDIS_URL")
	if pgURL == "" || redisURL == "" {
		t.Skip("needs TEST_POSTGRES_URL and TEST_REDIS_URL")
	}
	bin := build(t)
	guideURL, propertyURL := freshSchema(t, pgURL), freshSchema(t, pgURL)

	var pushes sync.Map // device token → deliveries
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Message struct{ Token string } `json:"message"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		n, _ := pushes.LoadOrStore(body.Message.Token, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		io.WriteString(w, `{"name":"projects/test/messages/1"}`)
	}))
	defer gateway.Close()

	avatars := t.TempDir()
	replica := func() *process {
		p := newProcess(t, bin)
		p.env = append(p.env, "GUIDE_DATABASE_URL="+guideURL, "PROPERTY_DATABASE_URL="+propertyURL, "REDIS_URL="+redisURL,
			"PUSH_GATEWAY_URL="+gateway.URL, "AVATAR_DIR="+avatars, "PROPERTY_RATE_LIMIT=100000",
			"PORTAL_JWT_SECRET=replica-portal-secret-replica-portal!")
		return p
	}
	// Started together on empty databases, as a fleet starts: one replica
	// migrates and loads the sample data, the others wait for it and find
	// it there (before the migration lock, two of three exited on
	// duplicate keys).
	a, b, c := replica(), replica(), replica()
	for _, p := range []*process{a, b, c} {
		p.launch()
		defer stop(p)
	}
	for _, p := range []*process{a, b, c} {
		p.waitFor("/readyz")
	}
	both := []*process{a, b}

	_, login := a.call("POST", "/api/v1/auth/login", "", map[string]string{"email": "traveller@example.com", "password": "demo-password-1"})
	token := login["token"].(string)

	t.Run("one rate limit across replicas", func(t *testing.T) {
		const limit = 10
		_, created := b.call("POST", "/api/v1/auth/api-keys", token, map[string]any{"name": "replica test", "scopes": []string{"bookings:read"}, "rateLimit": limit})
		key := created["data"].(map[string]any)["key"].(string)
		start := time.Now()
		ok := 0
		for i := range 3 * limit {
			if status, _ := both[i%2].call("GET", "/api/v1/bookings", key, nil); status == 200 {
				ok++
			}
		}
		// GCRA refills one request every 60/limit seconds.
		allowed := limit + int(time.Since(start)/(time.Minute/limit))
		if ok > allowed || ok < limit {
			t.Errorf("%d of %d requests succeeded across two replicas; the key allows %d", ok, 3*limit, allowed)
		}
	})

	t.Run("a pending action confirmed on the other replica", func(t *testing.T) {
		_, created := a.call("POST", "/api/v1/auth/api-keys", token, map[string]any{"name": "agent", "scopes": []string{"bookings:write"}})
		key := created["data"].(map[string]any)["key"].(string)
		_, expert := a.call("GET", "/api/v1/experts/demo-expert", "", nil)
		_, booking := a.call("POST", "/api/v1/bookings", key, map[string]any{"expertId": expert["data"].(map[string]any)["id"],
			"scheduledDate": time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)})
		id := booking["data"].(map[string]any)["id"].(string)
		status, pending := a.call("POST", "/api/v1/bookings/"+id+"/cancel", key, nil)
		if status != 202 {
			t.Fatalf("cancel by key: %d %v", status, pending)
		}
		status, confirmed := b.call("POST", "/api/v1/actions/"+pending["actionId"].(string)+"/confirm", token, nil)
		if status != 200 || confirmed["data"].(map[string]any)["result"].(map[string]any)["status"] != "CANCELLED" {
			t.Fatalf("confirm on the other replica: %d %v", status, confirmed)
		}
		if _, d := a.call("GET", "/api/v1/bookings/"+id, token, nil); d["data"].(map[string]any)["status"] != "CANCELLED" {
			t.Errorf("booking after confirmation: %v", d)
		}
	})

	t.Run("a notification delivered once", func(t *testing.T) {
		_, expertLogin := a.call("POST", "/api/v1/auth/login", "", map[string]string{"email": "expert@example.com", "password": "demo-password-1"})
		expertToken := expertLogin["token"].(string)
		device := "device-" + randomHex(4)
		if status, body := b.call("POST", "/api/push/register", expertToken, map[string]any{"token": device, "platform": "ANDROID", "deviceLocale": "ja-JP"}); status != 200 {
			t.Fatalf("register: %d %v", status, body)
		}
		_, conv := a.call("POST", "/api/v1/conversations", token, map[string]string{"expertHandle": "demo-expert"})
		convID := conv["data"].(map[string]any)["id"].(string)
		if status, _ := a.call("POST", "/api/v1/conversations/"+convID+"/messages", token, map[string]any{"content": "Hello from replica A"}); status != 201 {
			t.Fatal("send failed")
		}
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if n, ok := pushes.Load(device); ok && n.(*atomic.Int32).Load() > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(5 * time.Second) // both runners poll every 2 s: give a duplicate time to show
		n, _ := pushes.Load(device)
		if n == nil || n.(*atomic.Int32).Load() != 1 {
			t.Errorf("device notified %v times, want 1", n)
		}
	})

	t.Run("the last unit sold once across replicas", func(t *testing.T) {
		pa, pb := property(a), property(b)
		_, signup := pa.call("POST", "/portal/api/signup", "", map[string]string{"email": "replica@example.com", "password": "a-long-password", "name": "Replica"})
		portal := signup["token"].(string)
		_, created := pb.call("POST", "/portal/api/keys", portal, map[string]any{"name": "race", "mode": "live"})
		key := created["key"].(string)

		stay := findStay(t, pa, key)
		book := func(p *process) int {
			status, res := p.call("POST", "/api/v1/bookings", key, map[string]any{"propertyId": stay.property, "roomTypeId": stay.roomType,
				"checkIn": stay.checkIn, "checkOut": stay.checkOut, "guests": 1,
				"guest": map[string]any{"firstName": "Race", "lastName": "Test", "email": "race@example.com"}})
			if status != 201 && status != 409 {
				t.Logf("booking: %d %v", status, res)
			}
			return status
		}
		for range stay.units - 1 {
			if status := book(pa); status != 201 {
				t.Fatalf("filling the night: %d", status)
			}
		}
		var wg sync.WaitGroup
		var created201, conflict409, other atomic.Int32
		startGate := make(chan struct{})
		for i := range 50 {
			wg.Go(func() {
				<-startGate
				switch book([]*process{pa, pb}[i%2]) {
				case 201:
					created201.Add(1)
				case 409:
					conflict409.Add(1)
				default:
					other.Add(1)
				}
			})
		}
		close(startGate)
		wg.Wait()
		if created201.Load() != 1 || conflict409.Load() != 49 {
			t.Errorf("50 requests for the last unit across two replicas: %d created, %d conflicts, %d other", created201.Load(), conflict409.Load(), other.Load())
		}
	})
}

func stop(p *process) {
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()
}

// property returns a view of p that calls its property API.
func property(p *process) *process {
	q := &process{t: p.t}
	for _, kv := range p.env {
		if addr, ok := strings.CutPrefix(kv, "PROPERTY_ADDR="); ok {
			q.base = "http://" + addr
		}
	}
	return q
}

type stayChoice struct {
	property, roomType, checkIn, checkOut string
	units                                 int
}

// findStay finds a one-night stay next month that can be booked, and how
// many units are left for it.
func findStay(t *testing.T, p *process, key string) stayChoice {
	t.Helper()
	from := time.Now().UTC().AddDate(0, 1, 0)
	_, list := p.call("GET", "/api/v1/properties?city=tokyo&pageSize=20", key, nil)
	for _, item := range list["data"].([]any) {
		id := item.(map[string]any)["id"].(string)
		q := url.Values{"from": {from.Format("2006-01-02")}, "to": {from.AddDate(0, 0, 20).Format("2006-01-02")}}
		_, av := p.call("GET", "/api/v1/properties/"+id+"/availability?"+q.Encode(), key, nil)
		rts, _ := av["roomTypes"].([]any)
		for _, rt := range rts {
			nights := rt.(map[string]any)["nights"].([]any)
			for i := 0; i+1 < len(nights); i++ {
				n, next := nights[i].(map[string]any), nights[i+1].(map[string]any)
				units := int(n["availableUnits"].(float64))
				if units >= 1 && units <= 8 && n["minStay"].(float64) == 1 && n["closed"] == false && n["closedToArrival"] == false && next["closedToDeparture"] == false {
					return stayChoice{property: id, roomType: rt.(map[string]any)["roomTypeId"].(string),
						checkIn: n["date"].(string), checkOut: next["date"].(string), units: units}
				}
			}
		}
	}
	t.Fatal("no bookable one-night stay found in Tokyo next month")
	return stayChoice{}
}

// freshSchema creates a schema for one test run and returns a URL that
// uses it; it is dropped afterwards.
func freshSchema(t *testing.T, base string) string {
	t.Helper()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	schema := "replica_" + randomHex(6)
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
