// Package config loads the server's settings from the environment and
// refuses to start on a value it cannot use.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/store/dburl"
)

// Config holds every setting of cmd/server.
type Config struct {
	GuideAddr           string
	PropertyAddr        string
	GuidePublicURL      string // external base URL of the guide API, without a trailing slash
	PropertyPublicURL   string // external base URL of the property API, without a trailing slash
	GuideDatabaseURL    string
	PropertyDatabaseURL string
	SampleData          bool
	SampleScale         int    // the sample is loaded with SampleScale-1 replicas of its catalogue and inventory
	DatabaseMaxConns    int    // PostgreSQL pool size per database; 0: store.DefaultMaxConns
	PprofAddr           string // empty: no profiling listener
	DemoPassword        string
	PublicRateLimit     int // requests per minute per client IP on public reads
	TrustedProxies      []netip.Prefix
	LogLevel            slog.Level

	AuthRateLimit       int           // requests per 15 minutes per client IP on the auth endpoints
	PortalAuthRateLimit int           // portal signups, logins and OAuth client registrations per 15 minutes per client IP
	AvatarRateLimit     int           // avatar uploads per hour per user
	ImageRateLimit      int           // package image uploads per hour per user
	TravelogueRateLimit int           // travelogues created per hour per user
	PendingActionTTL    time.Duration // lifetime of a pending action
	// ShutdownDrain is how long a stopping replica keeps serving with
	// /readyz at 503 (SHUTDOWN_DRAIN), so the load balancer stops sending
	// before the listeners close; ShutdownGrace then bounds the wait for
	// requests in flight (SHUTDOWN_GRACE).
	ShutdownDrain, ShutdownGrace time.Duration
	JWTSecret                    string // empty: generate one and keep it in the database
	IdpA, IdpB                   *IdentityProvider
	RealtimeAppID                string
	RealtimeSecret               string // empty: generate one at start
	RedisURL                     string // empty: limits are counted in this process
	AvatarDir                    string
	PushGatewayURL               string // empty: notifications are logged, not sent
	AIBaseURL                    string // empty: no AI replies
	AIAPIKey                     string
	AIModel                      string
	PropertyRateLimit            int           // requests per minute per property API key
	QuoteTTL                     time.Duration // how long a property quote holds its units
	// IdempotencyLockTTL is the lease on an Idempotency-Key, renewed while
	// its request runs: how long a retry waits before taking over the key
	// of a request whose server died.
	IdempotencyLockTTL time.Duration
	PortalJWTSecret    string        // empty: generate one and keep it in the property database
	CatalogCacheTTL    time.Duration // 0 disables the catalogue page cache
	S3                 *S3           // nil: avatars are stored in AvatarDir
	// GuideCORSOrigins and PropertyCORSOrigins are the origins browsers
	// may call each API from (GUIDE_CORS_ALLOWED_ORIGINS,
	// PROPERTY_CORS_ALLOWED_ORIGINS); empty: the public reads from any
	// origin, nothing else.
	GuideCORSOrigins, PropertyCORSOrigins []string
	// AdminEmails are the guide marketplace's admins (ADMIN_EMAILS, comma
	// separated, lower-cased): the accounts with these e-mail addresses.
	AdminEmails []string
	// MetricsAddr is where /metrics is served on a listener of its own
	// (METRICS_ADDR, default 127.0.0.1:9090), off the public ports; empty
	// (METRICS_ADDR=api): on both API ports instead.
	MetricsAddr string
	// CurrencyRates are US dollars per unit of each currency (CURRENCY_RATES),
	// written to the guide database at start: sort=price compares
	// package prices converted with them.
	CurrencyRates map[string]float64
	// WebhookAllowHosts may receive webhooks although they are loopback or
	// private, and over plain http: host names, addresses or prefixes.
	WebhookAllowHosts []string
}

// S3 locates an S3-compatible bucket.
type S3 struct {
	Endpoint, Region, Bucket, AccessKey, SecretKey string
	PathStyle                                      bool
}

// IdentityProvider is an external identity provider's settings; nil when
// the provider is not configured.
type IdentityProvider struct {
	Issuer    string
	Audiences []string
	JWKSURL   string
}

// Load reads the settings from the environment. The error names every
// setting that is wrong.
func Load() (*Config, error) { return load(os.Getenv) }

func load(getenv func(string) string) (*Config, error) {
	var errs []error
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := &Config{
		GuideAddr:           get("GUIDE_ADDR", ":8080"),
		PropertyAddr:        get("PROPERTY_ADDR", ":8081"),
		GuideDatabaseURL:    get("GUIDE_DATABASE_URL", "data/guide.db"),
		PropertyDatabaseURL: get("PROPERTY_DATABASE_URL", "data/property.db"),
		DemoPassword:        getenv("DEMO_PASSWORD"),
	}
	c.GuideAddr = listenAddr("GUIDE_ADDR", c.GuideAddr, &errs)
	c.PropertyAddr = listenAddr("PROPERTY_ADDR", c.PropertyAddr, &errs)
	c.GuidePublicURL = publicURL("GUIDE_PUBLIC_URL", getenv("GUIDE_PUBLIC_URL"), c.GuideAddr, &errs)
	c.PropertyPublicURL = publicURL("PROPERTY_PUBLIC_URL", getenv("PROPERTY_PUBLIC_URL"), c.PropertyAddr, &errs)
	c.GuideCORSOrigins = origins("GUIDE_CORS_ALLOWED_ORIGINS", getenv("GUIDE_CORS_ALLOWED_ORIGINS"), &errs)
	c.AdminEmails = emails("ADMIN_EMAILS", getenv("ADMIN_EMAILS"), &errs)
	c.PropertyCORSOrigins = origins("PROPERTY_CORS_ALLOWED_ORIGINS", getenv("PROPERTY_CORS_ALLOWED_ORIGINS"), &errs)
	if _, _, err := dburl.Parse(c.GuideDatabaseURL); err != nil {
		errs = append(errs, fmt.Errorf("GUIDE_DATABASE_URL: %w", err))
	}
	if _, _, err := dburl.Parse(c.PropertyDatabaseURL); err != nil {
		errs = append(errs, fmt.Errorf("PROPERTY_DATABASE_URL: %w", err))
	}
	switch v := strings.ToLower(get("SAMPLE_DATA", "on")); v {
	case "on", "true", "1", "yes":
		c.SampleData = true
	case "off", "false", "0", "no":
	default:
		errs = append(errs, fmt.Errorf("SAMPLE_DATA=%q: want on or off", v))
	}
	if c.SampleScale = positiveInt(get("SAMPLE_SCALE", "1"), "SAMPLE_SCALE", &errs); c.SampleScale > 10000 {
		errs = append(errs, fmt.Errorf("SAMPLE_SCALE=%d: at most 10000", c.SampleScale))
	}
	if v := strings.TrimSpace(getenv("PPROF_ADDR")); v != "" {
		c.PprofAddr = listenAddr("PPROF_ADDR", v, &errs)
	}
	if v := getenv("DATABASE_MAX_CONNS"); v != "" {
		c.DatabaseMaxConns = positiveInt(v, "DATABASE_MAX_CONNS", &errs)
	}
	if c.DemoPassword != "" && len(c.DemoPassword) < 8 {
		errs = append(errs, errors.New("DEMO_PASSWORD: must be at least 8 characters, the minimum the API accepts at login"))
	}
	c.PublicRateLimit = positiveInt(get("GUIDE_PUBLIC_RATE_LIMIT", "60"), "GUIDE_PUBLIC_RATE_LIMIT", &errs)
	for _, s := range strings.Split(getenv("TRUSTED_PROXIES"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			if a, aerr := netip.ParseAddr(s); aerr == nil {
				p, err = a.Prefix(a.BitLen())
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("TRUSTED_PROXIES: %q is not a CIDR or address", s))
			continue
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	c.AuthRateLimit = positiveInt(get("GUIDE_AUTH_RATE_LIMIT", "10"), "GUIDE_AUTH_RATE_LIMIT", &errs)
	c.PortalAuthRateLimit = positiveInt(get("PROPERTY_AUTH_RATE_LIMIT", "10"), "PROPERTY_AUTH_RATE_LIMIT", &errs)
	c.AvatarRateLimit = positiveInt(get("GUIDE_AVATAR_RATE_LIMIT", "10"), "GUIDE_AVATAR_RATE_LIMIT", &errs)
	c.ImageRateLimit = positiveInt(get("GUIDE_PACKAGE_IMAGE_RATE_LIMIT", "30"), "GUIDE_PACKAGE_IMAGE_RATE_LIMIT", &errs)
	c.TravelogueRateLimit = positiveInt(get("GUIDE_TRAVELOGUE_RATE_LIMIT", "20"), "GUIDE_TRAVELOGUE_RATE_LIMIT", &errs)
	if d, err := time.ParseDuration(get("PENDING_ACTION_TTL", "10m")); err != nil || d < time.Minute || d > 24*time.Hour {
		errs = append(errs, fmt.Errorf("PENDING_ACTION_TTL=%q: want a Go duration from 1m to 24h, such as 10m", get("PENDING_ACTION_TTL", "")))
	} else {
		c.PendingActionTTL = d
	}
	c.ShutdownDrain = boundedDuration("SHUTDOWN_DRAIN", get("SHUTDOWN_DRAIN", "5s"), 0, 5*time.Minute, &errs)
	c.ShutdownGrace = boundedDuration("SHUTDOWN_GRACE", get("SHUTDOWN_GRACE", "25s"), time.Second, 10*time.Minute, &errs)
	c.JWTSecret = getenv("JWT_SECRET")
	if c.JWTSecret != "" && len(c.JWTSecret) < 32 {
		errs = append(errs, fmt.Errorf("JWT_SECRET: %d bytes is too short; use at least 32 random bytes, or leave it unset to have one generated", len(c.JWTSecret)))
	}
	c.RedisURL = get("REDIS_URL", "")
	if c.RedisURL != "" {
		if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			errs = append(errs, fmt.Errorf("REDIS_URL: want redis://host:port/db or rediss://…"))
		}
	}
	if d, err := time.ParseDuration(get("CATALOG_CACHE_TTL", "5s")); err != nil || d < 0 || d > time.Hour {
		errs = append(errs, fmt.Errorf("CATALOG_CACHE_TTL: want a Go duration from 0s (off) to 1h"))
	} else {
		c.CatalogCacheTTL = d
	}
	c.PropertyRateLimit = positiveInt(get("PROPERTY_RATE_LIMIT", "60"), "PROPERTY_RATE_LIMIT", &errs)
	if d, err := time.ParseDuration(get("QUOTE_TTL", "15m")); err != nil || d < time.Minute || d > 24*time.Hour {
		errs = append(errs, fmt.Errorf("QUOTE_TTL: want a Go duration from 1m to 24h, such as 15m"))
	} else {
		c.QuoteTTL = d
	}
	if d, err := time.ParseDuration(get("IDEMPOTENCY_LOCK_TTL", "6s")); err != nil || d < time.Second || d > time.Hour {
		errs = append(errs, fmt.Errorf("IDEMPOTENCY_LOCK_TTL: want a Go duration from 1s to 1h, such as 6s"))
	} else {
		c.IdempotencyLockTTL = d
	}
	c.PortalJWTSecret = getenv("PORTAL_JWT_SECRET")
	if c.PortalJWTSecret != "" && len(c.PortalJWTSecret) < 32 {
		errs = append(errs, fmt.Errorf("PORTAL_JWT_SECRET: %d bytes is too short; use at least 32", len(c.PortalJWTSecret)))
	}
	c.PushGatewayURL = get("PUSH_GATEWAY_URL", "")
	if c.PushGatewayURL != "" {
		if u, err := url.Parse(c.PushGatewayURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("PUSH_GATEWAY_URL=%q: want an http(s) URL", c.PushGatewayURL))
		}
	}
	c.AIBaseURL, c.AIAPIKey, c.AIModel = get("AI_BASE_URL", ""), getenv("AI_API_KEY"), get("AI_MODEL", "")
	if c.AIBaseURL != "" {
		if u, err := url.Parse(c.AIBaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("AI_BASE_URL=%q: want an http(s) URL such as https://api.openai.com/v1", c.AIBaseURL))
		}
		if c.AIModel == "" {
			errs = append(errs, errors.New("AI_MODEL is required when AI_BASE_URL is set"))
		}
	}
	c.AvatarDir = get("AVATAR_DIR", "data/avatars")
	if bucket := get("S3_BUCKET", ""); bucket != "" {
		c.S3 = &S3{Endpoint: get("S3_ENDPOINT", ""), Region: get("S3_REGION", ""), Bucket: bucket,
			AccessKey: get("S3_ACCESS_KEY", ""), SecretKey: getenv("S3_SECRET_KEY"), PathStyle: get("S3_PATH_STYLE", "false") == "true"}
		if u, err := url.Parse(c.S3.Endpoint); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			errs = append(errs, fmt.Errorf("S3_ENDPOINT=%q: want the store's http(s) URL, with no path, when S3_BUCKET is set", c.S3.Endpoint))
		}
		if c.S3.Region == "" || c.S3.AccessKey == "" || c.S3.SecretKey == "" {
			errs = append(errs, errors.New("S3_REGION, S3_ACCESS_KEY and S3_SECRET_KEY are needed when S3_BUCKET is set"))
		}
	}
	c.RealtimeAppID = get("REALTIME_APP_ID", "wayfarer-guide")
	c.RealtimeSecret = getenv("REALTIME_SECRET")
	if c.RealtimeSecret != "" && len(c.RealtimeSecret) < 32 {
		errs = append(errs, fmt.Errorf("REALTIME_SECRET: %d bytes is too short; use at least 32", len(c.RealtimeSecret)))
	}
	c.IdpA = identityProvider("IDP_A_", getenv, &errs)
	c.IdpB = identityProvider("IDP_B_", getenv, &errs)
	if err := c.LogLevel.UnmarshalText([]byte(get("LOG_LEVEL", "info"))); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL: want debug, info, warn or error"))
	}
	c.CurrencyRates = currencyRates(get("CURRENCY_RATES", DefaultCurrencyRates), &errs)
	if v := get("METRICS_ADDR", "127.0.0.1:9090"); v != "api" {
		c.MetricsAddr = listenAddr("METRICS_ADDR", v, &errs)
		if c.MetricsAddr != "" && (c.MetricsAddr == c.GuideAddr || c.MetricsAddr == c.PropertyAddr) {
			errs = append(errs, fmt.Errorf("METRICS_ADDR %q is an API's address; give the metrics a port of their own", c.MetricsAddr))
		}
	}
	c.WebhookAllowHosts = webhookAllowHosts(getenv("WEBHOOK_ALLOW_HOSTS"), &errs)
	if c.GuideAddr != "" && c.GuideAddr == c.PropertyAddr {
		errs = append(errs, fmt.Errorf("GUIDE_ADDR and PROPERTY_ADDR are both %q", c.GuideAddr))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return c, nil
}

// identityProvider reads PREFIX_ISSUER, PREFIX_AUDIENCE (comma-separated)
// and PREFIX_JWKS_URL: all three or none.
func identityProvider(prefix string, getenv func(string) string, errs *[]error) *IdentityProvider {
	p := &IdentityProvider{Issuer: strings.TrimSpace(getenv(prefix + "ISSUER")), JWKSURL: strings.TrimSpace(getenv(prefix + "JWKS_URL"))}
	for _, a := range strings.Split(getenv(prefix+"AUDIENCE"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			p.Audiences = append(p.Audiences, a)
		}
	}
	set := 0
	for _, ok := range []bool{p.Issuer != "", len(p.Audiences) > 0, p.JWKSURL != ""} {
		if ok {
			set++
		}
	}
	switch {
	case set == 0:
		return nil
	case set < 3:
		*errs = append(*errs, fmt.Errorf("%sISSUER, %sAUDIENCE and %sJWKS_URL must be set together", prefix, prefix, prefix))
		return nil
	}
	if u, err := url.Parse(p.JWKSURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		*errs = append(*errs, fmt.Errorf("%sJWKS_URL=%q: want an http(s) URL", prefix, p.JWKSURL))
		return nil
	}
	return p
}

// listenAddr checks a host:port to listen on, such as ":8080" or
// "127.0.0.1:8080"; the port is a number from 1 to 65535. It returns ""
// when the address is unusable.
func listenAddr(name, addr string, errs *[]error) string {
	_, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
		*errs = append(*errs, fmt.Errorf("%s=%q: want host:port or :port with a port from 1 to 65535, such as :8080", name, addr))
		return ""
	}
	return addr
}

// publicURL checks the external base URL of an API: an absolute http(s)
// URL, maybe with a path, without credentials, query or fragment. The
// trailing slash is dropped. Unset, it is http://localhost on the port
// of addr.
func publicURL(name, value, addr string, errs *[]error) string {
	value = strings.TrimSpace(value)
	if value == "" {
		if addr == "" {
			return "" // the address is refused already
		}
		_, port, _ := net.SplitHostPort(addr)
		return "http://localhost:" + port
	}
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || strings.ContainsAny(value, "?#") {
		*errs = append(*errs, fmt.Errorf("%s=%q: want the absolute http(s) URL clients reach the API at, such as https://api.example.com, without query or fragment", name, value))
		return ""
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/")
}

func positiveInt(s, name string, errs *[]error) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		*errs = append(*errs, fmt.Errorf("%s=%q: want a whole number of at least 1", name, s))
		return 0
	}
	return n
}

// webhookAllowHosts reads WEBHOOK_ALLOW_HOSTS: comma-separated host names,
// IP addresses or CIDR prefixes, kept in lower case.
func webhookAllowHosts(v string, errs *[]error) []string {
	var hosts []string
	for _, h := range strings.Split(v, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		_, perr := netip.ParsePrefix(h)
		_, aerr := netip.ParseAddr(h)
		if perr != nil && aerr != nil && (strings.ContainsAny(h, "/:@ ") || len(h) > 253) {
			*errs = append(*errs, fmt.Errorf("WEBHOOK_ALLOW_HOSTS: %q is not a host name, address or CIDR prefix", h))
			continue
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// emails parses a comma-separated list of e-mail addresses.
func emails(name, v string, errs *[]error) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			*errs = append(*errs, fmt.Errorf("%s: %q is not an e-mail address", name, e))
			continue
		}
		out = append(out, e)
	}
	return out
}

// boundedDuration parses a Go duration from min to max.
func boundedDuration(name, v string, min, max time.Duration, errs *[]error) time.Duration {
	d, err := time.ParseDuration(v)
	if err != nil || d < min || d > max {
		*errs = append(*errs, fmt.Errorf("%s=%q: want a Go duration from %v to %v, such as 5s", name, v, min, max))
	}
	return d
}
