package guide

// Event types of the guide marketplace's change feed.
const (
	EventBookingCreated   = "booking.created"
	EventBookingConfirmed = "booking.confirmed"
	EventBookingStarted   = "booking.started"
	EventBookingCompleted = "booking.completed"
	EventBookingCancelled = "booking.cancelled"
	EventReviewCreated    = "review.created"
	EventMessageCreated   = "message.created"
	EventActionPending    = "action.pending"
	EventActionConfirmed  = "action.confirmed"
)

// EventTypes lists every type of the guide API's feed.
var EventTypes = []string{EventBookingCreated, EventBookingConfirmed, EventBookingStarted, EventBookingCompleted, EventBookingCancelled,
	EventReviewCreated, EventMessageCreated, EventActionPending, EventActionConfirmed}

// Audience is the feed audience of a user: the events of the user's
// bookings, conversations and actions.
func Audience(userID string) string { return "user:" + userID }
