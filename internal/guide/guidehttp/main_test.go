package guidehttp_test

import (
	"context"
	"github.com/getkin/kin-openapi/openapi3"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wayfarer-asia/platform/api"
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/guide/guideocto"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/auth"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/chat"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/httpx/apitest"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// publicURL is the API's configured base URL in tests; requests carry
// another Host (example.com), which must never show in a response.
const publicURL = "https://guide.api.test"

// env is one test's server: the real router on a fresh database.
type env struct {
	*apitest.Client
	db       *store.DB
	clock    *clock.Fake
	store    *guidedb.Guide
	keys     *idempotency.Keys
	tokens   *auth.Tokens
	keyUsage *auth.KeyUsage
	idp      *testIdP
	srv      *guidehttp.Server
	hooks    *changes.Endpoints
	oauth    *oauth.Server
}

type options struct {
	publicLimit      int
	authLimit        int
	avatarLimit      int // uploads an hour per user
	imageLimit       int // package image uploads an hour per user
	travelogueLimit  int // travelogues created an hour per user
	reportLimit      int // reports an hour per user
	applicationLimit int // expert application writes an hour per user
	trustedProxies   []netip.Prefix
	noSample         bool
	scale            int  // SAMPLE_SCALE of the catalogue: the ×1 template when 0 or 1
	noPageCache      bool // every catalogue read goes to the store
	noIdP            bool
	limiter          ratelimit.Limiter // strict limiter; a memory one when nil
	readyChecks      []httpx.Check
	corsOrigins      []string
	oauthFetcher     oauth.Fetcher // reads client metadata documents; the guarded client when nil
}

func loadSample(ctx context.Context, db *store.DB) error {
	return guidedb.LoadSample(ctx, db, sample.Generate())
}

// newEnv starts the guide API on a fresh SQLite database (or the engine
// named) loaded with the sample data.
func newEnv(t testing.TB, opts options, engine ...store.Engine) *env {
	t.Helper()
	eng := store.SQLite
	if len(engine) > 0 {
		eng = engine[0]
	}
	var db *store.DB
	switch {
	case opts.noSample:
		db = storetest.MustOpenDB(t, eng, guidedb.Schema)
	case opts.scale > 1:
		db = storetest.MustOpenDB(t, eng, guidedb.Schema)
		if err := guidedb.LoadSampleScaled(t.Context(), db, sample.Generate(), opts.scale); err != nil {
			t.Fatal(err)
		}
		if eng == store.Postgres {
			// As autovacuum leaves a settled database: statistics, and the
			// visibility map that lets a page walk an index alone.
			if _, err := db.ExecContext(t.Context(), "VACUUM ANALYZE users, experts, expert_languages, expert_specialties, packages, travelogues"); err != nil {
				t.Fatal(err)
			}
		}
	default:
		db = storetest.MustOpenSample(t, eng, guidedb.Schema, loadSample)
	}
	if opts.publicLimit == 0 {
		opts.publicLimit = 1000
	}
	if opts.authLimit == 0 {
		opts.authLimit = 1000
	}
	if opts.avatarLimit == 0 {
		opts.avatarLimit = 1000
	}
	if opts.imageLimit == 0 {
		opts.imageLimit = 1000
	}
	if opts.travelogueLimit == 0 {
		opts.travelogueLimit = 1000
	}
	if opts.reportLimit == 0 {
		opts.reportLimit = 1000
	}
	if opts.applicationLimit == 0 {
		opts.applicationLimit = 1000
	}
	clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	if opts.limiter == nil {
		opts.limiter = ratelimit.NewMemory(clk)
	}
	tokens, err := auth.NewTokens([]byte("test-secret-test-secret-test-secret!"), clk)
	if err != nil {
		t.Fatal(err)
	}
	cacheTTL := time.Minute
	if opts.noPageCache {
		cacheTTL = 0
	}
	gs := guidedb.New(db, clk)
	gs.Events().PublicURL = publicURL
	hooks := changes.NewEndpoints(db, clk)
	keys := idempotency.NewKeys(db, clk, 0)
	keyUsage := auth.NewKeyUsage()
	var idp *testIdP
	var idpA, idpB *auth.IdentityProvider
	if !opts.noIdP {
		idp = newTestIdP(t)
		if idpA, err = auth.NewIdentityProvider(t.Context(), "idp-a", idp.issuerA, []string{"client-a", "client-a-web"}, idp.url, clk); err != nil {
			t.Fatal(err)
		}
		if idpB, err = auth.NewIdentityProvider(t.Context(), "idp-b", idp.issuerB, []string{"client-b"}, idp.url, clk); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := guideDoc()
	if err != nil {
		t.Fatalf("openapi: %v", err)
	}
	openAPI, err := api.GuideJSON()
	if err != nil {
		t.Fatal(err)
	}
	octoAPI, err := api.OctoJSON()
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	metrics := httpx.NewMetrics(reg)
	if opts.readyChecks == nil {
		opts.readyChecks = []httpx.Check{{Name: "database", Check: db.PingContext}}
	}
	fetcher := opts.oauthFetcher
	if fetcher == nil {
		fetcher = changes.NewClientTimeout(changes.Policy{AllowHosts: []string{"127.0.0.1"}}, oauth.FetchTimeout)
	}
	authServer := oauth.New(oauth.Config{
		Issuer: publicURL, Resource: publicURL + "/mcp", Scopes: guide.Scopes, ConsentPage: "/oauth/consent/",
		DB: db, Grants: gs, Fetcher: fetcher, Clock: clk, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := &guide.Service{
		Catalog: gs, Accounts: gs, Profiles: gs, Bookings: gs, Actions: gs, Closure: gs, Conversations: gs, Supply: gs,
		Admin: gs, Authoring: gs, Moderation: gs, Octo: gs, Applications: gs,
		Clock: clk, ActionTTL: 10 * time.Minute, Tokens: tokens, IdpA: idpA, IdpB: idpB, KeyUsage: keyUsage,
		Blobs: &media.Local{Dir: t.TempDir()}, PublicURL: publicURL, Logger: logger, AIReplies: true,
		Realtime:    chat.NewCredentials("test-app", []byte("realtime-secret-realtime-secret!"), clk),
		AdminEmails: []string{testAdminEmail},
	}
	srv := guidehttp.New(guidehttp.Config{
		Service:          svc,
		OAuth:            authServer,
		Metrics:          metrics,
		Gatherer:         reg,
		ReadyChecks:      opts.readyChecks,
		Idempotency:      keys,
		Events:           gs.Events(),
		Webhooks:         hooks,
		WebhookPolicy:    changes.Policy{AllowHosts: []string{"127.0.0.1"}},
		CatalogCacheTTL:  cacheTTL,
		Limiter:          opts.limiter,
		PublicLimit:      ratelimit.PerMinute(opts.publicLimit),
		AuthLimit:        ratelimit.Limit{Rate: opts.authLimit, Period: 15 * time.Minute},
		AvatarLimit:      ratelimit.Limit{Rate: opts.avatarLimit, Period: time.Hour},
		ImageLimit:       ratelimit.Limit{Rate: opts.imageLimit, Period: time.Hour},
		TravelogueLimit:  ratelimit.Limit{Rate: opts.travelogueLimit, Period: time.Hour},
		ReportLimit:      ratelimit.Limit{Rate: opts.reportLimit, Period: time.Hour},
		ApplicationLimit: ratelimit.Limit{Rate: opts.applicationLimit, Period: time.Hour},
		TrustedProxies:   opts.trustedProxies,
		OpenAPI:          openAPI,
		Octo:             guideocto.New(guideocto.Config{Service: svc, OAuth: authServer, Limiter: opts.limiter, Metrics: metrics, OpenAPI: octoAPI, Idempotency: keys}),
		CORSOrigins:      opts.corsOrigins,
	})
	client := apitest.New(t, srv, doc)
	client.Forbidden = append(client.Forbidden, "test-secret-test-secret-test-secret!", "realtime-secret-realtime-secret!")
	return &env{Client: client, db: db, clock: clk, store: gs, keys: keys, tokens: tokens, keyUsage: keyUsage, idp: idp, srv: srv, hooks: hooks, oauth: authServer}
}

// count runs a COUNT query.
func (e *env) count(t testing.TB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := e.db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// user is an account made through the API for a test.
type user struct {
	id, email, token string
}

// register creates an account through the API and returns its token.
func (e *env) register(t testing.TB, email, role string) user {
	t.Helper()
	var res struct {
		Token string
		User  struct{ ID string }
	}
	e.Do("POST", "/api/v1/auth/register", map[string]string{
		"email": email, "password": "correct-horse-1", "name": "Test " + role, "role": role,
	}).Expect(201).Decode(&res)
	return user{id: res.User.ID, email: email, token: res.Token}
}

// bearer returns the Authorization header pair for a token or key.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// apiKey creates an API key for u through the API and returns it.
func (e *env) apiKey(t *testing.T, u user, scopes ...string) string {
	t.Helper()
	var res struct {
		Data struct{ Key string }
	}
	e.Do("POST", "/api/v1/auth/api-keys", map[string]any{"name": "agent", "scopes": scopes}, bearer(u.token)...).Expect(201).Decode(&res)
	return res.Data.Key
}

func trusted(cidrs ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, c := range cidrs {
		out = append(out, netip.MustParsePrefix(c))
	}
	return out
}

// tokenFor issues a user token for the account with the e-mail.
func (e *env) tokenFor(t testing.TB, email string) user {
	t.Helper()
	var id string
	if err := e.db.QueryRow(`SELECT id FROM users WHERE email_normalized = $1`, email).Scan(&id); err != nil {
		t.Fatalf("user %s: %v", email, err)
	}
	token, _, err := e.tokens.Issue(id)
	if err != nil {
		t.Fatal(err)
	}
	return user{id: id, email: email, token: token}
}

// testAdminEmail is the address every test server names in ADMIN_EMAILS.
const testAdminEmail = "root@example.com"

// guideDoc is the OpenAPI document, parsed once for the package: every
// environment validates against it, read-only.
var guideDoc = sync.OnceValues(api.LoadGuide)

// octoDoc is the OCTO document, parsed once, its server the /octo
// endpoint of the test server. Its BaseError is the Error schema apitest
// checks the answers to unknown paths and wrong methods against.
var octoDoc = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := api.LoadOcto()
	if err != nil {
		return nil, err
	}
	doc.Servers = openapi3.Servers{{URL: "http://example.com/octo"}}
	doc.Components.Schemas["Error"] = doc.Components.Schemas["BaseError"]
	return doc, nil
})
