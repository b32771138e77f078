package config

import (
	"log/slog"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaults(t *testing.T) {
	c, err := load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.GuideAddr != ":8080" || c.PropertyAddr != ":8081" || !c.SampleData || c.PublicRateLimit != 60 ||
		c.GuideDatabaseURL != "data/guide.db" || c.PendingActionTTL.Minutes() != 10 || c.LogLevel != slog.LevelInfo || len(c.TrustedProxies) != 0 {
		t.Fatalf("defaults: %+v", c)
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
	if c.GuideAddr != "127.0.0.1:9000" || c.SampleData || c.PublicRateLimit != 5 || c.LogLevel != slog.LevelDebug ||
		len(c.TrustedProxies) != 2 || c.TrustedProxies[1].String() != "192.168.1.7/32" || c.DemoPassword != "demo-pass-1" ||
		c.IdpA == nil || len(c.IdpA.Audiences) != 2 || c.IdpA.Audiences[1] != "web" || c.IdpB != nil || c.AuthRateLimit != 10 {
		t.Fatalf("values: %+v", c)
	}
}

func TestLoadRejects(t *testing.T) {
	_, err := load(env(map[string]string{
		"SAMPLE_DATA": "maybe", "GUIDE_PUBLIC_RATE_LIMIT": "0", "TRUSTED_PROXIES": "nope", "LOG_LEVEL": "loud", "DEMO_PASSWORD": "short",
		"JWT_SECRET": "too-short", "PENDING_ACTION_TTL": "10", "GUIDE_AUTH_RATE_LIMIT": "x", "IDP_A_ISSUER": "https://a.example", "IDP_B_ISSUER": "https://b",
		"IDP_B_AUDIENCE": "app", "IDP_B_JWKS_URL": "ftp://b/keys", "AI_BASE_URL": "http://ai.local/v1", "QUOTE_TTL": "5s",
		"S3_BUCKET": "avatars", "S3_ENDPOINT": "http://minio.local:9000/prefix", "S3_REGION": "r", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s",
	}))
	if err == nil {
		t.Fatal("bad settings accepted")
	}
	for _, name := range []string{"SAMPLE_DATA", "GUIDE_PUBLIC_RATE_LIMIT", "TRUSTED_PROXIES", "LOG_LEVEL", "DEMO_PASSWORD", "JWT_SECRET", "GUIDE_AUTH_RATE_LIMIT", "IDP_A_", "IDP_B_JWKS_URL", "PENDING_ACTION_TTL", "AI_MODEL", "QUOTE_TTL", "S3_ENDPOINT"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
}
