package guidehttp_test

import "testing"

func TestHomeRedirects(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{noSample: true})
	if res := e.Get("/", "Accept", "text/html").Expect(302); res.Header.Get("Location") != "/docs/" {
		t.Fatalf("Location %q", res.Header.Get("Location"))
	}
	if e.Get("/nothing").Expect(404).ErrorCode() != "NOT_FOUND" {
		t.Fatal("unknown path")
	}
}
