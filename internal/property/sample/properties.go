package sample

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/property"
)

// roomTemplate is a kind of room; units is for a property of average size
// and mult is its price relative to the property's standard room.
type roomTemplate struct {
	name, description string
	guests            int
	beds              []property.Bed
	units             int
	mult              float64
}

func beds(kv ...any) []property.Bed {
	var out []property.Bed
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, property.Bed{Type: kv[i].(string), Count: kv[i+1].(int)})
	}
	return out
}

var roomTemplates = map[string]roomTemplate{
	// hotels
	"single":       {"Single Room", "A compact room with a single bed, a desk and a shower, for one guest.", 1, beds("single", 1), 12, 0.7},
	"std-double":   {"Standard Double Room", "A double bed, a work desk, a rain shower and blackout curtains.", 2, beds("double", 1), 30, 1.0},
	"sup-twin":     {"Superior Twin Room", "Two single beds, a sitting corner and a bath with a separate shower.", 2, beds("single", 2), 20, 1.15},
	"deluxe-king":  {"Deluxe King Room", "A larger room on a high floor with a king bed and a view.", 2, beds("king", 1), 14, 1.45},
	"family":       {"Family Room", "A double bed and two singles for a family of four, with a bathtub.", 4, beds("double", 1, "single", 2), 6, 1.9},
	"junior-suite": {"Junior Suite", "A king bed, a sofa bed in the lounge area and a deep soaking tub.", 3, beds("king", 1, "sofa_bed", 1), 4, 2.4},
	"exec-suite":   {"Executive Suite", "A separate living room, a king bedroom and lounge access with evening drinks.", 2, beds("king", 1), 2, 3.5},
	// ryokan
	"washitsu":       {"Japanese-style Room (8 tatami)", "Tatami floor, futon beds laid out in the evening, a low table and a garden view. Dinner and breakfast included.", 2, beds("futon", 2), 8, 1.0},
	"washitsu-large": {"Japanese-style Room (12 tatami)", "A larger tatami room for families or groups, with futon beds for four. Dinner and breakfast included.", 4, beds("futon", 4), 4, 1.55},
	"open-air-bath":  {"Room with Private Open-air Bath", "A tatami room with its own outdoor hot-spring bath on the terrace. Dinner and breakfast included.", 2, beds("futon", 2), 3, 2.2},
	"wayo":           {"Japanese-Western Room", "Western beds and a tatami sitting area with a futon for a third guest. Dinner and breakfast included.", 3, beds("single", 2, "futon", 1), 5, 1.4},
	// hostels and capsules (units are beds or capsules)
	"dorm-6":         {"Bed in 6-Bed Mixed Dormitory", "A bunk bed with a curtain, a reading light, a power socket and a locker.", 1, beds("bunk", 1), 24, 0.25},
	"dorm-4f":        {"Bed in 4-Bed Female Dormitory", "A bunk bed in a women-only room with its own bathroom and lockers.", 1, beds("bunk", 1), 8, 0.3},
	"private-double": {"Private Double Room", "A private room with a double bed; bathrooms are shared.", 2, beds("double", 1), 4, 0.8},
	"private-family": {"Private Family Room", "A private room with a double bed and a bunk bed, and its own bathroom.", 4, beds("double", 1, "bunk", 1), 2, 1.3},
	"capsule":        {"Standard Capsule", "A sleeping capsule with a mattress, a light, a socket and a locker; shared baths and lounge.", 1, beds("single", 1), 60, 0.2},
	"capsule-plus":   {"Premium Capsule", "A taller capsule with a television, a larger locker and amenities; shared baths.", 1, beds("single", 1), 20, 0.28},
	// guesthouses
	"gh-double":  {"Double Room with Shared Bathroom", "A simple double room; the bathroom is shared with two other rooms.", 2, beds("double", 1), 4, 0.75},
	"gh-ensuite": {"Double Room with Private Bathroom", "A double room with its own shower room.", 2, beds("double", 1), 5, 0.95},
	"gh-twin":    {"Twin Room", "Two single beds and a private shower room.", 2, beds("single", 2), 3, 0.9},
	"gh-family":  {"Family Room", "A double bed and two singles, with a private bathroom.", 4, beds("double", 1, "single", 2), 2, 1.5},
	// apartments
	"studio": {"Studio Apartment", "An open-plan studio with a queen bed, a kitchenette and a washing machine.", 2, beds("queen", 1), 10, 0.95},
	"1br":    {"One-Bedroom Apartment", "A bedroom with a queen bed, a living room with a sofa bed and a full kitchen.", 3, beds("queen", 1, "sofa_bed", 1), 8, 1.35},
	"2br":    {"Two-Bedroom Apartment", "Two bedrooms, a living and dining room and a full kitchen.", 5, beds("queen", 1, "single", 2, "sofa_bed", 1), 5, 2.1},
	"3br":    {"Three-Bedroom Apartment", "Three bedrooms and two bathrooms for families and groups, with a full kitchen.", 7, beds("queen", 2, "single", 2, "sofa_bed", 1), 2, 2.9},
	// resorts
	"garden":       {"Garden View Room", "A king bed and a balcony over the tropical garden.", 2, beds("king", 1), 20, 1.0},
	"ocean":        {"Sea View Room", "A king bed and a furnished balcony facing the water.", 2, beds("king", 1), 16, 1.3},
	"family-suite": {"Family Suite", "A king bedroom and a second room with two singles, with a terrace.", 4, beds("king", 1, "single", 2), 6, 1.9},
	"pool-villa":   {"Pool Villa", "A private villa with its own plunge pool and an outdoor rain shower.", 2, beds("king", 1), 3, 3.0},
	// villas
	"villa-1br": {"One-Bedroom Pool Villa", "A villa with a king bedroom, a living pavilion and a private pool.", 2, beds("king", 1), 6, 1.0},
	"villa-2br": {"Two-Bedroom Pool Villa", "Two bedrooms around a private pool, with a kitchen and daily breakfast.", 4, beds("king", 1, "single", 2), 4, 1.7},
	"villa-3br": {"Three-Bedroom Family Villa", "Three bedrooms, a large private pool and a garden, with a villa host.", 6, beds("king", 2, "single", 2), 2, 2.4},
}

// typeAmenities are the amenities every property of a type has.
var typeAmenities = map[string][]string{
	"hotel":      {"wifi", "air_conditioning", "front_desk_24h", "elevator", "non_smoking", "luggage_storage"},
	"ryokan":     {"wifi", "air_conditioning", "breakfast", "non_smoking", "luggage_storage"},
	"guesthouse": {"wifi", "air_conditioning", "luggage_storage", "non_smoking"},
	"apartment":  {"wifi", "air_conditioning", "kitchen", "washer", "elevator", "non_smoking", "family_rooms"},
	"hostel":     {"wifi", "air_conditioning", "laundry", "luggage_storage", "front_desk_24h"},
	"resort":     {"wifi", "air_conditioning", "breakfast", "front_desk_24h", "airport_shuttle", "family_rooms"},
	"villa":      {"wifi", "air_conditioning", "breakfast", "kitchen", "airport_shuttle", "non_smoking"},
	"capsule":    {"wifi", "air_conditioning", "front_desk_24h", "luggage_storage", "laundry"},
}

var checkTimes = map[string][2]string{
	"hotel": {"15:00", "11:00"}, "ryokan": {"15:00", "10:00"}, "guesthouse": {"14:00", "11:00"}, "apartment": {"16:00", "10:00"},
	"hostel": {"14:00", "11:00"}, "resort": {"15:00", "12:00"}, "villa": {"14:00", "12:00"}, "capsule": {"16:00", "10:00"},
}

// basePrice is a standard double room of a mid-range property per night,
// in major units of the country's currency.
var basePrice = map[string]float64{
	"JP": 15000, "CN": 580, "KR": 135000, "TW": 3300, "HK": 1150, "TH": 2300,
	"VN": 1450000, "SG": 230, "MY": 290, "ID": 950000, "PH": 4300,
}

// tierMult scales the base price by tier.
var tierMult = [5]float64{0, 0.5, 1, 1.9, 3.6}

// typeDescription is the second sentence of a description, by type.
var typeDescription = map[string]string{
	"hotel":      "Rooms have free Wi-Fi, air conditioning and a private bathroom; the front desk is open around the clock.",
	"ryokan":     "Guests sleep on futons on tatami, wear yukata and are served a seasonal dinner and a Japanese breakfast.",
	"guesthouse": "The hosts live on site and are happy to share tips on where to eat and what to see nearby.",
	"apartment":  "Each apartment has a kitchen and a washing machine, and self check-in with a door code.",
	"hostel":     "Dormitory beds have curtains, lights and lockers; the common lounge hosts events most evenings.",
	"resort":     "The resort has pools, a spa and restaurants, and arranges airport transfers and excursions.",
	"villa":      "Each villa has a private pool and a daily breakfast served by the villa host.",
	"capsule":    "Capsules are for one guest; the floors are separated for men and women, with shared baths and a lounge.",
}

// calendarPlan is what the calendar of a property needs.
type calendarPlan struct {
	index    int
	spec     spec
	rooms    []RoomType
	seed     uint64
	traits   map[string]bool
	maintAt  int // first day of a 10-day closure, from the start date
	currency string
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// property adds the property of spec s and its room types.
func (g *generator) property(i int, s spec) calendarPlan {
	at := created.Add(time.Duration(i) * 37 * time.Hour)
	currency := property.Currencies[s.country]
	p := Property{
		ID: g.newID(at), Name: s.name, Type: s.typ, Address: s.address, City: s.city, CountryCode: s.country,
		Latitude: s.lat, Longitude: s.lng, Timezone: s.tz, Currency: currency,
		CheckInTime: checkTimes[s.typ][0], CheckOutTime: checkTimes[s.typ][1],
		Description: s.blurb + " " + typeDescription[s.typ],
		CreatedAt:   at,
	}
	amenities := append(slices.Clone(typeAmenities[s.typ]), s.extras...)
	if s.tier >= 3 && !slices.Contains(amenities, "breakfast") {
		amenities = append(amenities, "breakfast")
	}
	if g.chance(0.3) && !slices.Contains(amenities, "parking") {
		amenities = append(amenities, "parking")
	}
	slices.Sort(amenities)
	p.Amenities = slices.Compact(amenities)
	n := 3 + g.rng.IntN(3)
	for k := 1; k <= n; k++ {
		p.Images = append(p.Images, "/media/sample/properties/"+slug(s.name)+"-"+strconv.Itoa(k)+".jpg")
	}
	// Ratings rise with tier; review counts with size and age.
	p.Rating = math.Round((3.7+0.25*float64(s.tier)+g.rng.Float64()*0.35)*10) / 10
	p.Rating = min(p.Rating, 4.9)
	p.ReviewCount = 40 + g.rng.IntN(2400)
	p.LicenseNumber = g.licence(i, s)
	p.Policy = policyFor(i, s)

	// Size: how many units relative to the templates.
	size := []float64{0.5, 1, 1.5}[g.rng.IntN(3)]
	if s.typ == "guesthouse" || s.typ == "villa" {
		size = 1
	}
	std := basePrice[s.country] * tierMult[s.tier]
	plan := calendarPlan{index: i, spec: s, seed: g.rng.Uint64(), traits: map[string]bool{}, currency: currency}
	for _, t := range strings.Split(s.flags, ",") {
		if t != "" {
			plan.traits[t] = true
		}
	}
	plan.maintAt = 60 + g.rng.IntN(150)
	for pos, key := range s.rooms {
		t, ok := roomTemplates[key]
		if !ok {
			panic("sample: unknown room template " + key)
		}
		units := max(1, int(math.Round(float64(t.units)*size)))
		if s.typ == "villa" {
			units = t.units
		}
		name := t.name
		if key == "ocean" && (s.country == "TW" || s.city == "Yangshuo") {
			name = "Mountain View Room"
		}
		rt := RoomType{
			ID: g.newID(at.Add(time.Duration(pos+1) * time.Minute)), PropertyID: p.ID, Name: name, Description: t.description,
			MaxGuests: t.guests, Beds: t.beds, TotalUnits: units, BasePrice: price(std*t.mult, currency), Position: pos,
		}
		g.ds.RoomTypes = append(g.ds.RoomTypes, rt)
		plan.rooms = append(plan.rooms, rt)
		if pos == 0 || rt.BasePrice < p.FromPrice {
			p.FromPrice = rt.BasePrice
		}
	}
	g.ds.Properties = append(g.ds.Properties, p)
	return plan
}

// price rounds a major-unit amount to a price a property would ask and
// returns it in minor units: whole hundreds of yen, thousands of won,
// ten thousands of dong or rupiah, whole units elsewhere.
func price(major float64, currency string) int64 {
	step := 1.0
	switch currency {
	case "JPY":
		step = 100
	case "KRW":
		step = 1000
	case "VND", "IDR":
		step = 10000
	case "TWD", "THB", "PHP":
		step = 10
	}
	rounded := math.Round(major/step) * step
	return int64(rounded) * property.MinorPerMajor(currency)
}

// policyFor picks the cancellation policy of a property.
func policyFor(i int, s spec) string {
	switch {
	case s.typ == "hostel" || s.typ == "capsule":
		return property.PolicyFlexible
	case s.typ == "ryokan" || s.typ == "villa":
		return property.PolicyStrict
	case s.typ == "resort":
		return []string{property.PolicyStrict, property.PolicyModerate}[i%2]
	case s.tier == 1:
		return []string{property.PolicyNonRefundable, property.PolicyFlexible}[i%2]
	case s.typ == "apartment":
		return property.PolicyModerate
	}
	return []string{property.PolicyFlexible, property.PolicyModerate, property.PolicyFlexible, property.PolicyNonRefundable}[i%4]
}

var jpWards = map[string]string{
	"Tokyo": "Shinjuku City", "Kyoto": "Kyoto City", "Osaka": "Osaka City", "Hakone": "Odawara",
	"Sapporo": "Sapporo City", "Onna": "Chubu",
}

// licence returns the registration a property of the country and type
// displays, in the local form, or nil where none is required of it.
func (g *generator) licence(i int, s spec) *string {
	n := 1000 + g.rng.IntN(8999)
	var l string
	switch s.country {
	case "JP":
		if s.typ == "apartment" {
			l = fmt.Sprintf("Private Lodging Business Act notification M%02d%07d", 13+i%15, n*97%10000000)
		} else {
			l = fmt.Sprintf("Hotel Business Act licence, %s Public Health Center No. %d-%d", jpWards[s.city], 20+i%10, n)
		}
	case "CN":
		l = fmt.Sprintf("Special Industry Licence No. %d%06d", 310000+i, n)
	case "KR":
		l = fmt.Sprintf("Tourist accommodation registration %d-%06d", 2014+i%10, n)
	case "TW":
		if s.typ == "guesthouse" {
			l = fmt.Sprintf("Licensed homestay No. %d", n)
		} else {
			l = fmt.Sprintf("Registered hotel No. %d", 100+n%900)
		}
	case "HK":
		l = fmt.Sprintf("Hotel and Guesthouse Accommodation licence H/%04d", n)
	case "TH":
		l = fmt.Sprintf("Hotel licence No. %d/%d", n%400, 2555+i%10)
	case "SG":
		l = fmt.Sprintf("Hotels Licensing Board licence HLB-%05d", n)
	default:
		return nil
	}
	return &l
}
