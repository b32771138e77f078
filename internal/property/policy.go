package property

import (
	"fmt"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/clock"
)

// Cancellation policy codes.
const (
	PolicyFlexible      = "flexible"
	PolicyModerate      = "moderate"
	PolicyStrict        = "strict"
	PolicyNonRefundable = "non_refundable"
)

// PolicyCodes lists the cancellation policies.
var PolicyCodes = []string{PolicyFlexible, PolicyModerate, PolicyStrict, PolicyNonRefundable}

// Penalty is one step of a cancellation policy: cancelling less than
// HoursBefore hours before the check-in time costs Percent of the total or
// the price of the first Nights nights, whichever is more. A nil
// HoursBefore applies from the moment of booking.
type Penalty struct {
	HoursBefore *int `json:"hoursBefore"`
	Percent     int  `json:"percent"`
	Nights      int  `json:"nights"`
}

// CancellationPolicy says what cancelling a booking costs. A booking keeps
// the policy it was booked under.
type CancellationPolicy struct {
	Code        string    `json:"code"`
	Description string    `json:"description"`
	Penalties   []Penalty `json:"penalties"`
}

func hours(h int) *int { return &h }

// Policy returns the standard policy with the code; ok is false for an
// unknown code.
func Policy(code string) (CancellationPolicy, bool) {
	switch code {
	case PolicyFlexible:
		return CancellationPolicy{Code: code,
			Description: "Free cancellation until 24 hours before the check-in time; after that the first night is charged.",
			Penalties:   []Penalty{{HoursBefore: hours(24), Nights: 1}}}, true
	case PolicyModerate:
		return CancellationPolicy{Code: code,
			Description: "Free cancellation until 5 days before the check-in time; after that 50% of the total is charged, and the full total from the check-in time on.",
			Penalties:   []Penalty{{HoursBefore: hours(120), Percent: 50}, {HoursBefore: hours(0), Percent: 100}}}, true
	case PolicyStrict:
		return CancellationPolicy{Code: code,
			Description: "Free cancellation until 14 days before the check-in time; after that 50% of the total is charged, and the full total from 7 days before.",
			Penalties:   []Penalty{{HoursBefore: hours(336), Percent: 50}, {HoursBefore: hours(168), Percent: 100}}}, true
	case PolicyNonRefundable:
		return CancellationPolicy{Code: code,
			Description: "Non-refundable: cancelling at any time costs the full total.",
			Penalties:   []Penalty{{Percent: 100}}}, true
	}
	return CancellationPolicy{}, false
}

// CheckInInstant returns the moment a stay starts: the check-in date at the
// property's check-in time ("15:00") in its time zone.
func CheckInInstant(checkIn Date, checkInTime, tz string) (time.Time, error) {
	loc, err := clock.LoadLocation(tz)
	if err != nil {
		return time.Time{}, fmt.Errorf("property: time zone %q: %w", tz, err)
	}
	var hh, mm int
	if _, err := fmt.Sscanf(checkInTime, "%d:%d", &hh, &mm); err != nil {
		return time.Time{}, fmt.Errorf("property: check-in time %q: %w", checkInTime, err)
	}
	return checkIn.At(hh, mm, loc).UTC(), nil
}

// FreeCancellationUntil returns the last moment the stay starting at
// checkIn can be cancelled for free, or nil when no moment is free.
func (p CancellationPolicy) FreeCancellationUntil(checkIn time.Time) *time.Time {
	maxHours := -1
	for _, pen := range p.Penalties {
		if pen.HoursBefore == nil {
			return nil
		}
		maxHours = max(maxHours, *pen.HoursBefore)
	}
	if maxHours < 0 {
		return nil
	}
	t := checkIn.Add(-time.Duration(maxHours) * time.Hour)
	return &t
}

// Fee returns what cancelling at now costs for a stay starting at checkIn
// with the nightly prices and total: the largest penalty in force, or
// nothing before the first.
func (p CancellationPolicy) Fee(now, checkIn time.Time, nightly []NightlyPrice, total Money) Money {
	fee := Money{Currency: total.Currency}
	for _, pen := range p.Penalties {
		if pen.HoursBefore != nil && now.Before(checkIn.Add(-time.Duration(*pen.HoursBefore)*time.Hour)) {
			continue
		}
		f := total.Percent(pen.Percent)
		var first int64
		for i := 0; i < pen.Nights && i < len(nightly); i++ {
			first += nightly[i].Price.Amount
		}
		f.Amount = min(max(f.Amount, first), total.Amount)
		if f.Amount > fee.Amount {
			fee = f
		}
	}
	return fee
}
