package sample

import (
	"math"
	"strconv"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/samplescale"
	"github.com/wayfarer-asia/platform/internal/property"
)

// A scaled sample (SAMPLE_SCALE=N) is the dataset plus N-1 replicas of its
// inventory: properties, their room types and their whole calendar. A
// replica keeps the original's city, type, rooms and calendar pattern
// (closures, minimum stays, sold-out nights), so searches meet the hand-made
// distributions, and takes a price level, rating and review count of its
// own, drawn from samplescale.Seed, the copy and the property's id.
//
// The Copy functions return replica c (c ≥ 1) of a row; replica 0 is the
// row itself.

// priceFactor is the price level of replica c of the property: 0.75 to
// 1.35 times the original's.
func priceFactor(propertyID string, c int) float64 {
	return 0.75 + samplescale.Rand(propertyID, c).Float64()*0.6
}

// scalePrice is amount (minor units) times f, rounded to a whole major unit.
func scalePrice(amount int64, f float64, currency string) int64 {
	unit := float64(property.MinorPerMajor(currency))
	return int64(math.Round(float64(amount)*f/unit) * unit)
}

// CopyProperty returns replica c of the property.
func CopyProperty(p Property, c int) Property {
	if c == 0 {
		return p
	}
	f := priceFactor(p.ID, c)
	r := samplescale.Rand(p.ID+"/details", c)
	p.ID = samplescale.ID(p.ID, c)
	p.Name += " " + strconv.Itoa(c+1)
	p.Latitude += (r.Float64() - 0.5) * 0.05
	p.Longitude += (r.Float64() - 0.5) * 0.05
	p.Rating = math.Min(4.9, math.Max(3.0, math.Round((p.Rating+(r.Float64()-0.5)*0.8)*10)/10))
	p.ReviewCount = 40 + r.IntN(2400)
	p.FromPrice = scalePrice(p.FromPrice, f, p.Currency)
	p.CreatedAt = p.CreatedAt.Add(time.Duration(c) * time.Second)
	return p
}

// CopyRoomType returns replica c of the room type; currency is its
// property's.
func CopyRoomType(t RoomType, c int, currency string) RoomType {
	if c == 0 {
		return t
	}
	t.BasePrice = scalePrice(t.BasePrice, priceFactor(t.PropertyID, c), currency)
	t.ID, t.PropertyID = samplescale.ID(t.ID, c), samplescale.ID(t.PropertyID, c)
	return t
}

// CopyNight returns replica c of the night; currency is its property's.
func CopyNight(n Night, c int, currency string) Night {
	if c == 0 {
		return n
	}
	n.Price = scalePrice(n.Price, priceFactor(n.PropertyID, c), currency)
	n.RoomTypeID, n.PropertyID = samplescale.ID(n.RoomTypeID, c), samplescale.ID(n.PropertyID, c)
	return n
}
