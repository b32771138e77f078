package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Workloads, as named in the results. The peer's (peer_list,
// peer_packages, peer_create) are measured against PocketBase and compared
// with ours: peer_list with list, peer_packages with packages, peer_create
// with booking_user and booking_key.
var (
	ourWorkloads = []string{"list", "detail", "packages", "booking_user", "booking_key", "message", "mixed", "quotebook"}
	peerOf       = map[string]string{"list": "peer_list", "packages": "peer_packages", "booking_user": "peer_create", "booking_key": "peer_create"}
)

// mixedPattern is one cycle of the mixed workload: 90% reads (L list,
// D detail, P package list), 10% writes (B booking with a user token,
// M message).
const mixedPattern = "LDPLDPLBLDPLDPLMLDLP"

// PeerState is what bench/peer writes once it has loaded the catalogue.
type PeerState struct {
	Users []struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	} `json:"users"`
	Packages []struct {
		ID          string `json:"id"`
		CountryCode string `json:"countryCode"`
	} `json:"packages"`
}

// Every request asks for the answer uncompressed: Go's client would
// otherwise ask for gzip, which PocketBase honours and our API and the
// ceiling do not, so the peer would pay for compression the others skip.
var (
	plainHeader = http.Header{"Accept-Encoding": []string{"identity"}}
	jsonHeader  = http.Header{"Accept-Encoding": []string{"identity"}, "Content-Type": []string{"application/json"}}
)

func withAuth(cred string) http.Header {
	h := jsonHeader.Clone()
	h.Set("Authorization", "Bearer "+cred)
	return h
}

// bookingTarget is the i-th booking of a run: a unique body, spread over
// every active package.
func bookingTarget(st *State, base string, run, i int, cred string) vegeta.Target {
	p := st.Packages[i%len(st.Packages)]
	participants := 1 + i%2
	if participants > p.MaxParticipants {
		participants = 1
	}
	when := time.Date(2027, 1, 1, 9, 0, 0, 0, time.FixedZone("", 9*3600)).Add(time.Duration(i%100000) * 30 * time.Minute)
	body, _ := json.Marshal(map[string]any{
		"packageId": p.ID, "scheduledDate": when.Format(time.RFC3339), "participants": participants,
		"customRequest": fmt.Sprintf("Benchmark run %d, booking %d: vegetarian lunch please.", run, i),
	})
	return vegeta.Target{Method: "POST", URL: base + "/api/v1/bookings", Body: body, Header: withAuth(cred)}
}

// messageTarget is the i-th message of a run, in the i-th conversation
// (round robin over every conversation of every user).
func messageTarget(st *State, base string, run, i int) vegeta.Target {
	c := st.Conversations[i%len(st.Conversations)]
	body, _ := json.Marshal(map[string]any{
		"content": fmt.Sprintf("Benchmark run %d, message %d: is the tour still available next week?", run, i),
	})
	return vegeta.Target{Method: "POST", URL: base + "/api/v1/conversations/" + c.ID + "/messages", Body: body, Header: withAuth(c.Token)}
}

// quoteTarget is the i-th quote of a run: 3 nights of a room type, over
// every room type and then the next check-in day, from 2 days ahead on
// (the sample's calendar runs a year from the server's start).
func quoteTarget(st *State, base string, i int) vegeta.Target {
	r := st.Rooms[i%len(st.Rooms)]
	checkIn := time.Now().UTC().AddDate(0, 0, 2+(i/len(st.Rooms))%300)
	body, _ := json.Marshal(map[string]any{
		"propertyId": r.PropertyID, "roomTypeId": r.RoomTypeID, "guests": 1,
		"checkIn": checkIn.Format(time.DateOnly), "checkOut": checkIn.AddDate(0, 0, 3).Format(time.DateOnly),
	})
	h := jsonHeader.Clone()
	h.Set("X-API-KEY", st.PropertyKey)
	return vegeta.Target{Method: "POST", URL: base + "/api/v1/quotes", Body: body, Header: h}
}

// targets writes a vegeta target file (-format=json, one target a line).
// Read workloads cycle through their URIs; writes get -count unique
// bodies, spread over every user, key and conversation.
func targets(args []string) error {
	fs := flag.NewFlagSet("targets", flag.ExitOnError)
	statePath := fs.String("state", "", "state.json of setup (our workloads) or peer-state.json (peer workloads)")
	workload := fs.String("workload", "", "workload name")
	base := fs.String("base", "", "address the targets go to (our server, the ceiling or the peer)")
	count := fs.Int("count", 50000, "targets to write for workloads with unique bodies")
	run := fs.Int("run", 0, "run number, part of every unique body")
	out := fs.String("out", "", "target file")
	fs.Parse(args)
	if *statePath == "" || *workload == "" || *base == "" || *out == "" {
		return errors.New("targets: -state, -workload, -base and -out are required")
	}
	f, err := os.Create(filepath.Clean(*out))
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	emit := func(t vegeta.Target) error { return enc.Encode(&t) }
	get := func(uri string) vegeta.Target {
		return vegeta.Target{Method: "GET", URL: *base + uri, Header: plainHeader}
	}

	if len(*workload) > 5 && (*workload)[:5] == "peer_" {
		var ps PeerState
		if err := readJSON(*statePath, &ps); err != nil {
			return err
		}
		if err := peerTargets(&ps, *workload, *base, *run, *count, emit); err != nil {
			return err
		}
		return errors.Join(w.Flush(), f.Close())
	}
	var st State
	if err := readJSON(*statePath, &st); err != nil {
		return err
	}
	switch *workload {
	case "list", "detail", "packages":
		for _, uri := range readURIs(&st, *workload) {
			if err := emit(get(uri)); err != nil {
				return err
			}
		}
	case "booking_user", "booking_key":
		for i := range *count {
			u := st.Users[i%len(st.Users)]
			cred := u.Token
			if *workload == "booking_key" {
				cred = u.Keys[(i/len(st.Users))%len(u.Keys)]
			}
			if err := emit(bookingTarget(&st, *base, *run, i, cred)); err != nil {
				return err
			}
		}
	case "message":
		for i := range *count {
			if err := emit(messageTarget(&st, *base, *run, i)); err != nil {
				return err
			}
		}
	case "quotebook":
		if len(st.Rooms) == 0 {
			return errors.New("targets: no room types in the state (setup -property)")
		}
		for i := range *count {
			if err := emit(quoteTarget(&st, *base, i)); err != nil {
				return err
			}
		}
	case "mixed":
		reads := map[byte][]string{'L': readURIs(&st, "list"), 'D': readURIs(&st, "detail"), 'P': readURIs(&st, "packages")}
		next := map[byte]int{}
		for i := range *count {
			kind := mixedPattern[i%len(mixedPattern)]
			n := next[kind]
			next[kind]++
			var t vegeta.Target
			switch kind {
			case 'B':
				t = bookingTarget(&st, *base, *run, n, st.Users[n%len(st.Users)].Token)
			case 'M':
				t = messageTarget(&st, *base, *run, n)
			default:
				uris := reads[kind]
				t = get(uris[n%len(uris)])
			}
			if err := emit(t); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("targets: unknown workload %q", *workload)
	}
	return errors.Join(w.Flush(), f.Close())
}

// peerTargets writes the PocketBase side of the comparison: the same
// filters, 20 records a page, and authenticated creates with unique
// bodies spread over every user and package.
func peerTargets(ps *PeerState, workload, base string, run, count int, emit func(vegeta.Target) error) error {
	records := base + "/api/collections/"
	switch workload {
	case "peer_list":
		// "Any of the specialties is food" (a multiple select is a JSON array).
		q := url.Values{"filter": {"specialties:each ?= 'food'"}, "sort": {"-rating,-id"}, "perPage": {"20"}}
		return emit(vegeta.Target{Method: "GET", URL: records + "experts/records?" + q.Encode(), Header: plainHeader})
	case "peer_packages":
		for _, c := range []string{"CN", "JP", "KR", "TW", "HK"} {
			q := url.Values{"filter": {"countryCode = '" + c + "'"}, "sort": {"-created,-id"}, "perPage": {"20"}}
			if err := emit(vegeta.Target{Method: "GET", URL: records + "packages/records?" + q.Encode(), Header: plainHeader}); err != nil {
				return err
			}
		}
		return nil
	case "peer_create":
		if len(ps.Users) == 0 || len(ps.Packages) == 0 {
			return errors.New("peer state has no users or packages")
		}
		for i := range count {
			u := ps.Users[i%len(ps.Users)]
			p := ps.Packages[i%len(ps.Packages)]
			when := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i%100000) * 30 * time.Minute)
			body, _ := json.Marshal(map[string]any{
				"tourist": u.ID, "package": p.ID, "status": "PENDING", "scheduledDate": when.Format("2006-01-02 15:04:05.000Z"),
				"participants": 1 + i%2, "customRequest": fmt.Sprintf("Benchmark run %d, booking %d: vegetarian lunch please.", run, i),
			})
			if err := emit(vegeta.Target{Method: "POST", URL: records + "bookings/records", Body: body, Header: withAuth(u.Token)}); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("targets: unknown peer workload %q", workload)
}
