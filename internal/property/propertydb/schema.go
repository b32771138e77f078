package propertydb

import (
	"embed"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

//go:embed migrations
var migrations embed.FS

// Schema is the property platform's database schema. Its version table
// stays goose_property, the name existing databases record their
// migrations under.
var Schema = store.Schema{Name: "property", Migrations: migrations}
