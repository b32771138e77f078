package propertyhttp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/api"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/propertyhttp"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

// publicURL is the API's configured base URL in tests; requests carry
// another Host (example.com), which must never show in a response.
const publicURL = "https://property.api.test"

// env is one test's server: the real router on a fresh database with the
// sample data, whose calendar starts on the fake clock's day.
type env struct {
	*apitest.Client
	db     *store.DB
	clock  *clock.Fake
	store  *propertydb.Property
	keys   *idempotency.Keys
	usage  *property.Usage
	svc    *property.Service
	tokens *auth.Tokens
	srv    *propertyhttp.Server
	hooks  *changes.Endpoints
	oauth  *oauth.Server
}

type options struct {
	keyLimit        int           // per minute; default 1000
	portalAuthLimit int           // per 15 minutes; default 1000
	quoteTTL        time.Duration // default 15m
	corsOrigins     []string
	logger          *slog.Logger  // default: discards
	oauthFetcher    oauth.Fetcher // reads client metadata documents; the guarded client when nil
}

// sampleDays is the calendar the tests load: enough for next month, and
// quicker to load than a year.
const sampleDays = 60

// start is the fake clock's time at the start of every test.
var start = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func loadSample(ctx context.Context, db *store.DB) error {
	return propertydb.LoadSample(ctx, db, sample.GenerateDays(property.DateOf(start), sampleDays))
}

func newEnv(t testing.TB, opts options, engine ...store.Engine) *env {
	t.Helper()
	eng := store.SQLite
	if len(engine) > 0 {
		eng = engine[0]
	}
	clk := clock.NewFake(start)
	db := storetest.MustOpenSample(t, eng, propertydb.Schema, loadSample)
	if opts.keyLimit == 0 {
		opts.keyLimit = 1000
	}
	if opts.portalAuthLimit == 0 {
		opts.portalAuthLimit = 1000
	}
	if opts.quoteTTL == 0 {
		opts.quoteTTL = 15 * time.Minute
	}
	if opts.logger == nil {
		opts.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tokens, err := auth.NewPortalTokens([]byte("portal-secret-portal-secret-portal!!"), clk)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := propertyDoc()
	if err != nil {
		t.Fatalf("openapi: %v", err)
	}
	openAPI, err := api.PropertyJSON()
	if err != nil {
		t.Fatal(err)
	}
	ps := propertydb.New(db, clk)
	ps.Events().PublicURL = publicURL
	hooks := changes.NewEndpoints(db, clk)
	keys := idempotency.NewKeys(db, clk, 0)
	usage := property.NewUsage()
	fetcher := opts.oauthFetcher
	if fetcher == nil {
		fetcher = changes.NewClientTimeout(changes.Policy{AllowHosts: []string{"127.0.0.1"}}, oauth.FetchTimeout)
	}
	authServer := oauth.New(oauth.Config{
		Issuer: publicURL, Resource: publicURL + "/mcp", Scopes: property.Scopes, ConsentPage: "/oauth/consent/",
		DB: db, Grants: ps, Fetcher: fetcher, Clock: clk, Logger: opts.logger,
	})
	svc := &property.Service{Catalog: ps, Bookings: ps, Accounts: ps, Supply: ps, Clock: clk, Usage: usage,
		QuoteTTL: opts.quoteTTL, PublicURL: publicURL}
	srv := propertyhttp.New(propertyhttp.Config{
		Service:         svc,
		OAuth:           authServer,
		PublicURL:       publicURL,
		Idempotency:     keys,
		Events:          ps.Events(),
		Webhooks:        hooks,
		WebhookPolicy:   changes.Policy{AllowHosts: []string{"127.0.0.1"}},
		PortalTokens:    tokens,
		Limiter:         ratelimit.NewMemory(clk),
		KeyLimit:        ratelimit.PerMinute(opts.keyLimit),
		PortalAuthLimit: ratelimit.Limit{Rate: opts.portalAuthLimit, Period: 15 * time.Minute},
		PortalLimit:     ratelimit.PerMinute(1000),
		Logger:          opts.logger,
		OpenAPI:         openAPI,
		CORSOrigins:     opts.corsOrigins,
	})
	return &env{Client: apitest.New(t, srv, doc), db: db, clock: clk, store: ps, keys: keys, usage: usage, svc: svc, tokens: tokens, srv: srv, hooks: hooks, oauth: authServer}
}

// dev is a developer account made through the portal API.
type dev struct {
	id, email, token string
}

var devSeq struct {
	sync.Mutex
	n int
}

// signup creates a developer account through the portal.
func (e *env) signup(t testing.TB) dev {
	t.Helper()
	devSeq.Lock()
	devSeq.n++
	email := fmt.Sprintf("dev%d@example.com", devSeq.n)
	devSeq.Unlock()
	var res struct {
		Token     string
		Developer property.Developer
	}
	e.Do("POST", "/portal/api/signup", map[string]string{"email": email, "password": "correct-horse-1", "name": "Dev " + email}).Expect(201).Decode(&res)
	return dev{id: res.Developer.ID, email: email, token: res.Token}
}

// key creates an API key of the mode for d through the portal.
func (e *env) key(t testing.TB, d dev, mode string, scopes ...string) string {
	t.Helper()
	body := map[string]any{"name": mode + " key", "mode": mode}
	if len(scopes) > 0 {
		body["scopes"] = scopes
	}
	var res struct{ Key string }
	e.Do("POST", "/portal/api/keys", body, bearer(d.token)...).Expect(201).Decode(&res)
	return res.Key
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

func xkey(key string) []string { return []string{"X-API-KEY", key} }

// room is a room type of a sample property.
type room struct {
	propertyID, roomTypeID, name string
	units, maxGuests             int
}

// tokyoDouble is the sample's Standard Double Room at the Shinjuku
// Gardenview Hotel, with every night from the start open and unrestricted
// and nothing sold, so that tests set the nights they need.
func (e *env) tokyoDouble(t testing.TB) room {
	t.Helper()
	var r room
	if err := e.db.QueryRow(`SELECT p.id, r.id, r.name, r.total_units, r.max_guests FROM properties p JOIN room_types r ON r.property_id = p.id
		WHERE p.name = 'Shinjuku Gardenview Hotel' AND r.name = 'Standard Double Room'`).Scan(&r.propertyID, &r.roomTypeID, &r.name, &r.units, &r.maxGuests); err != nil {
		t.Fatal(err)
	}
	e.exec(t, `UPDATE calendar SET closed = FALSE, closed_to_arrival = FALSE, closed_to_departure = FALSE, min_stay = 1, sold = 0, test_sold = 0
		WHERE room_type_id = $1`, r.roomTypeID)
	return r
}

func (e *env) exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if _, err := e.db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// setNight changes one night of a room type's calendar.
func (e *env) setNight(t *testing.T, roomTypeID string, night property.Date, set string) {
	t.Helper()
	e.exec(t, `UPDATE calendar SET `+set+` WHERE room_type_id = $1 AND night = $2`, roomTypeID, night)
}

// available returns the units of a night as a key sees them.
func (e *env) available(t *testing.T, key string, r room, night property.Date) int {
	t.Helper()
	var a property.Availability
	e.Get("/api/v1/properties/"+r.propertyID+"/availability?"+url.Values{
		"from": {night.String()}, "to": {night.AddDays(1).String()}, "roomTypeId": {r.roomTypeID},
	}.Encode(), xkey(key)...).Expect(200).Decode(&a)
	return a.RoomTypes[0].Nights[0].AvailableUnits
}

func stay(r room, checkIn property.Date, nights, guests int) map[string]any {
	return map[string]any{"propertyId": r.propertyID, "roomTypeId": r.roomTypeID,
		"checkIn": checkIn.String(), "checkOut": checkIn.AddDays(nights).String(), "guests": guests}
}

var guest = map[string]any{"firstName": "Mei", "lastName": "Tan", "email": "mei.tan@example.com", "phone": "+65 6123 4567", "country": "SG"}

// day is a day of next month (December 2026, the fake clock being in
// November).
func day(d int) property.Date { return property.NewDate(2026, 12, d) }

// propertyDoc is the OpenAPI document, parsed once for the package: every
// environment validates against it, read-only.
var propertyDoc = sync.OnceValues(api.LoadProperty)
