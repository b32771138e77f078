package property

// Event types of the property platform's change feed. availability.updated
// and property.updated are recorded by the supply side (property and
// calendar changes).
const (
	EventBookingCreated      = "booking.created"
	EventBookingCancelled    = "booking.cancelled"
	EventQuoteExpired        = "quote.expired"
	EventAvailabilityUpdated = "availability.updated"
	EventPropertyUpdated     = "property.updated"
)

// EventTypes lists every type of the property API's feed.
var EventTypes = []string{EventBookingCreated, EventBookingCancelled, EventQuoteExpired, EventAvailabilityUpdated, EventPropertyUpdated}

// Audience is the feed audience of an account: its bookings and quotes of
// one mode.
func Audience(developerID string, test bool) string {
	mode := ModeLive
	if test {
		mode = ModeTest
	}
	return "account:" + developerID + ":" + mode
}
