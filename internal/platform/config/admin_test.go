package config

import (
	"slices"
	"strings"
	"testing"
)

func TestAdminEmails(t *testing.T) {
	c, err := load(env(map[string]string{"ADMIN_EMAILS": " Ops@Example.com ,, root@example.org"}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.AdminEmails, []string{"ops@example.com", "root@example.org"}) {
		t.Fatalf("AdminEmails = %q", c.AdminEmails)
	}
	for _, bad := range []string{"ops", "Ops <ops@example.com>", "a@b.c,nope"} {
		if _, err := load(env(map[string]string{"ADMIN_EMAILS": bad})); err == nil || !strings.Contains(err.Error(), "ADMIN_EMAILS") {
			t.Errorf("ADMIN_EMAILS=%q: %v", bad, err)
		}
	}
}
