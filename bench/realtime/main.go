// Command realtime measures the realtime chat channel of a running guide
// API: it holds -conns WebSocket connections (the demo traveller's, each
// subscribed to its own user channel, answering pings), sends messages
// over REST at -conns/60 a second (one message per client per minute)
// from the traveller to the demo expert, and times each message from the
// REST answer (the commit) to its arrival on a probe connection subscribed
// to the conversation. It reports the latency percentiles and the server's
// CPU time (process_cpu_seconds_total of /metrics) over the run.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "guide API base URL")
	password := flag.String("password", os.Getenv("DEMO_PASSWORD"), "demo accounts' password (DEMO_PASSWORD)")
	conns := flag.Int("conns", 1000, "connections to hold")
	duration := flag.Duration("duration", time.Minute, "how long to send messages")
	flag.Parse()

	traveller := login(*base, "traveller@example.com", *password)
	expert := login(*base, "expert@example.com", *password)
	var conv struct{ Data struct{ ID string } }
	call(*base, "POST", "/api/v1/conversations", traveller, map[string]string{"expertHandle": "demo-expert"}, &conv)
	var me struct{ User struct{ ID string } }
	call(*base, "GET", "/api/v1/auth/me", traveller, nil, &me)
	wsURL := "ws" + strings.TrimPrefix(*base, "http") + "/api/realtime/connection/websocket"

	// The probe: the expert, on the conversation.
	arrived := make(chan string, 1000)
	probe := dial(wsURL, token(*base, expert), "conversation:"+conv.Data.ID, func(data json.RawMessage) {
		var ev struct {
			Type    string
			Message struct{ ID string }
		}
		if json.Unmarshal(data, &ev) == nil && ev.Type == "message" {
			arrived <- ev.Message.ID
		}
	})
	defer probe.Close()

	start := time.Now()
	rtToken := token(*base, traveller)
	var held atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 50)
	for range *conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := dial(wsURL, rtToken, "user:"+me.User.ID, nil)
			if c != nil {
				held.Add(1)
			}
		}()
	}
	wg.Wait()
	log.Printf("%d connections held, opened in %v", held.Load(), time.Since(start).Round(time.Millisecond))

	cpu0 := cpuSeconds(*base)
	interval := time.Duration(float64(time.Minute) / float64(*conns))
	// A message may arrive before its REST answer is read: both ends are
	// kept and paired at the end (such a message counts as 0).
	sentAt, arrivedAt := map[string]time.Time{}, map[string]time.Time{}
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		for id := range arrived {
			now := time.Now()
			mu.Lock()
			arrivedAt[id] = now
			mu.Unlock()
		}
		close(done)
	}()
	t0 := time.Now()
	tick := time.NewTicker(interval)
	n := 0
	for time.Since(t0) < *duration {
		<-tick.C
		n++
		var m struct{ Data struct{ ID string } }
		call(*base, "POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", traveller, map[string]string{"content": "load " + strconv.Itoa(n)}, &m)
		mu.Lock()
		sentAt[m.Data.ID] = time.Now()
		mu.Unlock()
	}
	tick.Stop()
	time.Sleep(3 * time.Second) // the last deliveries
	elapsed := time.Since(t0)
	cpu := cpuSeconds(*base) - cpu0
	close(arrived)
	<-done
	var lat []time.Duration
	for id, t := range sentAt {
		if a, ok := arrivedAt[id]; ok {
			lat = append(lat, max(a.Sub(t), 0))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(100 * time.Microsecond)
	}
	fmt.Printf("connections %d, messages sent %d, delivered %d, p50 %v, p99 %v, max %v, server CPU %.2f s over %.1f s (%.2f cores)\n",
		held.Load(), n, len(lat), pct(0.50), pct(0.99), pct(1), cpu, elapsed.Seconds(), cpu/elapsed.Seconds())
}

func login(base, email, password string) string {
	var res struct{ Token string }
	call(base, "POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": password}, &res)
	return res.Token
}

func token(base, user string) string {
	var res struct{ Token string }
	call(base, "GET", "/api/realtime/token", user, nil, &res)
	return res.Token
}

func call(base, method, path, token string, body, out any) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			log.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// cpuSeconds reads the server's process_cpu_seconds_total.
func cpuSeconds(base string) float64 {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "process_cpu_seconds_total "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

// dial connects, subscribes to channel and serves the connection: pings
// are answered, publications passed to onPub. Nil when it failed.
func dial(url, token, channel string, onPub func(json.RawMessage)) *websocket.Conn {
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		log.Printf("dial: %v", err)
		return nil
	}
	var mu sync.Mutex
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		ws.WriteMessage(websocket.TextMessage, b)
	}
	write([]byte(`{"id":1,"connect":{"token":"` + token + `"}}` + "\n" + `{"id":2,"subscribe":{"channel":"` + channel + `"}}`))
	ready := make(chan bool, 1)
	go func() {
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			for _, line := range bytes.Split(msg, []byte("\n")) {
				var f struct {
					ID        int
					Error     *struct{ Code int }
					Subscribe json.RawMessage
					Push      *struct {
						Pub *struct{ Data json.RawMessage }
					}
				}
				if len(line) == 0 || json.Unmarshal(line, &f) != nil {
					continue
				}
				switch {
				case f.ID == 0 && f.Push == nil:
					write([]byte("{}")) // pong
				case f.ID == 2:
					ready <- f.Error == nil
				case f.Push != nil && f.Push.Pub != nil && onPub != nil:
					onPub(f.Push.Pub.Data)
				}
			}
		}
	}()
	select {
	case ok := <-ready:
		if ok {
			return ws
		}
	case <-time.After(30 * time.Second):
	}
	ws.Close()
	return nil
}
