// Package paging holds the page selection and page meta that the lists of
// both products share.
package paging

import (
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// Page selects a page of a list.
type Page struct {
	Page     int    // 1-based
	PageSize int    // 1..100
	Order    string // "asc" or "desc"
}

// Offset is the number of rows before the page.
func (p Page) Offset() int { return (p.Page - 1) * p.PageSize }

// Meta describes a page of a list.
type Meta struct {
	Page     int  `json:"page"`
	PageSize int  `json:"pageSize"`
	Total    int  `json:"total"`
	HasMore  bool `json:"hasMore"`
}

// NewMeta returns the meta of page p of a list of total items.
func NewMeta(p Page, total int) Meta {
	return Meta{Page: p.Page, PageSize: p.PageSize, Total: total, HasMore: p.Offset()+p.PageSize < total}
}

// PageRange and SizeRange are the page numbers and sizes a list admits;
// the page bound keeps offsets small integers.
var (
	PageRange = field.Range[int]{Min: 1, Max: 1_000_000}
	SizeRange = field.Range[int]{Min: 1, Max: 100}
)

// Select returns the page that page, size and order name, nil and ""
// standing for absent: by default the first page of 20, in defaultOrder.
// A bad argument is added to errs.
func Select(errs apperr.FieldErrors, page, size *int, order, defaultOrder string) Page {
	return Page{
		Page:     PageRange.Check(errs, "page", page, 1),
		PageSize: SizeRange.Check(errs, "pageSize", size, 20),
		Order:    field.Enum(errs, "order", order, defaultOrder, []string{"asc", "desc"}),
	}
}
