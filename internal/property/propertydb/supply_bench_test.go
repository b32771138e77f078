package propertydb_test

import (
	"context"
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
)

// BenchmarkCalendarPush is one calendar PATCH of a host: 6 room types ×
// 366 nights (units, price and a weekend minimum stay), on SQLite, the
// nights already in the calendar (the steady state of a channel manager
// pushing every day). Target: under 300 ms.
func BenchmarkCalendarPush(b *testing.B) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	db := storetest.MustOpenDB(b, store.SQLite, propertydb.Schema)
	ps := propertydb.New(db, clk)
	dev, err := ps.CreateDeveloper(ctx, property.NewDeveloper{Email: "host@example.com", Name: "Host"})
	if err != nil {
		b.Fatal(err)
	}
	acct := property.Account{DeveloperID: dev.ID}
	p, err := ps.CreateProperty(ctx, acct, property.PropertyContent{Name: "Bench", Type: "hotel", Address: "1", City: "Tokyo", CountryCode: "JP",
		Timezone: "Asia/Tokyo", Currency: "JPY", CheckInTime: "15:00", CheckOutTime: "10:00", Amenities: []string{}, Images: []string{},
		CancellationPolicy: property.PolicyFlexible})
	if err != nil {
		b.Fatal(err)
	}
	from := property.NewDate(2026, 11, 23)
	to := from.AddDays(366)
	var updates []property.CalendarUpdate
	for i := range 6 {
		rt, err := ps.CreateRoomType(ctx, acct, p.ID, property.RoomTypeContent{Name: "Room", MaxGuests: 2, Beds: []property.Bed{}, TotalUnits: 10, BasePrice: 10000})
		if err != nil {
			b.Fatal(err)
		}
		units, price, minStay := 5+i, int64(12000+i*1000), 2
		updates = append(updates,
			property.CalendarUpdate{RoomTypeID: rt.ID, From: from, To: to, Units: &units, Price: &price},
			property.CalendarUpdate{RoomTypeID: rt.ID, From: from, To: to, DaysOfWeek: []time.Weekday{time.Friday, time.Saturday}, MinStay: &minStay})
	}
	if _, err := ps.UpdateCalendar(ctx, acct, p.ID, updates); err != nil { // the nights exist from now on
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := ps.UpdateCalendar(ctx, acct, p.ID, updates)
		if err != nil {
			b.Fatal(err)
		}
		if res.UpdatedNights != 6*366 {
			b.Fatalf("updated %d nights", res.UpdatedNights)
		}
	}
}
