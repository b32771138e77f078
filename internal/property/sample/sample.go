// Package sample generates the property platform's sample data: properties
// in eleven Asian countries with their room types, a year of nightly
// calendar per room type (prices with weekend and season rates, minimum
// stays, closed dates, arrival and departure restrictions, nights that are
// nearly or fully sold out) and the demo developer account.
//
// Generate is pure and deterministic: it reads no clock and no
// environment, draws from fixed seeds and never lets map order reach its
// output, so that the same start date always gives the same dataset. Ids
// and everything but the calendar are the same whatever the start date; the
// calendar covers the Days nights from the start date on.
package sample

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"time"

	"github.com/wayfarer-asia/platform/internal/property"
)

// Days is the number of nights of calendar Generate makes.
const Days = 365

// DemoDeveloperName is the name of the demo developer account, whose
// e-mail is property.DemoEmail. Its password is set by the server from
// DEMO_PASSWORD; the dataset leaves it empty.
const DemoDeveloperName = "Demo Developer"

// created is when the sample properties were "listed": ids and creation
// times derive from it, never from the start date.
var created = time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC)

// Dataset is the whole sample, one slice per table, in foreign-key order.
type Dataset struct {
	Start      property.Date // the first night of the calendar
	Developers []Developer
	Properties []Property
	RoomTypes  []RoomType
	Calendar   []Night
}

// Developer is a row of developers.
type Developer struct {
	ID        string
	Email     string
	Name      string
	CreatedAt time.Time
}

// Property is a row of properties (its amenities also fill
// property_amenities).
type Property struct {
	ID            string
	Name          string
	Type          string
	Description   string
	Address       string
	City          string
	CountryCode   string
	Latitude      float64
	Longitude     float64
	Timezone      string
	Currency      string
	CheckInTime   string
	CheckOutTime  string
	Amenities     []string
	Images        []string
	Rating        float64
	ReviewCount   int
	LicenseNumber *string
	Policy        string // a property.PolicyCodes code
	FromPrice     int64  // the lowest room type base price
	CreatedAt     time.Time
}

// RoomType is a row of room_types.
type RoomType struct {
	ID          string
	PropertyID  string
	Name        string
	Description string
	MaxGuests   int
	Beds        []property.Bed
	TotalUnits  int
	BasePrice   int64
	Position    int
}

// Night is a row of calendar. Sold counts the units already sold through
// other channels; the test inventory starts from the same count.
type Night struct {
	RoomTypeID        string
	PropertyID        string
	Date              property.Date
	Price             int64
	MinStay           int
	Closed            bool
	ClosedToArrival   bool
	ClosedToDeparture bool
	TotalUnits        int
	Sold              int
}

// Generate returns the sample with Days nights of calendar from start on.
func Generate(start property.Date) *Dataset { return GenerateDays(start, Days) }

// GenerateDays returns the sample with days nights of calendar from start
// on. The first days nights are the same as Generate's, so a test may ask
// for fewer to load faster.
func GenerateDays(start property.Date, days int) *Dataset {
	// #nosec G404 -- sample data must be deterministic: a fixed seed, not secrets.
	g := &generator{
		rng:    rand.New(rand.NewPCG(0x50524f5045525459, 0x2026_0007)),
		idRand: rand.New(rand.NewPCG(0x70726f7069647321, 0x2026_0008)),
		ds:     &Dataset{Start: start},
	}
	g.ds.Developers = append(g.ds.Developers, Developer{
		ID: g.newID(created.Add(-24 * time.Hour)), Email: property.DemoEmail, Name: DemoDeveloperName, CreatedAt: created.Add(-24 * time.Hour),
	})
	var plans []calendarPlan
	for i, s := range specs {
		plans = append(plans, g.property(i, s))
	}
	for _, p := range plans {
		g.calendar(p, start, days)
	}
	return g.ds
}

type generator struct {
	rng    *rand.Rand
	idRand *rand.Rand
	ds     *Dataset
}

// newID returns a UUIDv7 for time t from the id stream.
func (g *generator) newID(t time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:8], uint64(t.UnixMilli())<<16|uint64(g.idRand.Uint32()&0xffff))
	binary.BigEndian.PutUint64(b[8:16], g.idRand.Uint64())
	b[6] = 0x70 | b[6]&0x0f // version 7
	b[8] = 0x80 | b[8]&0x3f // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}

// chance returns true with probability p.
func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }
