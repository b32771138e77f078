package config

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaults(t *testing.T) {
	c, err := load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"guideAddr": c.GuideAddr, "propertyAddr": c.PropertyAddr, "sampleData": c.SampleData, "publicRateLimit": c.PublicRateLimit,
		"guideDatabaseURL": c.GuideDatabaseURL, "avatarRateLimit": c.AvatarRateLimit, "imageRateLimit": c.ImageRateLimit,
		"pendingActionMinutes": c.PendingActionTTL.Minutes(), "logLevel": c.LogLevel, "trustedProxies": len(c.TrustedProxies)}
	want := map[string]any{"guideAddr": ":8080", "propertyAddr": ":8081", "sampleData": true, "publicRateLimit": 60,
		"guideDatabaseURL": "data/guide.db", "avatarRateLimit": 10, "imageRateLimit": 30,
		"pendingActionMinutes": 10.0, "logLevel": slog.LevelInfo, "trustedProxies": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("defaults (-want +got):\n%s", diff)
	}
}

func TestLoadValues(t *testing.T) {
	c, err := load(env(map[string]string{
		"GUIDE_ADDR": "127.0.0.1:9000", "SAMPLE_DATA": "off", "GUIDE_PUBLIC_RATE_LIMIT": "5",
		"TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7", "LOG_LEVEL": "debug", "DEMO_PASSWORD": "demo-pass-1",
		"IDP_A_ISSUER": "https://accounts.a.example", "IDP_A_AUDIENCE": "ios, web", "IDP_A_JWKS_URL": "https://a.example/jwks",
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"guideAddr": c.GuideAddr, "sampleData": c.SampleData, "publicRateLimit": c.PublicRateLimit, "logLevel": c.LogLevel,
		"trustedProxies": len(c.TrustedProxies), "demoPassword": c.DemoPassword, "idpA": c.IdpA != nil, "idpB": c.IdpB != nil, "authRateLimit": c.AuthRateLimit}
	if len(c.TrustedProxies) == 2 {
		got["secondProxy"] = c.TrustedProxies[1].String()
	}
	if c.IdpA != nil {
		got["idpAAudiences"] = len(c.IdpA.Audiences)
		if len(c.IdpA.Audiences) == 2 {
			got["idpASecondAudience"] = c.IdpA.Audiences[1]
		}
	}
	want := map[string]any{"guideAddr": "127.0.0.1:9000", "sampleData": false, "publicRateLimit": 5, "logLevel": slog.LevelDebug,
		"trustedProxies": 2, "secondProxy": "192.168.1.7/32", "demoPassword": "demo-pass-1",
		"idpA": true, "idpAAudiences": 2, "idpASecondAudience": "web", "idpB": false, "authRateLimit": 10}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("values (-want +got):\n%s", diff)
	}
}

func TestLoadRejects(t *testing.T) {
	_, err := load(env(map[string]string{
		"SAMPLE_DATA": "maybe", "SAMPLE_SCALE": "0", "DATABASE_MAX_CONNS": "none", "PPROF_ADDR": "6060", "GUIDE_PUBLIC_RATE_LIMIT": "0", "TRUSTED_PROXIES": "nope", "LOG_LEVEL": "loud", "DEMO_PASSWORD": "short",
		"JWT_SECRET": "too-short", "PENDING_ACTION_TTL": "10", "GUIDE_AUTH_RATE_LIMIT": "x", "IDP_A_ISSUER": "https://a.example", "IDP_B_ISSUER": "https://b",
		"IDP_B_AUDIENCE": "app", "IDP_B_JWKS_URL": "ftp://b/keys", "AI_BASE_URL": "http://ai.local/v1", "QUOTE_TTL": "5s",
		"S3_BUCKET": "avatars", "S3_ENDPOINT": "http://minio.local:9000/prefix", "S3_REGION": "r", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s",
	}))
	if err == nil {
		t.Fatal("bad settings accepted")
	}
	for _, name := range []string{"SAMPLE_DATA", "SAMPLE_SCALE", "DATABASE_MAX_CONNS", "PPROF_ADDR", "GUIDE_PUBLIC_RATE_LIMIT", "TRUSTED_PROXIES", "LOG_LEVEL", "DEMO_PASSWORD", "JWT_SECRET", "GUIDE_AUTH_RATE_LIMIT", "IDP_A_", "IDP_B_JWKS_URL", "PENDING_ACTION_TTL", "AI_MODEL", "QUOTE_TTL", "S3_ENDPOINT"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
}

func TestPublicURLs(t *testing.T) {
	c, err := load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.GuidePublicURL != "http://localhost:8080" || c.PropertyPublicURL != "http://localhost:8081" {
		t.Errorf("defaults %q %q", c.GuidePublicURL, c.PropertyPublicURL)
	}
	c, err = load(env(map[string]string{"GUIDE_ADDR": "127.0.0.1:9000", "PROPERTY_ADDR": "[::1]:9001"}))
	if err != nil || c.GuidePublicURL != "http://localhost:9000" || c.PropertyPublicURL != "http://localhost:9001" {
		t.Errorf("from the addresses: %v %+v", err, c)
	}
	for in, want := range map[string]string{
		"https://api.example.com":          "https://api.example.com",
		"https://api.example.com/":         "https://api.example.com",
		"HTTPS://API.example.com:8443/":    "https://API.example.com:8443",
		"http://gateway.example/guide/v1/": "http://gateway.example/guide/v1",
	} {
		c, err := load(env(map[string]string{"GUIDE_PUBLIC_URL": in, "PROPERTY_PUBLIC_URL": in}))
		if err != nil || c.GuidePublicURL != want || c.PropertyPublicURL != want {
			t.Errorf("%q: %v %q %q, want %q", in, err, c.GuidePublicURL, c.PropertyPublicURL, want)
		}
	}
	for _, bad := range []string{"api.example.com", "/guide", "ftp://x.example", "https://", "https://x.example/?a=1",
		"https://x.example/#top", "https://user:pw@x.example", "https://x.example?"} {
		_, err := load(env(map[string]string{"GUIDE_PUBLIC_URL": bad, "PROPERTY_PUBLIC_URL": bad}))
		if err == nil || !strings.Contains(err.Error(), "GUIDE_PUBLIC_URL") || !strings.Contains(err.Error(), "PROPERTY_PUBLIC_URL") {
			t.Errorf("%q accepted or not named: %v", bad, err)
		}
	}
}

// TestStartupSettings: a listen address or a database URL that cannot
// work is refused at load, naming the variable.
func TestStartupSettings(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"GUIDE_ADDR", "notaport"},
		{"GUIDE_ADDR", ":http"},
		{"GUIDE_ADDR", ":0"},
		{"PROPERTY_ADDR", "localhost:70000"},
		{"PROPERTY_ADDR", "8081"},
		{"GUIDE_DATABASE_URL", "mysql://x"},
		{"PROPERTY_DATABASE_URL", "mysql://x"},
		{"PROPERTY_DATABASE_URL", "sqlite:"},
		{"GUIDE_DATABASE_URL", "postgres:host/db"},
	} {
		_, err := load(env(map[string]string{tc.name: tc.value}))
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s=%q: %v", tc.name, tc.value, err)
		}
	}
	for _, ok := range []string{"data/x.db", "sqlite:data/x.db", "file:data/x.db", "postgres://u@h/db", "postgresql://u@h/db"} {
		if _, err := load(env(map[string]string{"GUIDE_DATABASE_URL": ok, "PROPERTY_DATABASE_URL": ok})); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}
