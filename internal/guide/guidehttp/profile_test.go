package guidehttp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

func TestProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	u := e.register(t, "profile@example.com", "TOURIST")
	var p struct{ Data map[string]any }
	res := e.Get("/api/v1/profile", bearer(u.token)...).Expect(200)
	res.Decode(&p)
	if p.Data["email"] != "profile@example.com" || p.Data["role"] != "TOURIST" || p.Data["name"] != "Test TOURIST" {
		t.Fatalf("profile: %v", p.Data)
	}
	if _, ok := p.Data["expert"]; ok {
		t.Error("a tourist's profile has an expert section")
	}
	var xp struct{ Data guide.Profile }
	e.Get("/api/v1/profile", bearer(e.tokenFor(t, "expert@example.com").token)...).Expect(200).Decode(&xp)
	gotExpert := map[string]any{"set": xp.Data.Expert != nil}
	if x := xp.Data.Expert; x != nil {
		gotExpert["handle"] = x.Handle
		gotExpert["hasSpecialties"] = len(x.Specialties) != 0
		gotExpert["countrySet"] = x.CountryCode != nil
	}
	wantExpert := map[string]any{"set": true, "handle": "demo-expert", "hasSpecialties": true, "countrySet": true}
	if diff := cmp.Diff(wantExpert, gotExpert); diff != "" {
		t.Fatalf("expert profile (-want +got):\n%s", diff)
	}

	// Only sent fields change; null clears one.
	var up struct{ Data guide.Profile }
	e.Do("PUT", "/api/v1/profile", map[string]any{"nickname": "Mei", "bio": "Food first.", "bioZh": "美食优先。"}, bearer(u.token)...).Expect(200).Decode(&up)
	if diff := cmp.Diff([]string{"Mei", "Food first.", "美食优先。", "Test TOURIST"},
		[]string{*up.Data.Nickname, *up.Data.Bio, *up.Data.BioZh, *up.Data.Name}); diff != "" {
		t.Fatalf("after update, nickname, bio, bioZh, name (-want +got):\n%s", diff)
	}
	e.Do("PUT", "/api/v1/profile", map[string]any{"bio": nil, "name": "  Mei Lin  "}, bearer(u.token)...).Expect(200).Decode(&up)
	if up.Data.Bio != nil || *up.Data.Name != "Mei Lin" || *up.Data.Nickname != "Mei" {
		t.Fatalf("after clearing bio: %+v", up.Data)
	}
	e.Do("PUT", "/api/v1/profile", map[string]any{}, bearer(u.token)...).Expect(200)

	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": strings.Repeat("n", 101)}, "name"},
		{map[string]any{"nickname": strings.Repeat("n", 51)}, "nickname"},
		{map[string]any{"bio": strings.Repeat("b", 501)}, "bio"},
		{map[string]any{"bioZh": strings.Repeat("中", 501)}, "bioZh"},
		{map[string]any{"name": "   "}, "name"},
		{map[string]any{"name": 5}, "name"},
		{map[string]any{"role": "ADMIN"}, "role"},
		{map[string]any{"email": "new@example.com"}, "email"},
	} {
		res := e.Do("PUT", "/api/v1/profile", c.body, bearer(u.token)...).Expect(400)
		if _, ok := res.ErrorDetails()[c.field]; !ok {
			t.Errorf("%v: details %v", c.body, res.ErrorDetails())
		}
	}
	e.Do("PUT", "/api/v1/profile", map[string]any{"bioZh": strings.Repeat("中", 500)}, bearer(u.token)...).Expect(200)
	var role, email string
	if err := e.db.QueryRow(`SELECT role, email FROM users WHERE id = $1`, u.id).Scan(&role, &email); err != nil {
		t.Fatal(err)
	}
	if role != "TOURIST" || email != "profile@example.com" {
		t.Errorf("role %s, email %s changed", role, email)
	}

	read := e.apiKey(t, u, "profile:read")
	write := e.apiKey(t, u, "profile:write")
	e.Get("/api/v1/profile", bearer(read)...).Expect(200)
	e.Do("PUT", "/api/v1/profile", map[string]any{"nickname": "K"}, bearer(read)...).Expect(403)
	e.Do("PUT", "/api/v1/profile", map[string]any{"nickname": "K"}, bearer(write)...).Expect(200)
	e.Get("/api/v1/profile", bearer(write)...).Expect(403)
	e.Get("/api/v1/profile").Expect(401)
}

func TestAccountClosure(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			u := b.tourist
			key := b.apiKey(t, u, "profile:read", "profile:write", "bookings:write")
			b.Do("POST", "/api/v1/auth/session-exchange", nil, bearer(u.token)...).Expect(200)
			b.Do("POST", "/api/push/register", map[string]any{"token": "device-1", "platform": "IOS"}, bearer(u.token)...).Expect(200)
			p := b.idp
			idToken := p.token(t, jwt.SigningMethodRS256, "rsa-1", p.claims(b.clock.Now(), "closing-sub", u.email))
			var linked tokenBody
			b.Do("POST", "/api/v1/auth/idp-a", map[string]any{"idToken": idToken}).Expect(200).Decode(&linked)
			if linked.User.ID != u.id {
				t.Fatal("the identity was not linked to the account")
			}

			// A booking still to happen blocks closure.
			id := b.book(t, u, nil)
			var conv struct{ Data guide.ConversationSummary }
			b.Do("POST", "/api/v1/conversations", map[string]string{"expertHandle": "demo-expert"}, bearer(u.token)...).Expect(201).Decode(&conv)
			b.Do("POST", "/api/v1/conversations/"+conv.Data.ID+"/messages", map[string]any{"content": "Bye!"}, bearer(u.token)...).Expect(201)
			var check struct{ Data guide.DeletionCheck }
			b.Get("/api/v1/profile/delete", bearer(u.token)...).Expect(200).Decode(&check)
			if diff := cmp.Diff(guide.DeletionCheck{Blockers: []guide.DeletionBlocker{{Type: "active_bookings", Count: 1}}}, check.Data,
				cmpopts.IgnoreFields(guide.DeletionBlocker{}, "Message")); diff != "" {
				t.Fatalf("check (-want +got):\n%s", diff)
			}
			b.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(u.token)...).Expect(422)
			b.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(key)...).Expect(422)
			b.Do("POST", "/api/v1/bookings/"+id+"/cancel", nil, bearer(u.token)...).Expect(200)
			b.Get("/api/v1/profile/delete", bearer(u.token)...).Expect(200).Decode(&check)
			if !check.Data.CanDelete || len(check.Data.Blockers) != 0 {
				t.Fatalf("check after cancel: %+v", check.Data)
			}
			for _, bad := range []map[string]any{{}, {"confirmation": "delete"}, {"confirmation": "YES"}} {
				b.Do("POST", "/api/v1/profile/delete", bad, bearer(u.token)...).Expect(400)
			}

			// With a key: 202, nothing happens until the owner confirms.
			var pending struct{ ActionID string }
			b.Do("POST", "/api/v1/profile/delete", map[string]any{"confirmation": "DELETE"}, bearer(key)...).Expect(202).Decode(&pending)
			b.Get("/api/v1/auth/me", bearer(u.token)...).Expect(200)
			var conf struct {
				Data struct {
					Status string
					Result struct {
						OK, Deleted bool
						DeletedAt   time.Time
					}
				}
			}
			b.Do("POST", "/api/v1/actions/"+pending.ActionID+"/confirm", nil, bearer(u.token)...).Expect(200).Decode(&conf)
			if conf.Data.Status != "confirmed" || !conf.Data.Result.OK || !conf.Data.Result.Deleted {
				t.Fatalf("confirm: %+v", conf.Data)
			}

			// Every way back in is gone.
			b.Get("/api/v1/auth/me", bearer(u.token)...).Expect(401)
			b.Get("/api/v1/profile", bearer(key)...).Expect(401)
			b.Do("POST", "/api/v1/auth/login", map[string]string{"email": u.email, "password": "correct-horse-1"}).Expect(401)
			// The e-mail is released: it can register again, and the identity
			// provider no longer leads to the closed account.
			again := b.register(t, u.email, "TOURIST")
			var fresh tokenBody
			b.Do("POST", "/api/v1/auth/idp-a", map[string]any{"idToken": idToken}).Expect(200).Decode(&fresh)
			if fresh.User.ID == u.id || fresh.User.ID != again.id {
				t.Errorf("the identity signs in to %s; closed %s, new %s", fresh.User.ID, u.id, again.id)
			}
			for table, n := range map[string]int{
				"api_keys":    b.count(t, `SELECT COUNT(*) FROM api_keys WHERE user_id = $1`, u.id),
				"push_tokens": b.count(t, `SELECT COUNT(*) FROM push_tokens WHERE user_id = $1`, u.id),
				"sessions":    b.count(t, `SELECT COUNT(*) FROM sessions WHERE user_id = $1`, u.id),
				"identities":  b.count(t, `SELECT COUNT(*) FROM identities WHERE user_id = $1`, u.id),
			} {
				if n != 0 {
					t.Errorf("%d rows left in %s", n, table)
				}
			}
			var email, name *string
			var hash *string
			if err := b.db.QueryRow(`SELECT email, name, password_hash FROM users WHERE id = $1`, u.id).Scan(&email, &name, &hash); err != nil {
				t.Fatal(err)
			}
			if email != nil || name != nil || hash != nil {
				t.Errorf("personal fields kept: %v %v %v", email, name, hash)
			}
			// What the account did remains, as Deleted User.
			d := b.detail(t, b.expert, id)
			if d.Tourist.Name == nil || *d.Tourist.Name != "Deleted User" || d.Tourist.Email != nil {
				t.Errorf("the booking's traveller: %+v", d.Tourist)
			}
			var page struct{ Data guide.MessagePage }
			b.Get("/api/v1/conversations/"+conv.Data.ID+"/messages", bearer(b.expert.token)...).Expect(200).Decode(&page)
			if len(page.Data.Messages) != 1 || *page.Data.Messages[0].Sender.Name != "Deleted User" {
				t.Errorf("messages after closure: %+v", page.Data.Messages)
			}
		})
	}
}
