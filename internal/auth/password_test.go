package auth

import "testing"

func TestPassword(t *testing.T) {
	hash, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := CheckPassword(hash, "correct horse"); !ok || err != nil {
		t.Fatalf("right password refused: %v %v", ok, err)
	}
	if ok, _ := CheckPassword(hash, "correct horsE"); ok {
		t.Fatal("wrong password accepted")
	}
	other, _ := HashPassword("correct horse")
	if other == hash {
		t.Fatal("two hashes of one password are equal: salt not random")
	}
	for _, bad := range []string{"", "$argon2id$v=19$m=1,t=1,p=1$$", "$bcrypt$x$y$z$w", "$argon2id$v=18$m=1,t=1,p=1$AAAA$AAAA"} {
		if ok, err := CheckPassword(bad, "x"); ok || err == nil {
			t.Errorf("hash %q: got %v, %v", bad, ok, err)
		}
	}
}

func TestCheckLogin(t *testing.T) {
	hash, _ := HashPassword("right password")
	if !CheckLogin(hash, "right password") || CheckLogin(hash, "wrong password") || CheckLogin("", "right password") || CheckLogin("$bad$", "x") {
		t.Fatal("CheckLogin answers wrongly")
	}
}
