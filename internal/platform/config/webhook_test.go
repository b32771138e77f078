package config

import (
	"slices"
	"strings"
	"testing"
)

func TestLoadWebhookAllowHosts(t *testing.T) {
	c, err := load(env(map[string]string{"WEBHOOK_ALLOW_HOSTS": " 127.0.0.1, Hooks.Internal ,10.0.0.0/8,::1"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"127.0.0.1", "hooks.internal", "10.0.0.0/8", "::1"}; !slices.Equal(c.WebhookAllowHosts, want) {
		t.Errorf("WebhookAllowHosts = %v, want %v", c.WebhookAllowHosts, want)
	}
	if _, err := load(env(map[string]string{"WEBHOOK_ALLOW_HOSTS": "https://x.example/"})); err == nil || !strings.Contains(err.Error(), "WEBHOOK_ALLOW_HOSTS") {
		t.Errorf("a URL accepted: %v", err)
	}
	if c, _ := load(env(nil)); len(c.WebhookAllowHosts) != 0 {
		t.Errorf("default = %v", c.WebhookAllowHosts)
	}
}
