package push

import (
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// Quiet hours, device-local: no notification from QuietStart until QuietEnd
// the next morning.
const (
	QuietStart = 22 // 22:00
	QuietEnd   = 8  // 08:00
)

// QuietUntil reports whether now falls within the quiet hours of a device
// in the IANA time zone timezone, and if so when they end: 08:00 local
// time on the same morning (after midnight) or the next one (before it),
// whatever daylight saving time does in between. A device without a zone,
// or with one that is not known, has no quiet hours.
func QuietUntil(now time.Time, timezone string) (time.Time, bool) {
	if timezone == "" || timezone == "Local" {
		return time.Time{}, false
	}
	loc, err := clock.LoadLocation(timezone)
	if err != nil {
		return time.Time{}, false
	}
	local := now.In(loc)
	h := local.Hour()
	if h >= QuietEnd && h < QuietStart {
		return time.Time{}, false
	}
	y, m, d := local.Date()
	if h >= QuietStart {
		d++ // time.Date normalises the day past the month's end
	}
	return time.Date(y, m, d, QuietEnd, 0, 0, 0, loc).UTC(), true
}
