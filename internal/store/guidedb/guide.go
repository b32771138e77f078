// Package guidedb keeps the guide marketplace's data: it implements the
// services of internal/guide on a store.DB.
package guidedb

import (
	"github.com/wayfarer-asia/platform/internal/clock"
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/store"
)

// Guide implements the guide marketplace services on a DB.
type Guide struct {
	db     *store.DB
	clock  clock.Clock
	jobs   *store.Jobs
	events *store.Events
}

// New returns the guide services on db.
func New(db *store.DB, c clock.Clock) *Guide {
	return &Guide{db: db, clock: c, jobs: store.NewJobs(db, c), events: store.NewEvents(db, c)}
}

var _ guide.CatalogService = (*Guide)(nil)
