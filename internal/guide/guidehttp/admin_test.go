package guidehttp_test

import (
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide/sample"
)

// TestAdminAccess: the admin routes take the user token of an admin (an
// ADMIN_EMAILS address or the ADMIN role) and nothing else: not another
// user, not an admin's own API key, not an anonymous caller.
func TestAdminAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	root := e.register(t, testAdminEmail, "TOURIST")
	demo := e.tokenFor(t, sample.DemoAdminEmail)
	other := e.register(t, "not-admin@example.com", "TOURIST")

	var res struct {
		Data []map[string]any
		Meta struct{ Total int }
	}
	for _, u := range []user{root, demo} {
		e.Get("/api/v1/admin/audit", bearer(u.token)...).Expect(200).Decode(&res)
	}
	e.Get("/api/v1/admin/audit").Expect(401)
	e.Get("/api/v1/admin/audit", bearer(other.token)...).Expect(403)
	key := e.apiKey(t, root, "profile:read", "bookings:read")
	e.Get("/api/v1/admin/audit", bearer(key)...).Expect(403)
	e.Get("/api/v1/admin/audit?targetType=review", bearer(root.token)...).Expect(400)
	e.Get("/api/v1/admin/audit?pageSize=101", bearer(root.token)...).Expect(400)
}
