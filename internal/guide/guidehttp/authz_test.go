package guidehttp_test

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidehttp"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// TestAuthorizationMatrix: for every route with an id, another user, that
// user's all-scope API key, and the owner's key without the needed scope
// try the owner's resource; each is refused and nothing changes. The
// matrix is driven by the route table: a new {id} route without a rule
// here fails the test.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	b := newBookingEnv(t, "sqlite")
	owner := b.tourist
	ownerKey := b.apiKey(t, owner, "bookings:read", "bookings:write", "profile:read", "profile:write")
	noScope := b.apiKey(t, owner, "experts:read")
	strangerKey := b.apiKey(t, b.stranger, guide.Scopes...)

	booking := b.book(t, owner, nil)
	completed := b.book(t, owner, nil)
	for _, step := range []string{"accept", "start", "complete"} {
		b.Do("POST", "/api/v1/bookings/"+completed+"/"+step, nil, bearer(b.expert.token)...).Expect(200)
	}
	var pending struct{ ActionID string }
	b.Do("POST", "/api/v1/bookings/"+booking+"/cancel", nil, bearer(ownerKey)...).Expect(202).Decode(&pending)
	var conv struct{ Data guide.ConversationSummary }
	b.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(owner.token)...).Expect(201).Decode(&conv)
	b.Do("POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", map[string]any{"content": "private"}, bearer(b.expert.token)...).Expect(201)
	var pkg string
	if err := b.db.QueryRow(`SELECT p.id FROM packages p JOIN experts e ON e.id = p.expert_id WHERE e.user_id = $1 ORDER BY p.id LIMIT 1`,
		b.expert.id).Scan(&pkg); err != nil {
		t.Fatal(err)
	}
	app := b.apply(t, owner, application("owner-guide", "Nagoya"))
	var keys struct{ Data []guide.APIKey }
	b.Get("/api/v1/auth/api-keys", bearer(owner.token)...).Expect(200).Decode(&keys)
	hook := b.createEndpoint(t, owner, "https://hooks.example.com/in")
	var ping struct{ Data delivery }
	b.Do("POST", "/api/v1/webhooks/"+hook.ID+"/test", nil, bearer(owner.token)...).Expect(202).Decode(&ping)
	_, reg := b.registerClient(t, map[string]any{"client_name": "Owner's agent", "redirect_uris": []string{testRedirect}})
	b.tokenGrant(t, owner, reg["client_id"].(string), verifier, "bookings:read")
	var apps struct{ Data []oauth.ConnectedApp }
	b.Get("/api/v1/profile/connected-apps", bearer(owner.token)...).Expect(200).Decode(&apps)
	var report struct{ Data guide.Report }
	b.Do("POST", "/api/v1/reports", map[string]any{"targetType": "expert", "targetId": "demo-expert", "reason": "spam"},
		bearer(owner.token)...).Expect(201).Decode(&report)

	// The owner's resource for each {id} route, and the body to send.
	rules := map[string]struct {
		id   string
		body any
	}{
		"GET /api/v1/bookings/{id}":                       {booking, nil},
		"POST /api/v1/bookings/{id}/accept":               {booking, nil},
		"POST /api/v1/bookings/{id}/start":                {booking, nil},
		"POST /api/v1/bookings/{id}/complete":             {booking, nil},
		"POST /api/v1/bookings/{id}/cancel":               {booking, nil},
		"POST /api/v1/bookings/{id}/review":               {completed, map[string]any{"rating": 1}},
		"GET /api/v1/actions/{id}":                        {pending.ActionID, nil},
		"POST /api/v1/actions/{id}/confirm":               {pending.ActionID, nil},
		"GET /api/v1/conversations/{id}/messages":         {conv.Data.ID, nil},
		"POST /api/v1/conversations/{id}/messages":        {conv.Data.ID, map[string]any{"content": "injected"}},
		"POST /api/v1/conversations/{id}/read":            {conv.Data.ID, nil},
		"DELETE /api/v1/auth/api-keys/{id}":               {keys.Data[0].ID, nil},
		"DELETE /api/v1/profile/connected-apps/{id}":      {apps.Data[0].ID, nil},
		"PATCH /api/v1/packages/{id}":                     {pkg, map[string]any{"status": "archived"}},
		"POST /api/v1/packages/{id}/images":               {pkg, nil},
		"GET /api/v1/webhooks/{id}":                       {hook.ID, nil},
		"PATCH /api/v1/webhooks/{id}":                     {hook.ID, map[string]any{"description": "taken over"}},
		"DELETE /api/v1/webhooks/{id}":                    {hook.ID, nil},
		"POST /api/v1/webhooks/{id}/rotate-secret":        {hook.ID, nil},
		"POST /api/v1/webhooks/{id}/test":                 {hook.ID, nil},
		"GET /api/v1/webhooks/{id}/deliveries":            {hook.ID, nil},
		"POST /api/v1/webhooks/deliveries/{id}/redeliver": {ping.Data.ID, nil},
		"POST /api/v1/admin/reports/{id}/dismiss":         {report.Data.ID, map[string]any{"reason": "not an admin"}},
		"PATCH /api/v1/expert-applications/{id}":          {app.ID, map[string]any{"name": "Taken Over"}},
		"POST /api/v1/expert-applications/{id}/documents": {app.ID, nil},
		// Admins' routes: the owner's application, which no one else decides.
		"GET /api/v1/admin/expert-applications/{id}":                   {app.ID, nil},
		"POST /api/v1/admin/expert-applications/{id}/{decision}":       {app.ID, map[string]any{}},
		"GET /api/v1/admin/expert-applications/{id}/documents/{docId}": {app.ID, nil},
	}
	// Catalogue reads: public, nobody's resource.
	// An authorization request becomes the grant of whoever signs in to
	// decide on it, as OAuth has it: the link is the application's.
	public := map[string]bool{"GET /api/v1/packages/{id}": true, "GET /oauth/requests/{id}": true, "POST /oauth/requests/{id}": true}
	snapshot := func() string {
		var out strings.Builder
		for _, q := range []string{
			`SELECT id || status || COALESCE(CAST(cancelled_at AS TEXT), '') FROM bookings WHERE tourist_id = $1 ORDER BY id`,
			`SELECT r.id FROM reviews r JOIN bookings b ON b.id = r.booking_id WHERE b.tourist_id = $1`,
			`SELECT id || status FROM pending_actions WHERE user_id = $1`,
			`SELECT m.id || CAST(m.is_read AS TEXT) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.tourist_id = $1 ORDER BY m.id`,
			`SELECT id || COALESCE(CAST(revoked_at AS TEXT), '') FROM api_keys WHERE user_id = $1 ORDER BY id`,
			`SELECT id || title || status || images FROM packages WHERE $1 <> '' ORDER BY id`,
			`SELECT id || status || COALESCE(description, '') || secret FROM webhook_endpoints WHERE substr(owner, 6) = $1 ORDER BY id`,
			`SELECT id || status FROM reports WHERE reporter_id = $1 ORDER BY id`,
			`SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE substr(e.owner, 6) = $1 ORDER BY d.id`,
			`SELECT id || status || profile || statement FROM expert_applications WHERE user_id = $1 ORDER BY id`,
		} {
			rows, err := b.db.Query(q, owner.id)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out.WriteString(s + "\n")
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
		return out.String()
	}
	before := snapshot()

	routes := guidehttp.New(guidehttp.Config{Service: &guide.Service{}, OAuth: oauth.New(oauth.Config{})}).Routes()
	tested := 0
	for _, pattern := range routes {
		if !strings.Contains(pattern, "{id}") {
			continue
		}
		if public[pattern] {
			continue
		}
		rule, ok := rules[pattern]
		if !ok {
			t.Errorf("route %q has no authorization rule in this test", pattern)
			continue
		}
		method, path, _ := strings.Cut(pattern, " ")
		path = strings.Replace(path, "{id}", rule.id, 1)
		path = strings.Replace(path, "{decision}", "approve", 1)
		path = strings.Replace(path, "{docId}", rule.id, 1)
		for _, attacker := range []struct {
			name       string
			credential string
		}{
			{"another user", b.stranger.token},
			{"another user's key", strangerKey},
			{"the owner's key without the scope", noScope},
		} {
			res := b.Do(method, path, rule.body, bearer(attacker.credential)...)
			if res.Status != 403 && res.Status != 404 {
				t.Errorf("%s as %s: %d %s", pattern, attacker.name, res.Status, res.Body)
			}
		}
		tested++
	}
	if tested != len(rules) {
		t.Errorf("tested %d routes, rules for %d: a rule names a route that no longer exists", tested, len(rules))
	}
	if after := snapshot(); after != before {
		t.Errorf("refused requests changed the owner's data:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
