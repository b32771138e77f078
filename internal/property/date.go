package property

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Date is a calendar day with no time zone of its own, such as a night of
// stay in the property's local calendar. The zero Date is "no date".
type Date struct {
	t time.Time // midnight UTC of the day
}

// NewDate returns the day y-m-d; out-of-range values normalise as in
// time.Date.
func NewDate(y int, m time.Month, d int) Date { return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)} }

// DateOf returns the calendar day of t in t's location.
func DateOf(t time.Time) Date { return NewDate(t.Date()) }

var errDate = errors.New("must be a date in the form YYYY-MM-DD")

// ParseDate reads a date written strictly as YYYY-MM-DD, between the years
// 2000 and 2100.
func ParseDate(s string) (Date, error) {
	if len(s) != len(time.DateOnly) {
		return Date{}, errDate
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 2000 || t.Year() > 2100 {
		return Date{}, errDate
	}
	return Date{t}, nil
}

// MustParseDate is ParseDate for constants; it panics on a bad date.
func MustParseDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(fmt.Sprintf("property: bad date %q", s))
	}
	return d
}

// String returns the date as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.t.Format(time.DateOnly)
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.t.IsZero() }

// AddDays returns the date n days after d (before, for a negative n).
func (d Date) AddDays(n int) Date { return Date{d.t.AddDate(0, 0, n)} }

// DaysUntil returns the number of days from d to e: e.AddDays(-n) == d.
func (d Date) DaysUntil(e Date) int { return int(e.t.Sub(d.t).Round(time.Hour) / (24 * time.Hour)) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.t.After(e.t) }

// Equal reports whether d and e are the same day.
func (d Date) Equal(e Date) bool { return d.t.Equal(e.t) }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday { return d.t.Weekday() }

// Month returns the month of d.
func (d Date) Month() time.Month { return d.t.Month() }

// Day returns the day of the month of d.
func (d Date) Day() int { return d.t.Day() }

// Year returns the year of d.
func (d Date) Year() int { return d.t.Year() }

// At returns the instant of the local time hh:mm on d in loc.
func (d Date) At(hh, mm int, loc *time.Location) time.Time {
	return time.Date(d.t.Year(), d.t.Month(), d.t.Day(), hh, mm, 0, 0, loc)
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// UnmarshalJSON reads "YYYY-MM-DD" strictly.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errDate
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Value stores the date as the text YYYY-MM-DD, which SQLite keeps as text
// that sorts by date and PostgreSQL reads into a DATE column.
func (d Date) Value() (driver.Value, error) {
	if d.IsZero() {
		return nil, nil
	}
	return d.String(), nil
}

// Scan reads a date column: a time from PostgreSQL's DATE, text from
// SQLite.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = Date{}
		return nil
	case time.Time:
		*d = NewDate(v.Date())
		return nil
	case string:
		return d.scanText(v)
	case []byte:
		return d.scanText(string(v))
	}
	return fmt.Errorf("property: cannot scan %T into a Date", src)
}

func (d *Date) scanText(s string) error {
	if len(s) > 10 {
		s = s[:10]
	}
	v, err := ParseDate(s)
	if err != nil {
		return fmt.Errorf("property: stored date %q: %w", s, err)
	}
	*d = v
	return nil
}
