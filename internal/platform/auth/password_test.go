package auth

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPassword(t *testing.T) {
	ctx := t.Context()
	hash, err := HashPassword(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := CheckPassword(ctx, hash, "correct horse"); !ok || err != nil {
		t.Fatalf("right password refused: %v %v", ok, err)
	}
	if ok, _ := CheckPassword(ctx, hash, "correct horsE"); ok {
		t.Fatal("wrong password accepted")
	}
	other, _ := HashPassword(ctx, "correct horse")
	if other == hash {
		t.Fatal("two hashes of one password are equal: salt not random")
	}
	for _, bad := range []string{"", "$argon2id$v=19$m=1,t=1,p=1$$", "$bcrypt$x$y$z$w", "$argon2id$v=18$m=1,t=1,p=1$AAAA$AAAA"} {
		if ok, err := CheckPassword(ctx, bad, "x"); ok || err == nil {
			t.Errorf("hash %q: got %v, %v", bad, ok, err)
		}
	}
}

func TestCheckLogin(t *testing.T) {
	ctx := t.Context()
	hash, _ := HashPassword(ctx, "right password")
	check := func(hash, password string) bool {
		ok, err := CheckLogin(ctx, hash, password)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	got := map[string]bool{
		"right password": check(hash, "right password"),
		"wrong password": check(hash, "wrong password"),
		"no hash":        check("", "right password"),
		"bad hash":       check("$bad$", "x"),
	}
	want := map[string]bool{"right password": true, "wrong password": false, "no hash": false, "bad hash": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("CheckLogin (-want +got):\n%s", diff)
	}
}

// TestPasswordCostIsTheBaseline: outside the API tests (which lower it),
// new hashes carry the OWASP baseline parameters.
func TestPasswordCostIsTheBaseline(t *testing.T) {
	h, err := HashPassword(t.Context(), "correct-horse-1")
	if err != nil || !strings.Contains(h, "$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q: %v", h, err)
	}
}
