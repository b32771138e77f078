package guidedb_test

import (
	"strings"
	"testing"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestErrorsNameTheOperation: a database failure says which operation and
// which key failed; a domain error keeps its code and message as they are.
func TestErrorsNameTheOperation(t *testing.T) {
	t.Parallel()
	db := storetest.MustOpenDB(t, store.SQLite, guidedb.Schema)
	g := guidedb.New(db, clock.System{})
	_, err := g.FindPackageByID(t.Context(), "p-missing", "en")
	if apperr.Code(err) != apperr.NotFound || strings.HasPrefix(err.Error(), "find package") {
		t.Errorf("missing package: %v; want NOT_FOUND unwrapped", err)
	}
	db.Close()
	_, err = g.FindPackageByID(t.Context(), "p-1", "en")
	if err == nil || !strings.HasPrefix(err.Error(), "find package p-1: ") || apperr.Code(err) != apperr.Internal {
		t.Errorf("closed database: %v; want an internal error naming the operation and the id", err)
	}
	if _, err := g.CloseAccount(t.Context(), "u-1"); err == nil || !strings.HasPrefix(err.Error(), "close account of user u-1: begin transaction: ") {
		t.Errorf("closed database: %v; want the operation, the id and the step", err)
	}
}
