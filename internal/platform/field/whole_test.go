package field_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// TestRange: a door's text that is no whole number and a value out of the
// range are refused with the same message, so that the door and the
// service word it alike; absent text is nil and takes the default.
func TestRange(t *testing.T) {
	r := field.Range[int]{Min: 1, Max: 100}
	amount := field.Range[int64]{Min: 0, Max: 1e15, Message: "must be an amount"}
	errs := apperr.FieldErrors{}
	got := map[string]any{
		"absent":  r.Parse(errs, "absent", "  "),
		"spaced":  *r.Parse(errs, "spaced", " 7 "),
		"word":    r.Parse(errs, "word", "ten"),
		"huge":    r.Parse(errs, "huge", "99999999999999999999"),
		"low":     r.Check(errs, "low", new(0), 20),
		"default": r.Check(errs, "default", nil, 20),
		"kept":    r.Check(errs, "kept", new(100), 20),
		"money":   amount.Parse(errs, "money", "1.5"),
		"minus":   amount.Check(errs, "minus", new(int64(-1)), 0),
	}
	want := map[string]any{
		"absent": (*int)(nil), "spaced": 7, "word": (*int)(nil), "huge": (*int)(nil),
		"low": 20, "default": 20, "kept": 100, "money": (*int64)(nil), "minus": int64(0),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	wantErrs := apperr.FieldErrors{
		"word": "must be a whole number from 1 to 100", "huge": "must be a whole number from 1 to 100",
		"low": "must be a whole number from 1 to 100", "money": "must be an amount", "minus": "must be an amount",
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
