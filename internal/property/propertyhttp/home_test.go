package propertyhttp_test

import "testing"

func TestHomeRedirects(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{})
	res := e.Get("/", "Accept", "text/html").Expect(302)
	if res.Header.Get("Location") != "/portal/" {
		t.Fatalf("Location %q", res.Header.Get("Location"))
	}
	// Only the root: other unknown paths keep their JSON 404.
	if e.Get("/nothing").Expect(404).ErrorCode() != "NOT_FOUND" {
		t.Fatal("unknown path")
	}
}
