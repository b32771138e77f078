package propertyhttp

import (
	"strconv"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The REST query and the MCP tools send some arguments as text: these
// parse it into the service's typed fields, adding what is no date, time
// or number to errs, named as the service names its own refusals. The
// service checks the ranges.

// dateArg reads a YYYY-MM-DD argument, nil when absent.
func dateArg(errs apperr.FieldErrors, name, v string) *property.Date {
	v = field.Text(errs, name, v, len(time.DateOnly))
	if v == "" {
		return nil
	}
	d, err := property.ParseDate(v)
	if err != nil {
		errs.Add(name, err.Error())
		return nil
	}
	return &d
}

// timeArg reads an RFC 3339 date-time argument, nil when absent.
func timeArg(errs apperr.FieldErrors, name, v string) *time.Time {
	v = field.Text(errs, name, v, 40)
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		errs.Add(name, "must be an RFC 3339 date-time such as 2026-12-01T00:00:00Z")
		return nil
	}
	return &t
}

// amountArg reads an amount in minor units, nil when absent.
func amountArg(errs apperr.FieldErrors, name, v string) *int64 {
	return property.AmountRange.Parse(errs, name, field.Text(errs, name, v, 20))
}

// guestsArg reads a number of guests, nil when absent.
func guestsArg(errs apperr.FieldErrors, v string) *int {
	return property.GuestRange.Parse(errs, "guests", field.Text(errs, "guests", v, 3))
}

// pageArgs reads the page number and size of a list, nil when absent.
func pageArgs(errs apperr.FieldErrors, page, size string) (*int, *int) {
	return paging.PageRange.Parse(errs, "page", page), paging.SizeRange.Parse(errs, "pageSize", size)
}

// number is a tool's whole-number argument as text: 0, its zero value,
// is absent.
func number(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// amount is a tool's optional amount as text.
func amount(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}
