package propertydb_test

import (
	"testing"

	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

// TestLoadSampleScaled loads SAMPLE_SCALE=3 with a short calendar and
// counts every table.
func TestLoadSampleScaled(t *testing.T) {
	t.Parallel()
	ds := sample.GenerateDays(propertySampleStart, 4)
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenDB(t, engine, propertydb.Schema)
			if err := propertydb.LoadSampleScaled(t.Context(), db, ds, 3); err != nil {
				t.Fatal(err)
			}
			for table, want := range map[string]int{"properties": len(ds.Properties), "room_types": len(ds.RoomTypes), "calendar": len(ds.Calendar)} {
				var n int
				if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil || n != 3*want {
					t.Errorf("%s: %d rows, want %d (%v)", table, n, 3*want, err)
				}
			}
			// Every replica night belongs to a replica room type of a
			// replica property, and keeps the room type's price level.
			var orphans int
			if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM calendar c
				JOIN room_types r ON r.id = c.room_type_id WHERE r.property_id <> c.property_id`).Scan(&orphans); err != nil || orphans != 0 {
				t.Errorf("%d nights of another property's room type (%v)", orphans, err)
			}
		})
	}
}
