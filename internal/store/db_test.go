package store_test

import (
	"testing"

	"github.com/wayfarer-asia/platform/internal/store/storetest"
)

func TestMigrateTwice(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenDB(t, engine, "guide")
			if err := db.Migrate(t.Context(), "guide"); err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM users").Scan(&n); err != nil || n != 0 {
				t.Fatalf("users: %d, %v", n, err)
			}
		})
	}
}
