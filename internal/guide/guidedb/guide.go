// Package guidedb keeps the guide marketplace's data: it implements the
// services of internal/guide on a store.DB.
package guidedb

import (
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/changes"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// Guide implements the guide marketplace services on a DB.
type Guide struct {
	db    *store.DB
	clock clock.Clock
	jobs  *store.Jobs
	// counts caches the totals of catalogue list filters (see catalogPage).
	counts *countCache
	// events records the change events of the experts' supply side, in
	// the transaction of each change.
	events *changes.Feed
	// KeyGrants keeps the OAuth grants and lists them as connected apps.
	*oauth.KeyGrants
}

// New returns the guide services on db.
func New(db *store.DB, c clock.Clock) *Guide {
	return &Guide{db: db, clock: c, jobs: store.NewJobs(db, c), counts: &countCache{}, events: changes.NewFeed(db, c),
		KeyGrants: oauth.NewKeyGrants(db, c, grantTable)}
}

var _ guide.CatalogStore = (*Guide)(nil)
