package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	// Off the public ports unless asked for.
	if c, err := load(env(nil)); err != nil || c.MetricsAddr != "127.0.0.1:9090" {
		t.Fatalf("unset: %q %v", c.MetricsAddr, err)
	}
	if c, err := load(env(map[string]string{"METRICS_ADDR": ":9100"})); err != nil || c.MetricsAddr != ":9100" {
		t.Fatalf("set: %v", err)
	}
	if c, err := load(env(map[string]string{"METRICS_ADDR": "api"})); err != nil || c.MetricsAddr != "" {
		t.Fatalf("api: %q %v", c.MetricsAddr, err)
	}
	for _, bad := range []string{"9090", ":8080"} {
		if _, err := load(env(map[string]string{"METRICS_ADDR": bad})); err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
			t.Errorf("METRICS_ADDR=%s: %v", bad, err)
		}
	}
}

func TestCurrencyRates(t *testing.T) {
	c, err := load(env(nil))
	if err != nil || len(c.CurrencyRates) != 5 || c.CurrencyRates["JPY"] != 0.0067 {
		t.Fatalf("defaults: %v %v", c.CurrencyRates, err)
	}
	c, err = load(env(map[string]string{"CURRENCY_RATES": "jpy=0.007, USD=1"}))
	if err != nil {
		t.Fatalf("set: %v", err)
	}
	if diff := cmp.Diff(map[string]float64{"JPY": 0.007, "USD": 1}, c.CurrencyRates); diff != "" {
		t.Fatalf("set (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"JPY", "JPY=0", "JPYX=0.007", "JPY=-1", "JPY=x"} {
		if _, err := load(env(map[string]string{"CURRENCY_RATES": bad})); err == nil || !strings.Contains(err.Error(), "CURRENCY_RATES") {
			t.Errorf("CURRENCY_RATES=%s: %v", bad, err)
		}
	}
}
