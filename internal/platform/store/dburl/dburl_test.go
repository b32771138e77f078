package dburl

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string][2]string{
		"data/guide.db":                   {SQLite, "data/guide.db"},
		"/var/lib/guide.db":               {SQLite, "/var/lib/guide.db"},
		"./odd:name.db":                   {SQLite, "./odd:name.db"},
		"sqlite:data/x.db":                {SQLite, "data/x.db"},
		"sqlite:///abs/x.db?mode=rwc":     {SQLite, "/abs/x.db"},
		"file:data/x.db":                  {SQLite, "data/x.db"},
		"FILE:///abs/x.db":                {SQLite, "/abs/x.db"},
		"postgres://u@h:5432/db":          {Postgres, "postgres://u@h:5432/db"},
		"postgresql://u@h/db?sslmode=off": {Postgres, "postgresql://u@h/db?sslmode=off"},
	} {
		engine, target, err := Parse(in)
		if err != nil || engine != want[0] || target != want[1] {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", in, engine, target, err, want[0], want[1])
		}
	}
	for in, why := range map[string]string{
		"":                        "empty",
		"mysql://x":               `scheme "mysql"`,
		"mysql:x":                 `scheme "mysql"`,
		"redis://localhost/0":     `scheme "redis"`,
		"sqlite:":                 "names no file",
		"file:?mode=memory":       "names no file",
		"postgres:secret@host/db": "postgres://",
	} {
		_, _, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Parse(%q): %v, want an error about %s", in, err, why)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q): the error shows the password: %v", in, err)
		}
	}
}
