package propertyhttp_test

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/property/propertyhttp"
)

// TestAuthorizationMatrix: for every property route with an id, another
// account's key, the owner's key of the other mode, the owner's key
// without the scope, and another developer's portal token try the owner's
// resource; each is refused and nothing changes. Driven by the route
// table: a new {id} route without a rule fails.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	r := e.tokyoDouble(t)
	owner, other := e.signup(t), e.signup(t)
	ownerKey := e.key(t, owner, "live")
	ownerTest := e.key(t, owner, "test")
	readOnly := e.key(t, owner, "live", "properties:read")
	otherKey := e.key(t, other, "live")

	var booking struct{ ID string }
	e.Do("POST", "/api/v1/bookings", mergeMaps(stay(r, day(10), 2, 2), map[string]any{"guest": guest}), xkey(ownerKey)...).Expect(201).Decode(&booking)
	var keys struct {
		Data []struct{ ID string }
	}
	e.Get("/portal/api/keys", bearer(owner.token)...).Expect(200).Decode(&keys)
	var hook, ping struct{ ID string }
	e.Do("POST", "/portal/api/webhooks", map[string]any{"url": "https://hooks.example.com/in"}, bearer(owner.token)...).Expect(201).Decode(&hook)
	e.Do("POST", "/portal/api/webhooks/"+hook.ID+"/test", nil, bearer(owner.token)...).Expect(202).Decode(&ping)
	portalOnly := map[string][]string{"another developer": bearer(other.token), "an API key": bearer(ownerKey)}
	e.grant(t, owner, "properties:read")
	var apps struct{ Data []struct{ ID string } }
	e.Get("/portal/api/connected-apps", bearer(owner.token)...).Expect(200).Decode(&apps)

	hosted := e.hostRoom(t, ownerKey, 2)
	keyNoWrite := map[string][]string{"another account's key": xkey(otherKey), "the owner's test key": xkey(ownerTest), "a key without the scope": xkey(readOnly)}
	rules := map[string]struct {
		id          string
		credentials map[string][]string
		body        any
	}{
		"PATCH /api/v1/properties/{id}":                          {hosted.propertyID, keyNoWrite, map[string]any{"name": "Taken"}},
		"POST /api/v1/properties/{id}/room-types":                {hosted.propertyID, keyNoWrite, newRoomType},
		"PATCH /api/v1/properties/{id}/room-types/{roomTypeId}":  {hosted.propertyID, keyNoWrite, map[string]any{"name": "Taken"}},
		"DELETE /api/v1/properties/{id}/room-types/{roomTypeId}": {hosted.propertyID, keyNoWrite, nil},
		"PATCH /api/v1/properties/{id}/calendar": {hosted.propertyID, keyNoWrite, calendar(map[string]any{"roomTypeId": hosted.roomTypeID,
			"from": day(1).String(), "to": day(2).String(), "units": 0})},
		"GET /api/v1/bookings/{id}": {booking.ID, map[string][]string{
			"another account's key": xkey(otherKey), "the owner's test key": xkey(ownerTest), "a key without the scope": xkey(readOnly)}, nil},
		"POST /api/v1/bookings/{id}/cancel": {booking.ID, map[string][]string{
			"another account's key": xkey(otherKey), "the owner's test key": xkey(ownerTest), "a key without the scope": xkey(readOnly)}, nil},
		"GET /portal/api/properties/{id}/availability": {hosted.propertyID, map[string][]string{"another developer": bearer(other.token), "an API key": bearer(ownerKey)}, nil},
		"PATCH /portal/api/properties/{id}/calendar": {hosted.propertyID, map[string][]string{"another developer": bearer(other.token), "an API key": bearer(ownerKey)},
			calendar(map[string]any{"roomTypeId": hosted.roomTypeID, "from": day(1).String(), "to": day(2).String(), "units": 0})},
		"DELETE /portal/api/keys/{id}":                        {keys.Data[0].ID, map[string][]string{"another developer": bearer(other.token), "an API key": bearer(ownerKey)}, nil},
		"POST /portal/api/keys/{id}/rotate":                   {keys.Data[0].ID, map[string][]string{"another developer": bearer(other.token), "an API key": bearer(ownerKey)}, nil},
		"DELETE /portal/api/connected-apps/{id}":              {apps.Data[0].ID, portalOnly, nil},
		"GET /portal/api/webhooks/{id}":                       {hook.ID, portalOnly, nil},
		"PATCH /portal/api/webhooks/{id}":                     {hook.ID, portalOnly, nil},
		"DELETE /portal/api/webhooks/{id}":                    {hook.ID, portalOnly, nil},
		"POST /portal/api/webhooks/{id}/rotate-secret":        {hook.ID, portalOnly, nil},
		"POST /portal/api/webhooks/{id}/test":                 {hook.ID, portalOnly, nil},
		"GET /portal/api/webhooks/{id}/deliveries":            {hook.ID, portalOnly, nil},
		"POST /portal/api/webhooks/deliveries/{id}/redeliver": {ping.ID, portalOnly, nil},
	}
	// An authorization request becomes the grant of whoever signs in to
	// decide on it, as OAuth has it: the link is the application's.
	public := map[string]bool{"GET /api/v1/properties/{id}": true, "GET /api/v1/properties/{id}/availability": true,
		"GET /oauth/requests/{id}": true, "POST /oauth/requests/{id}": true}

	snapshot := func() string {
		var out strings.Builder
		for _, q := range []string{
			`SELECT id || status FROM bookings ORDER BY id`,
			`SELECT id || name || status FROM properties ORDER BY id`,
			`SELECT id || name || COALESCE(CAST(deleted_at AS TEXT), '') FROM room_types ORDER BY id`,
			`SELECT CAST(SUM(total_units) AS TEXT) FROM calendar`,
			`SELECT id || COALESCE(CAST(revoked_at AS TEXT), '') || COALESCE(CAST(expires_at AS TEXT), '') FROM api_keys ORDER BY id`,
			`SELECT id || status || secret FROM webhook_endpoints ORDER BY id`,
			`SELECT id FROM webhook_deliveries ORDER BY id`,
		} {
			rows, err := e.db.Query(q)
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
	tested := 0
	for _, pattern := range propertyhttp.New(propertyhttp.Config{OAuth: oauth.New(oauth.Config{})}).Routes() {
		if !strings.Contains(pattern, "{id}") || public[pattern] {
			continue
		}
		rule, ok := rules[pattern]
		if !ok {
			t.Errorf("route %q has no authorization rule in this test", pattern)
			continue
		}
		method, path, _ := strings.Cut(pattern, " ")
		path = strings.Replace(path, "{id}", rule.id, 1)
		path = strings.Replace(path, "{roomTypeId}", hosted.roomTypeID, 1)
		for who, cred := range rule.credentials {
			body := rule.body
			if body == nil && method == "PATCH" {
				body = map[string]any{"description": "taken over"}
			}
			if res := e.Do(method, path, body, cred...); res.Status != 401 && res.Status != 403 && res.Status != 404 {
				t.Errorf("%s as %s: %d %s", pattern, who, res.Status, res.Body)
			}
		}
		tested++
	}
	if tested != len(rules) {
		t.Errorf("tested %d routes, rules for %d", tested, len(rules))
	}
	if after := snapshot(); after != before {
		t.Errorf("refused requests changed data:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The owner can, so the refusals above are about who, not what.
	e.Get("/api/v1/bookings/"+booking.ID, xkey(ownerKey)...).Expect(200)
}
