package store_test

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

func TestWrap(t *testing.T) {
	wrap := func(err error) error {
		store.Wrap(&err, "find booking %s", "b1")
		return err
	}
	if err := wrap(nil); err != nil {
		t.Errorf("nil became %v", err)
	}
	err := wrap(sql.ErrNoRows)
	if err.Error() != "find booking b1: "+sql.ErrNoRows.Error() || !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("wrapped = %q; want the operation, and errors.Is to find sql.ErrNoRows", err)
	}
	domain := apperr.Errorf(apperr.NotFound, "No booking with id %q.", "b1")
	if err := wrap(domain); err != domain {
		t.Errorf("a domain error was changed: %v", err)
	}
}
