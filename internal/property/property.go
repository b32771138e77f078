// Package property is the domain of the property platform open API:
// properties and their room types, the nightly availability calendar,
// quotes that hold inventory, bookings, developer accounts and their API
// keys. It holds the types, the rules (stays, restrictions, cancellation
// fees, currencies) and the service interfaces the store implements.
//
// Dates of stay are calendar days in the property's local time zone (see
// Date); a stay is the nights from its check-in date up to, not including,
// its check-out date. Money is an amount in the currency's minor units.
package property

import (
	"context"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Property types.
var Types = []string{"hotel", "ryokan", "guesthouse", "apartment", "hostel", "resort", "villa", "capsule"}

// CountryCodes are the countries the platform lists properties in.
var CountryCodes = []string{"CN", "JP", "KR", "TW", "HK", "TH", "VN", "SG", "MY", "ID", "PH"}

// Amenities are the amenity tags properties carry.
var Amenities = []string{
	"wifi", "air_conditioning", "breakfast", "parking", "pool", "gym", "spa", "onsen", "restaurant", "bar",
	"kitchen", "washer", "airport_shuttle", "front_desk_24h", "luggage_storage", "non_smoking", "family_rooms",
	"pet_friendly", "beach_access", "garden", "laundry", "elevator",
}

// MaxStayNights bounds the length of a quoted or booked stay.
const MaxStayNights = 30

// MaxCalendarNights bounds the range of an availability request.
const MaxCalendarNights = 366

// MaxGuests bounds the number of guests of a search, quote or booking.
const MaxGuests = 20

// Bed is a kind of bed and how many of it a unit has.
type Bed struct {
	Type  string `json:"type"` // single, double, queen, king, twin, bunk, futon, sofa_bed
	Count int    `json:"count"`
}

// RoomType is a kind of unit a property sells: a room, an apartment, or a
// bed in a dormitory.
type RoomType struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MaxGuests   int    `json:"maxGuests"`
	Beds        []Bed  `json:"beds"`
	TotalUnits  int    `json:"totalUnits"`
	BasePrice   Money  `json:"basePrice"` // the usual nightly price; the calendar sets each night's
}

// Property is a property's full description.
type Property struct {
	ID                 string             `json:"id"`
	Name               string             `json:"name"`
	Type               string             `json:"type"`
	Description        string             `json:"description"`
	Address            string             `json:"address"`
	City               string             `json:"city"`
	CountryCode        string             `json:"countryCode"`
	Latitude           float64            `json:"latitude"`
	Longitude          float64            `json:"longitude"`
	Timezone           string             `json:"timezone"`
	Currency           string             `json:"currency"`
	CheckInTime        string             `json:"checkInTime"`  // HH:MM local
	CheckOutTime       string             `json:"checkOutTime"` // HH:MM local
	Amenities          []string           `json:"amenities"`
	Images             []string           `json:"images"`
	Rating             float64            `json:"rating"`
	ReviewCount        int                `json:"reviewCount"`
	LicenseNumber      *string            `json:"licenseNumber"`
	CancellationPolicy CancellationPolicy `json:"cancellationPolicy"`
	RoomTypes          []RoomType         `json:"roomTypes"`
	Status             string             `json:"status"` // draft, active, inactive
}

// PropertySummary is a property as listed.
type PropertySummary struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	City        string   `json:"city"`
	CountryCode string   `json:"countryCode"`
	Address     string   `json:"address"`
	Latitude    float64  `json:"latitude"`
	Longitude   float64  `json:"longitude"`
	Timezone    string   `json:"timezone"`
	Currency    string   `json:"currency"`
	Amenities   []string `json:"amenities"`
	Image       *string  `json:"image"`
	Rating      float64  `json:"rating"`
	ReviewCount int      `json:"reviewCount"`
	// FromPrice is the lowest base nightly price of the room types.
	FromPrice Money `json:"fromPrice"`
	// LowestTotal is, when the search names a stay, the lowest total of a
	// room type that can be had for it; null otherwise.
	LowestTotal *Money `json:"lowestTotal"`
	Status      string `json:"status"` // draft, active, inactive
}

// StaySearch is the stay a property search asks for.
type StaySearch struct {
	CheckIn, CheckOut Date
	Guests            int
}

// PropertyFilter selects properties.
type PropertyFilter struct {
	paging.Page
	Sort      string   // price, rating, name
	City      string   // partial, case-insensitive
	Country   string   // ISO country code
	Type      string   // one of Types
	Currency  string   // ISO currency code
	Amenities []string // all required
	// MinPrice and MaxPrice bound the nightly price in the property's
	// currency's minor units: FromPrice without a stay, the average nightly
	// price of LowestTotal with one.
	MinPrice, MaxPrice *int64
	// Stay, when set, keeps only properties with a room type that is open
	// and available for every night of it, with room for the guests.
	Stay *StaySearch
	// Test selects the test inventory (test keys) instead of the live one.
	Test bool
	// Viewer is who asks: active properties are listed to everyone (test
	// properties to test keys only), drafts and inactive ones to their
	// owner's keys of their mode. Mine keeps only the viewer's own.
	Viewer Account
	Mine   bool
}

// Night is one night of a room type's calendar as an integrator sees it.
type Night struct {
	Date              Date  `json:"date"`
	AvailableUnits    int   `json:"availableUnits"`
	Price             Money `json:"price"`
	MinStay           int   `json:"minStay"`
	Closed            bool  `json:"closed"`
	ClosedToArrival   bool  `json:"closedToArrival"`
	ClosedToDeparture bool  `json:"closedToDeparture"`
}

// RoomTypeAvailability is the calendar of one room type.
type RoomTypeAvailability struct {
	RoomTypeID string  `json:"roomTypeId"`
	Name       string  `json:"name"`
	Nights     []Night `json:"nights"`
}

// Availability is a property's calendar over a range of nights.
type Availability struct {
	PropertyID string                 `json:"propertyId"`
	From       Date                   `json:"from"`
	To         Date                   `json:"to"`
	Currency   string                 `json:"currency"`
	RoomTypes  []RoomTypeAvailability `json:"roomTypes"`
}

// CatalogStore reads properties and their calendars.
type CatalogStore interface {
	// FindProperties returns a page of properties and the total.
	FindProperties(ctx context.Context, f PropertyFilter) ([]PropertySummary, int, error)
	// FindProperty returns a property with its room types, if viewer may
	// see it (see PropertyFilter.Viewer). Errors: apperr.NotFound.
	FindProperty(ctx context.Context, viewer Account, id string) (*Property, error)
	// FindAvailability returns the calendar of the property's room types
	// (or of one, when roomTypeID is not empty) for the nights from from up
	// to, not including, to, as the test or live inventory stands. Nights
	// the property does not sell (outside its calendar, or already past in
	// its time zone) are closed with no unit available. The inventory is
	// the test one for a test viewer.
	// Errors: apperr.NotFound (property or room type, or a property viewer
	// may not see).
	FindAvailability(ctx context.Context, viewer Account, propertyID, roomTypeID string, from, to Date) (*Availability, error)
}

// LocalToday returns the calendar day it is now in the time zone tz (UTC
// when tz is unknown).
func LocalToday(now time.Time, tz string) Date {
	loc, err := clock.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	return DateOf(now.In(loc))
}
