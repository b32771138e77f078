package config

import (
	"slices"
	"strings"
	"testing"
)

func TestCORSOrigins(t *testing.T) {
	c, err := load(env(map[string]string{
		"GUIDE_CORS_ALLOWED_ORIGINS":    "https://App.example.com, http://localhost:3000/",
		"PROPERTY_CORS_ALLOWED_ORIGINS": "*",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.GuideCORSOrigins, []string{"https://app.example.com", "http://localhost:3000"}) || !slices.Equal(c.PropertyCORSOrigins, []string{"*"}) {
		t.Fatalf("origins: %q %q", c.GuideCORSOrigins, c.PropertyCORSOrigins)
	}
	if c, _ := load(env(nil)); len(c.GuideCORSOrigins)+len(c.PropertyCORSOrigins) != 0 {
		t.Fatalf("unset: %q %q", c.GuideCORSOrigins, c.PropertyCORSOrigins)
	}
	_, err = load(env(map[string]string{"GUIDE_CORS_ALLOWED_ORIGINS": "https://a.example/app", "PROPERTY_CORS_ALLOWED_ORIGINS": "a.example"}))
	if err == nil || !strings.Contains(err.Error(), "GUIDE_CORS_ALLOWED_ORIGINS") || !strings.Contains(err.Error(), "PROPERTY_CORS_ALLOWED_ORIGINS") {
		t.Fatalf("bad origins: %v", err)
	}
}

func TestMetricsAddr(t *testing.T) {
	if c, err := load(env(nil)); err != nil || c.MetricsAddr != "" {
		t.Fatalf("unset: %q %v", c.MetricsAddr, err)
	}
	if c, err := load(env(map[string]string{"METRICS_ADDR": "127.0.0.1:9090"})); err != nil || c.MetricsAddr != "127.0.0.1:9090" {
		t.Fatalf("set: %v", err)
	}
	for _, bad := range []string{"9090", ":8080"} {
		if _, err := load(env(map[string]string{"METRICS_ADDR": bad})); err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
			t.Errorf("METRICS_ADDR=%s: %v", bad, err)
		}
	}
}
