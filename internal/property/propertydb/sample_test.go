package propertydb_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
	"github.com/wayfarer-asia/platform/internal/property"
	"github.com/wayfarer-asia/platform/internal/property/propertydb"
	"github.com/wayfarer-asia/platform/internal/property/sample"
)

var propertySampleStart = property.NewDate(2026, 11, 22)

func TestPropertySampleIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := sample.Generate(propertySampleStart), sample.Generate(propertySampleStart)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls of sample.Generate with one start date returned different datasets")
	}
	// Another start date moves the calendar only.
	c := sample.Generate(propertySampleStart.AddDays(40))
	if !reflect.DeepEqual(a.Properties, c.Properties) || !reflect.DeepEqual(a.RoomTypes, c.RoomTypes) || !reflect.DeepEqual(a.Developers, c.Developers) {
		t.Error("the start date changed more than the calendar")
	}
	if c.Calendar[0].Date != propertySampleStart.AddDays(40) {
		t.Errorf("calendar starts on %s", c.Calendar[0].Date)
	}
	// A shorter calendar is a prefix of the full one, room type by room type.
	short := sample.GenerateDays(propertySampleStart, 30)
	full := map[string][]sample.Night{}
	for _, n := range a.Calendar {
		full[n.RoomTypeID] = append(full[n.RoomTypeID], n)
	}
	perRoom := map[string]int{}
	for _, n := range short.Calendar {
		if got := full[n.RoomTypeID][perRoom[n.RoomTypeID]]; got != n {
			t.Fatalf("GenerateDays(30) night %+v differs from Generate's %+v", n, got)
		}
		perRoom[n.RoomTypeID]++
	}
}

func TestPropertySampleShape(t *testing.T) {
	t.Parallel()
	ds := sample.Generate(propertySampleStart)
	if len(ds.Properties) < 60 {
		t.Errorf("%d properties, want at least 60", len(ds.Properties))
	}
	countries := map[string]int{}
	rooms := map[string]int{}
	for _, r := range ds.RoomTypes {
		rooms[r.PropertyID]++
		got := map[string]bool{"units": r.TotalUnits >= 1, "price": r.BasePrice > 0, "guests": r.MaxGuests >= 1, "beds": len(r.Beds) > 0}
		if diff := cmp.Diff(map[string]bool{"units": true, "price": true, "guests": true, "beds": true}, got); diff != "" {
			t.Errorf("room type %+v, positive (-want +got):\n%s", r, diff)
		}
	}
	for _, p := range ds.Properties {
		countries[p.CountryCode]++
		if n := rooms[p.ID]; n < 2 || n > 6 {
			t.Errorf("%s has %d room types", p.Name, n)
		}
		if _, err := time.LoadLocation(p.Timezone); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if p.Currency != property.Currencies[p.CountryCode] || !slices.Contains(property.Types, p.Type) {
			t.Errorf("%s: currency %s type %s", p.Name, p.Currency, p.Type)
		}
		if _, ok := property.Policy(p.Policy); !ok {
			t.Errorf("%s: policy %s", p.Name, p.Policy)
		}
		for _, a := range p.Amenities {
			if !slices.Contains(property.Amenities, a) {
				t.Errorf("%s: amenity %s", p.Name, a)
			}
		}
	}
	for _, c := range property.CountryCodes {
		if countries[c] == 0 {
			t.Errorf("no property in %s", c)
		}
	}
	if len(ds.Calendar) != len(ds.RoomTypes)*sample.Days {
		t.Errorf("%d calendar nights for %d room types", len(ds.Calendar), len(ds.RoomTypes))
	}
	// The calendar has every kind of night the rules know.
	var soldOut, lastUnit, closed, cta, ctd, minStay, weekendDearer int
	prev := map[string]sample.Night{}
	for _, n := range ds.Calendar {
		switch {
		case n.Sold == n.TotalUnits:
			soldOut++
		case n.Sold == n.TotalUnits-1:
			lastUnit++
		}
		if n.Sold > n.TotalUnits || n.Sold < 0 || n.Price <= 0 {
			t.Fatalf("night %+v", n)
		}
		if n.Closed {
			closed++
		}
		if n.ClosedToArrival {
			cta++
		}
		if n.ClosedToDeparture {
			ctd++
		}
		if n.MinStay > 1 {
			minStay++
		}
		if p, ok := prev[n.RoomTypeID]; ok && n.Date.Weekday() == time.Friday && p.Date.Weekday() == time.Thursday && n.Price > p.Price {
			weekendDearer++
		}
		prev[n.RoomTypeID] = n
	}
	t.Logf("sold out %d, last unit %d, closed %d, CTA %d, CTD %d, min stay %d", soldOut, lastUnit, closed, cta, ctd, minStay)
	got := map[string]bool{"soldOut": soldOut > 0, "lastUnit": lastUnit > 0, "closed": closed > 0, "closedToArrival": cta > 0,
		"closedToDeparture": ctd > 0, "minStay": minStay > 0, "weekendDearer": weekendDearer > 0}
	want := map[string]bool{"soldOut": true, "lastUnit": true, "closed": true, "closedToArrival": true,
		"closedToDeparture": true, "minStay": true, "weekendDearer": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the calendar lacks a kind of night (-want +got):\n%s", diff)
	}
}

// TestLoadPropertySample loads the sample into each engine and searches
// Tokyo for two guests next month. It loads the first shortSampleDays
// nights; the server's tests (cmd/server) start it on the whole year.
func TestLoadPropertySample(t *testing.T) {
	t.Parallel()
	ds := sample.GenerateDays(propertySampleStart, shortSampleDays)
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.MustOpenDB(t, engine, propertydb.Schema)
			ctx := t.Context()
			if empty, err := propertydb.IsEmpty(ctx, db); err != nil || !empty {
				t.Fatalf("IsEmpty before loading = %v, %v", empty, err)
			}
			start := time.Now()
			if err := propertydb.LoadSample(ctx, db, ds); err != nil {
				t.Fatalf("LoadSample: %v", err)
			}
			t.Logf("LoadSample on %s took %v", engine, time.Since(start))
			if empty, err := propertydb.IsEmpty(ctx, db); err != nil || empty {
				t.Fatalf("IsEmpty after loading = %v, %v", empty, err)
			}
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM calendar`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(ds.Calendar) {
				t.Errorf("%d calendar rows, want %d", n, len(ds.Calendar))
			}
			s := propertydb.New(db, propertyClock())
			stay := &property.StaySearch{CheckIn: property.NewDate(2026, 12, 10), CheckOut: property.NewDate(2026, 12, 13), Guests: 2}
			list, total, err := s.FindProperties(ctx, property.PropertyFilter{Page: paging.Page{Page: 1, PageSize: 20, Order: "asc"}, City: "tokyo", Stay: stay, Sort: "price"})
			if err != nil {
				t.Fatal(err)
			}
			if total < 3 || len(list) != total {
				t.Fatalf("Tokyo for two next month: %d properties", total)
			}
			for i, p := range list {
				got := map[string]any{"city": p.City, "lowestTotalSet": p.LowestTotal != nil}
				if p.LowestTotal != nil {
					got["currency"], got["threeNightsAtLeast"] = p.LowestTotal.Currency, p.LowestTotal.Amount >= 3*p.FromPrice.Amount/2
				}
				want := map[string]any{"city": "Tokyo", "lowestTotalSet": true, "currency": "JPY", "threeNightsAtLeast": true}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%+v (-want +got):\n%s", p, diff)
				}
				if i > 0 && p.LowestTotal.Amount < list[i-1].LowestTotal.Amount {
					t.Error("not sorted by price")
				}
			}
			// Late in the UTC day, a check-in "today" is already past east of
			// UTC+8: only properties where the day is still on are offered.
			late := propertydb.New(db, clock.NewFake(time.Date(2026, 11, 22, 16, 30, 0, 0, time.UTC)))
			today := &property.StaySearch{CheckIn: propertySampleStart, CheckOut: propertySampleStart.AddDays(1), Guests: 1}
			list, _, err = late.FindProperties(ctx, property.PropertyFilter{Page: paging.Page{Page: 1, PageSize: 100}, Stay: today})
			if err != nil || len(list) == 0 {
				t.Fatalf("late search: %d, %v", len(list), err)
			}
			for _, p := range list {
				if p.Timezone != "Asia/Bangkok" && p.Timezone != "Asia/Ho_Chi_Minh" && p.Timezone != "Asia/Jakarta" {
					t.Errorf("%s (%s) offered a check-in on a day already past there", p.Name, p.Timezone)
				}
			}
			// Demo password follows SetDemoPassword.
			if err := s.SetDemoPassword(ctx, "hash"); err != nil {
				t.Fatal(err)
			}
			if _, h, err := s.FindDeveloperByEmail(ctx, "Developer@Example.com"); err != nil || h != "hash" {
				t.Errorf("demo developer: %q %v", h, err)
			}
			s.SetDemoPassword(ctx, "")
			if _, h, _ := s.FindDeveloperByEmail(ctx, property.DemoEmail); h != "" {
				t.Errorf("demo password not removed: %q", h)
			}
		})
	}
}
