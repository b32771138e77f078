package main_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// keyedCall is one request sent with an Idempotency-Key during the load.
type keyedCall struct {
	api, path, token, key string
	body                  map[string]any
	ackedID               string // the booking id of a 2xx answer, if one arrived
}

// send posts the call; it answers the status and the booking id of a 2xx.
func (c *keyedCall) send(base string) (int, string, string) {
	b, _ := json.Marshal(c.body)
	req, _ := http.NewRequest("POST", base+c.path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Idempotency-Key", c.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", ""
	}
	defer res.Body.Close()
	var out struct {
		ID    string
		Data  struct{ ID string }
		Error struct{ Code string }
	}
	json.NewDecoder(res.Body).Decode(&out)
	id := out.ID
	if id == "" {
		id = out.Data.ID
	}
	return res.StatusCode, id, out.Error.Code
}

// TestIdempotentRetryAfterCrash kills the real binary with SIGKILL under a
// load of bookings sent with Idempotency-Keys (guide and property), three
// times, restarts it, waits past the keys' lock time and retries every key
// sent — answered or still in flight at the kill. Every key ends with at
// most one booking; an answered key's retry replays its booking; a retry
// answered 201 names the one booking of its key. On SQLite, and on
// PostgreSQL when TEST_POSTGRES_URL is set.
func TestIdempotentRetryAfterCrash(t *testing.T) {
	t.Parallel()
	bin := build(t)
	engines := []string{"sqlite"}
	if os.Getenv("TEST_POSTGRES_URL") != "" {
		engines = append(engines, "postgres")
	}
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			p := newProcess(t, bin)
			guideDSN, propertyDSN := "file:"+filepath.Join(p.dir, "guide.db"), "file:"+filepath.Join(p.dir, "property.db")
			driver := "sqlite"
			if engine == "postgres" {
				pg := os.Getenv("TEST_POSTGRES_URL")
				guideDSN, propertyDSN, driver = freshSchema(t, pg), freshSchema(t, pg), "pgx"
				p.env = append(p.env, "GUIDE_DATABASE_URL="+guideDSN, "PROPERTY_DATABASE_URL="+propertyDSN)
			}
			p.env = append(p.env, "IDEMPOTENCY_LOCK_TTL=1s", "PROPERTY_RATE_LIMIT=1000000")
			p.start()
			pp := property(p)

			_, login := p.call("POST", "/api/v1/auth/login", "", map[string]string{"email": "traveller@example.com", "password": "demo-password-1"})
			token := login["token"].(string)
			_, expert := p.call("GET", "/api/v1/experts/demo-expert", "", nil)
			expertID := expert["data"].(map[string]any)["id"].(string)
			_, signup := pp.call("POST", "/portal/api/signup", "", map[string]string{"email": "crash@example.com", "password": "a-long-password", "name": "Crash"})
			_, created := pp.call("POST", "/portal/api/keys", signup["token"].(string), map[string]any{"name": "crash", "mode": "live"})
			key := created["key"].(string)
			stays := roomTypes(t, pp, key)

			var mu sync.Mutex
			var calls []*keyedCall
			for round := range 3 {
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				for w := range 4 {
					wg.Go(func() {
						for i := 0; ctx.Err() == nil; i++ {
							id := fmt.Sprintf("crash-%d-%d-%d", round, w, i)
							c := &keyedCall{key: id, path: "/api/v1/bookings"}
							if w%2 == 0 {
								c.api, c.token = p.base, token
								c.body = map[string]any{"expertId": expertID, "customRequest": id,
									"scheduledDate": time.Now().Add(time.Duration(48+i) * time.Hour).UTC().Format(time.RFC3339)}
							} else {
								s := stays[i%len(stays)]
								in := time.Now().UTC().AddDate(0, 0, 7+(i/len(stays))%300)
								c.api, c.token = pp.base, key
								c.body = map[string]any{"propertyId": s[0], "roomTypeId": s[1], "checkIn": in.Format("2006-01-02"),
									"checkOut": in.AddDate(0, 0, 1).Format("2006-01-02"), "guests": 1, "externalReference": id,
									"guest": map[string]any{"firstName": "Crash", "lastName": "Test", "email": "crash@example.com"}}
							}
							mu.Lock()
							calls = append(calls, c)
							mu.Unlock()
							if status, bookingID, _ := c.send(c.api); status == 201 {
								mu.Lock()
								c.ackedID = bookingID
								mu.Unlock()
							}
						}
					})
				}
				time.Sleep(time.Duration(400+200*round) * time.Millisecond)
				p.cmd.Process.Signal(syscall.SIGKILL)
				p.cmd.Wait()
				cancel()
				wg.Wait()
				p.start()
			}
			// Past the lock time, retry every key once, as a client would.
			time.Sleep(1500 * time.Millisecond)
			retried := make([]string, len(calls))
			var failures sync.Map
			var wg sync.WaitGroup
			work := make(chan int)
			for range 8 {
				wg.Go(func() {
					for i := range work {
						c := calls[i]
						status, id, code := c.send(c.api)
						switch {
						case status == 201:
							retried[i] = id
						case status == 409 && code == "UNAVAILABLE" && c.ackedID == "": // no unit left: a refusal, recorded
						default:
							failures.Store(c.key, fmt.Sprintf("retry answered %d %s", status, code))
						}
					}
				})
			}
			for i := range calls {
				work <- i
			}
			close(work)
			wg.Wait()
			failures.Range(func(k, v any) bool { t.Errorf("%s: %s", k, v); return true })

			stop(p)
			booked := map[string][]string{} // key → booking ids
			for _, q := range []struct{ dsn, query string }{
				{guideDSN, `SELECT custom_request, id FROM bookings WHERE custom_request LIKE 'crash-%'`},
				{propertyDSN, `SELECT external_reference, id FROM bookings WHERE external_reference LIKE 'crash-%'`},
			} {
				db, err := sql.Open(driver, q.dsn)
				if err != nil {
					t.Fatal(err)
				}
				rows, err := db.Query(q.query)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var k, id string
					if err := rows.Scan(&k, &id); err != nil {
						t.Fatal(err)
					}
					booked[k] = append(booked[k], id)
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				rows.Close()
				db.Close()
			}
			acked, twice := 0, 0
			for i, c := range calls {
				ids := booked[c.key]
				if len(ids) > 1 {
					twice++
					t.Errorf("%s: %d bookings for one key", c.key, len(ids))
				}
				if c.ackedID != "" {
					acked++
					if retried[i] != c.ackedID {
						t.Errorf("%s: answered %s, retry answered %q", c.key, c.ackedID, retried[i])
					}
				}
				if retried[i] != "" && (len(ids) != 1 || ids[0] != retried[i]) {
					t.Errorf("%s: retry answered %s, stored %v", c.key, retried[i], ids)
				}
			}
			if acked == 0 {
				t.Fatal("no booking was answered before the kills")
			}
			t.Logf("%s: %d keys sent across 3 kills, %d answered before a kill, %d bookings stored, %d keys booked twice",
				engine, len(calls), acked, len(booked), twice)
		})
	}
}

// roomTypes lists property and room type ids of Tokyo properties.
func roomTypes(t *testing.T, p *process, key string) [][2]string {
	t.Helper()
	from := time.Now().UTC().AddDate(0, 0, 7)
	_, list := p.call("GET", "/api/v1/properties?city=tokyo&pageSize=20", key, nil)
	var out [][2]string
	for _, item := range list["data"].([]any) {
		id := item.(map[string]any)["id"].(string)
		q := url.Values{"from": {from.Format("2006-01-02")}, "to": {from.AddDate(0, 0, 1).Format("2006-01-02")}}
		_, av := p.call("GET", "/api/v1/properties/"+id+"/availability?"+q.Encode(), key, nil)
		rts, _ := av["roomTypes"].([]any)
		for _, rt := range rts {
			out = append(out, [2]string{id, rt.(map[string]any)["roomTypeId"].(string)})
		}
	}
	if len(out) == 0 {
		t.Fatal("no room types in Tokyo")
	}
	return out
}
