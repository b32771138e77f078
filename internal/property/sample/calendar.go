package sample

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/wayfarer-asia/platform/internal/property"
)

// lunarNewYear is the first day of the lunar new year by year.
var lunarNewYear = map[int]property.Date{
	2025: property.NewDate(2025, 1, 29), 2026: property.NewDate(2026, 2, 17), 2027: property.NewDate(2027, 2, 6),
	2028: property.NewDate(2028, 1, 26), 2029: property.NewDate(2029, 2, 13), 2030: property.NewDate(2030, 2, 3),
}

// chuseok is the first day of Korea's harvest festival by year.
var chuseok = map[int]property.Date{
	2025: property.NewDate(2025, 10, 5), 2026: property.NewDate(2026, 9, 24), 2027: property.NewDate(2027, 9, 14),
	2028: property.NewDate(2028, 10, 2), 2029: property.NewDate(2029, 9, 21), 2030: property.NewDate(2030, 9, 11),
}

// within reports whether d is from month/day a to month/day b in its year
// (a range may wrap past New Year).
func within(d property.Date, am time.Month, ad int, bm time.Month, bd int) bool {
	md := int(d.Month())*100 + d.Day()
	from, to := int(am)*100+ad, int(bm)*100+bd
	if from <= to {
		return md >= from && md <= to
	}
	return md >= from || md <= to
}

// nearDate reports whether d is from before days before ref up to after
// days after it.
func nearDate(d property.Date, ref map[int]property.Date, before, after int) bool {
	r, ok := ref[d.Year()]
	if !ok {
		return false
	}
	n := r.DaysUntil(d)
	return n >= -before && n <= after
}

// season is the price factor of the night d in the country (and city),
// and whether it is a peak everyone wants.
func season(d property.Date, country, city string) (float64, bool) {
	switch country {
	case "JP":
		switch {
		case within(d, 12, 28, 1, 3), within(d, 4, 29, 5, 5):
			return 1.5, true
		case within(d, 3, 25, 4, 8):
			return 1.35, true
		case within(d, 8, 10, 8, 16):
			return 1.35, true
		case city == "Kyoto" && within(d, 11, 10, 11, 30):
			return 1.3, true
		case city == "Sapporo" && within(d, 2, 3, 2, 12):
			return 1.6, true
		case city == "Onna" && within(d, 7, 15, 9, 10):
			return 1.3, false
		case within(d, 1, 10, 2, 28) && city != "Sapporo":
			return 0.85, false
		}
	case "CN":
		switch {
		case nearDate(d, lunarNewYear, 2, 6), within(d, 10, 1, 10, 7):
			return 1.5, true
		case within(d, 5, 1, 5, 5):
			return 1.4, true
		case within(d, 7, 10, 8, 25):
			return 1.15, false
		case within(d, 1, 5, 1, 20), within(d, 11, 15, 12, 15):
			return 0.85, false
		}
	case "KR":
		switch {
		case nearDate(d, chuseok, 1, 2), nearDate(d, lunarNewYear, 1, 2):
			return 1.35, true
		case within(d, 7, 20, 8, 20):
			if city == "Busan" || city == "Seogwipo" {
				return 1.45, true
			}
			return 1.2, false
		case within(d, 3, 28, 4, 10):
			return 1.15, false
		case within(d, 1, 5, 2, 10):
			return 0.85, false
		}
	case "TW", "HK":
		switch {
		case nearDate(d, lunarNewYear, 2, 5):
			return 1.35, true
		case country == "HK" && within(d, 12, 20, 12, 31):
			return 1.3, true
		case country == "HK" && within(d, 3, 24, 3, 30):
			return 1.3, false
		case within(d, 7, 1, 8, 31):
			return 1.1, false
		}
	default: // South-East Asia
		switch {
		case within(d, 12, 20, 1, 5):
			return 1.6, true
		case country == "TH" && within(d, 4, 12, 4, 16):
			return 1.4, true
		case country == "VN" && nearDate(d, lunarNewYear, 2, 5):
			return 1.35, true
		case country == "SG" && within(d, 9, 17, 9, 21):
			return 1.8, true
		case country == "ID" && within(d, 7, 1, 8, 31):
			return 1.3, false
		case within(d, 11, 15, 3, 31):
			return 1.2, false
		case within(d, 6, 1, 9, 30):
			return 0.8, false
		}
	}
	return 1, false
}

// calendar adds the nights of the plan's room types from start on. Every
// room type draws from a stream of its own, so a shorter calendar is a
// prefix of a longer one.
func (g *generator) calendar(p calendarPlan, start property.Date, days int) {
	resortLike := p.spec.typ == "resort" || p.spec.typ == "villa"
	for ri, rt := range p.rooms {
		// #nosec G404 -- sample data must be deterministic: a fixed seed, not secrets.
		rng := rand.New(rand.NewPCG(p.seed, uint64(ri)+1))
		for k := range days {
			d := start.AddDays(k)
			factor, peak := season(d, p.spec.country, p.spec.city)
			wd := d.Weekday()
			weekend := wd == time.Friday || wd == time.Saturday
			if weekend {
				if resortLike {
					factor *= 1.15
				} else {
					factor *= 1.2
				}
			}
			// A little movement from week to week, as revenue managers do.
			factor *= 0.97 + 0.06*math.Abs(math.Sin(float64(p.index*7+ri+k/7)))
			n := Night{
				RoomTypeID: rt.ID, PropertyID: rt.PropertyID, Date: d, MinStay: 1, TotalUnits: rt.TotalUnits,
				Price: price(float64(rt.BasePrice)/float64(property.MinorPerMajor(p.currency))*factor, p.currency),
			}
			t := p.traits
			switch {
			case t["min3-peak"] && peak:
				n.MinStay = 3
			case t["min2"] || (resortLike && peak):
				n.MinStay = 2
			case t["weekend-min2"] && wd == time.Saturday:
				n.MinStay = 2
			}
			if peak && n.MinStay == 1 && rng.Float64() < 0.3 {
				n.MinStay = 2
			}
			n.ClosedToArrival = t["cta-sat"] && wd == time.Saturday
			n.ClosedToDeparture = t["ctd-sun"] && wd == time.Sunday
			n.Closed = (t["closed-wed"] && wd == time.Wednesday) || (t["maintenance"] && k >= p.maintAt && k < p.maintAt+10)

			// Units sold elsewhere: occupancy rises on weekends and peaks and
			// with the property's popularity; some nights sell out.
			occ := 0.25 + 0.3*rng.Float64()
			if weekend {
				occ += 0.15
			}
			if peak {
				occ += 0.25
			}
			busy := t["busy"]
			if busy {
				occ += 0.25
			}
			sold := int(math.Floor(occ * float64(n.TotalUnits)))
			sold = min(sold, n.TotalUnits-1)
			switch r := rng.Float64(); {
			case busy && peak && r < 0.6, busy && r < 0.12, peak && r < 0.15, r < 0.015:
				sold = n.TotalUnits // sold out
			case busy && r < 0.45, peak && r < 0.35, r < 0.05:
				sold = max(n.TotalUnits-1, 0) // the last unit
			}
			n.Sold = max(sold, 0)
			g.ds.Calendar = append(g.ds.Calendar, n)
		}
	}
}
