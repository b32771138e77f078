package guidedb

import (
	"embed"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

//go:embed migrations
var migrations embed.FS

// Schema is the guide marketplace's database schema. Its version table
// stays goose_guide, the name existing databases record their migrations
// under.
var Schema = store.Schema{Name: "guide", Migrations: migrations}
