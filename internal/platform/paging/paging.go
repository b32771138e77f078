// Package paging holds the page selection and page meta that the lists of
// both products share.
package paging

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
