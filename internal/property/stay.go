package property

import (
	"fmt"
	"strconv"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

// Reasons a stay cannot be had, in error.details.reason of UNAVAILABLE.
const (
	ReasonSoldOut           = "sold_out"
	ReasonMinStay           = "min_stay"
	ReasonClosed            = "closed"
	ReasonClosedToArrival   = "closed_to_arrival"
	ReasonClosedToDeparture = "closed_to_departure"
	ReasonMaxGuests         = "max_guests"
)

// Reasons lists the reasons of UNAVAILABLE.
var Reasons = []string{ReasonSoldOut, ReasonMinStay, ReasonClosed, ReasonClosedToArrival, ReasonClosedToDeparture, ReasonMaxGuests}

// Unavailable returns the UNAVAILABLE error for reason; date, when not
// zero, is the night (or for closed_to_departure the day) at fault.
func Unavailable(reason string, date Date, message string) *apperr.Error {
	details := map[string]any{"reason": reason}
	if !date.IsZero() {
		details["date"] = date.String()
	}
	return &apperr.Error{Code: apperr.StayUnavailable, Message: message, Details: details}
}

// CalendarNight is a night of a room type's calendar as the rules see it.
// Available is the number of units that can still be had, holds of
// unexpired quotes and sold units taken off.
type CalendarNight struct {
	Date              Date
	Price             int64
	MinStay           int
	Closed            bool
	ClosedToArrival   bool
	ClosedToDeparture bool
	Available         int
}

// CheckDates validates a stay's dates against today in the property's
// time zone: check-out after check-in, at most MaxStayNights nights, and
// check-in not in the past. Errors: apperr.Validation naming the field.
func CheckDates(checkIn, checkOut, today Date) error {
	errs := apperr.FieldErrors{}
	switch n := checkIn.DaysUntil(checkOut); {
	case n < 1:
		errs.Add("checkOut", "must be after checkIn")
	case n > MaxStayNights:
		errs.Add("checkOut", "a stay is at most "+strconv.Itoa(MaxStayNights)+" nights")
	}
	if checkIn.Before(today) {
		errs.Add("checkIn", "is in the past in the property's time zone, where today is "+today.String())
	}
	return errs.Err()
}

// CheckStay applies the booking rules to a stay of the room type from
// checkIn up to checkOut for guests: capacity, then for each night that it
// is sold and open, arrival and departure restrictions, the arrival night's
// minimum stay, and last that a unit is left every night. calendar holds
// the stay's nights and the check-out day, when the room type's calendar
// has them. The first rule broken is the error.
// Errors: apperr.StayUnavailable with details.reason.
func CheckStay(rt RoomType, guests int, checkIn, checkOut Date, calendar map[Date]CalendarNight) error {
	if guests > rt.MaxGuests {
		e := Unavailable(ReasonMaxGuests, Date{}, fmt.Sprintf("%s takes at most %d guests.", rt.Name, rt.MaxGuests))
		e.Details["maxGuests"] = rt.MaxGuests
		return e
	}
	n := checkIn.DaysUntil(checkOut)
	for d := checkIn; d.Before(checkOut); d = d.AddDays(1) {
		if c, ok := calendar[d]; !ok || c.Closed {
			return Unavailable(ReasonClosed, d, fmt.Sprintf("%s is not sold for the night of %s.", rt.Name, d))
		}
	}
	if calendar[checkIn].ClosedToArrival {
		return Unavailable(ReasonClosedToArrival, checkIn, fmt.Sprintf("Arrival is not possible on %s.", checkIn))
	}
	if c, ok := calendar[checkOut]; ok && c.ClosedToDeparture {
		return Unavailable(ReasonClosedToDeparture, checkOut, fmt.Sprintf("Departure is not possible on %s.", checkOut))
	}
	if m := calendar[checkIn].MinStay; n < m {
		e := Unavailable(ReasonMinStay, checkIn, fmt.Sprintf("An arrival on %s requires a stay of at least %d nights.", checkIn, m))
		e.Details["minStay"] = m
		return e
	}
	for d := checkIn; d.Before(checkOut); d = d.AddDays(1) {
		if calendar[d].Available <= 0 {
			return SoldOut(rt.Name, d)
		}
	}
	return nil
}

// SoldOut returns the UNAVAILABLE error for a night with no unit left.
func SoldOut(roomType string, d Date) *apperr.Error {
	return Unavailable(ReasonSoldOut, d, fmt.Sprintf("%s is sold out for the night of %s.", roomType, d))
}
