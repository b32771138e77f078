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
	// The supply side's: a package changed (seen by its expert, and by
	// everyone while it is or was in the catalogue), and an expert's
	// schedule changed (seen by the expert).
	EventPackageUpdated      = "package.updated"
	EventAvailabilityUpdated = "availability.updated"
	// Travelogues: one was written or changed (seen by its author, and by
	// everyone while it is published), published, or taken back to a
	// draft (both seen by everyone).
	EventTravelogueUpdated     = "travelogue.updated"
	EventTraveloguePublished   = "travelogue.published"
	EventTravelogueUnpublished = "travelogue.unpublished"
	// An expert joined the catalogue (an application approved), and a
	// verified expert's public profile changed: seen by everyone, the
	// expert as the catalogue shows it (GET /api/v1/experts/{handle}).
	EventExpertVerified = "expert.verified"
	EventExpertUpdated  = "expert.updated"
)

// EventTypes lists every type of the guide API's feed.
var EventTypes = []string{EventBookingCreated, EventBookingConfirmed, EventBookingStarted, EventBookingCompleted, EventBookingCancelled,
	EventReviewCreated, EventMessageCreated, EventActionPending, EventActionConfirmed, EventPackageUpdated, EventAvailabilityUpdated,
	EventTravelogueUpdated, EventTraveloguePublished, EventTravelogueUnpublished,
	EventExpertVerified, EventExpertUpdated}

// KeyWithheldEventTypes are the types an API key's feed never carries:
// keys never reach conversations, so neither do they read their messages
// from the feed. The participants read them with their user tokens and
// through their own webhooks.
var KeyWithheldEventTypes = []string{EventMessageCreated}

// Audience is the feed audience of a user: the events of the user's
// bookings, conversations and actions.
func Audience(userID string) string { return "user:" + userID }
