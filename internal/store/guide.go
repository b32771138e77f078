package store

import (
	"github.com/wayfarer-asia/platform/internal/clock"
	"github.com/wayfarer-asia/platform/internal/guide"
)

// Guide implements the guide marketplace services on a DB.
type Guide struct {
	db    *DB
	clock clock.Clock
}

// NewGuide returns the guide services on db.
func NewGuide(db *DB, c clock.Clock) *Guide { return &Guide{db: db, clock: c} }

var _ guide.CatalogService = (*Guide)(nil)
