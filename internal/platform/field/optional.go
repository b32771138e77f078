package field

import (
	"bytes"
	"encoding/json"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Optional is a body field that tells apart "absent", "null" and a value,
// for updates where only sent fields change and null clears one.
type Optional[T any] struct {
	Set   bool // the field was in the body
	Value *T   // nil when the field was null
}

// Required reports whether the field is to be set: it was sent with a
// value. Sent as null, or absent on a create, it is added to errs as
// required. For the create and update bodies where absent means "leave
// as it is".
func (o Optional[T]) Required(errs apperr.FieldErrors, field string, create bool) bool {
	if (create && !o.Set) || (o.Set && o.Value == nil) {
		errs.Add(field, "is required")
		return false
	}
	return o.Set
}

// UnmarshalJSON records that the field was sent.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(b, []byte("null")) {
		o.Value = nil
		return nil
	}
	o.Value = new(T)
	return json.Unmarshal(b, o.Value)
}
