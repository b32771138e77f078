package propertydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/wayfarer-asia/platform/internal/platform/samplescale"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

// propertySampleBatchRows is how many rows one INSERT of the property
// sample carries: the calendar's 11 columns stay far below both engines'
// parameter limits.
const propertySampleBatchRows = 400

// IsEmpty reports whether the property database has no
// properties, that is, whether the sample data may be loaded.
func IsEmpty(ctx context.Context, db *store.DB) (bool, error) {
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM properties)").Scan(&exists); err != nil {
		return false, fmt.Errorf("count properties: %w", err)
	}
	return !exists, nil
}

// LoadSample inserts the whole dataset in one transaction: either
// all of it is stored or none. It expects an empty database.
func LoadSample(ctx context.Context, db *store.DB, ds *sample.Dataset) error {
	return LoadSampleScaled(ctx, db, ds, 1)
}

// LoadSampleScaled inserts the dataset with scale-1 replicas of its
// inventory (see sample.CopyProperty) in one transaction. Replicas are made
// row by row as they are inserted: row i of a table is replica
// i/len(rows) of row i%len(rows), so memory stays that of the dataset.
func LoadSampleScaled(ctx context.Context, db *store.DB, ds *sample.Dataset, scale int) (err error) {
	defer store.Wrap(&err, "load property sample at scale %d", scale)
	if scale < 1 {
		return fmt.Errorf("scale %d: want 1 or more", scale)
	}
	var amenities [][2]string
	currency := make(map[string]string, len(ds.Properties))
	for _, p := range ds.Properties {
		currency[p.ID] = p.Currency
		for _, a := range p.Amenities {
			amenities = append(amenities, [2]string{p.ID, a})
		}
	}
	nProps, nAmenities, nRooms, nNights := len(ds.Properties), len(amenities), len(ds.RoomTypes), len(ds.Calendar)
	tables := []store.SampleTable{
		{Name: "developers", Columns: []string{"id", "email", "email_normalized", "name", "created_at", "updated_at"},
			N: len(ds.Developers), Row: func(i int) ([]any, error) {
				d := &ds.Developers[i]
				return []any{d.ID, d.Email, d.Email, d.Name, d.CreatedAt, d.CreatedAt}, nil
			}},
		{Name: "properties", Columns: []string{"id", "name", "type", "description", "address", "city", "country_code", "latitude", "longitude", "timezone",
			"currency", "check_in_time", "check_out_time", "amenities", "images", "rating", "review_count", "license_number",
			"cancellation_policy", "from_price", "created_at", "updated_at"},
			N: nProps * scale, Row: func(i int) ([]any, error) {
				p := ptr(sample.CopyProperty(ds.Properties[i%nProps], i/nProps))
				am, err1 := store.SampleJSON(p.Amenities, "[]")
				im, err2 := store.SampleJSON(p.Images, "[]")
				return []any{p.ID, p.Name, p.Type, p.Description, p.Address, p.City, p.CountryCode, p.Latitude, p.Longitude, p.Timezone,
					p.Currency, p.CheckInTime, p.CheckOutTime, am, im, p.Rating, p.ReviewCount, store.SampleArg(p.LicenseNumber),
					p.Policy, p.FromPrice, p.CreatedAt, p.CreatedAt}, errors.Join(err1, err2)
			}},
		{Name: "property_amenities", Columns: []string{"property_id", "amenity"},
			N: nAmenities * scale, Row: func(i int) ([]any, error) {
				a := amenities[i%nAmenities]
				return []any{samplescale.ID(a[0], i/nAmenities), a[1]}, nil
			}},
		{Name: "room_types", Columns: []string{"id", "property_id", "name", "description", "max_guests", "beds", "total_units", "base_price", "position"},
			N: nRooms * scale, Row: func(i int) ([]any, error) {
				r := &ds.RoomTypes[i%nRooms]
				r = ptr(sample.CopyRoomType(*r, i/nRooms, currency[r.PropertyID]))
				beds, err := store.SampleJSON(r.Beds, "[]")
				return []any{r.ID, r.PropertyID, r.Name, r.Description, r.MaxGuests, beds, r.TotalUnits, r.BasePrice, r.Position}, err
			}},
		{Name: "calendar", Columns: []string{"room_type_id", "night", "property_id", "price", "min_stay", "closed", "closed_to_arrival",
			"closed_to_departure", "total_units", "sold", "test_sold"},
			N: nNights * scale, Row: func(i int) ([]any, error) {
				n := &ds.Calendar[i%nNights]
				n = ptr(sample.CopyNight(*n, i/nNights, currency[n.PropertyID]))
				return []any{n.RoomTypeID, n.Date, n.PropertyID, n.Price, n.MinStay, n.Closed, n.ClosedToArrival,
					n.ClosedToDeparture, n.TotalUnits, n.Sold, n.Sold}, nil
			}},
	}
	return db.InTx(ctx, func(tx *sql.Tx) error {
		for _, t := range tables {
			if err := store.InsertSampleRows(ctx, tx, db.Engine, t, propertySampleBatchRows); err != nil {
				return err
			}
		}
		return nil
	})
}

func ptr[T any](v T) *T { return &v }
