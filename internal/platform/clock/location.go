package clock

import (
	"sync"
	"time"
	_ "time/tzdata" // zones resolve even where the system has no zoneinfo
)

// locations holds the zones LoadLocation found, by name. The standard
// library reads and parses the zone's file on every call, a cost a
// property quote paid on every request. Only zones that exist are kept,
// and there are a few hundred, so the cache stays small whatever callers
// send.
var locations sync.Map // string → *time.Location

// LoadLocation is time.LoadLocation, remembered.
func LoadLocation(name string) (*time.Location, error) {
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	locations.Store(name, loc)
	return loc, nil
}
