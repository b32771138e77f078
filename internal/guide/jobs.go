package guide

// Job kinds of the guide marketplace: guidedb enqueues them in the
// transactions of the changes that ask for them, and guidejobs handles
// them.
const (
	// JobPushMessage notifies the recipient of a message on each of their
	// devices. Payload: {"messageId": "..."}.
	JobPushMessage = "push.message"
	// JobPushDevice delivers one message's notification to one device.
	// The runner fans a JobPushMessage out into one of these per device of
	// the recipient, so that each device is retried, deferred for its
	// quiet hours and delivered on its own. Payload: {"messageId": "...",
	// "token": "..."}.
	JobPushDevice = "push.device"
	// JobPushAction asks the person, on one of their devices, to confirm
	// (or ignore) a pending action an API key asked for. CreateAction
	// enqueues one per device in its transaction; the runner sends it only
	// while the action is still pending. Payload: {"actionId": "...",
	// "token": "..."}.
	JobPushAction = "push.action"
	// JobPushApplication tells an applicant, on one of their devices, an
	// admin's decision on their expert application, in their language.
	// The decision enqueues one per device in its transaction. Payload:
	// {"applicationId": "...", "status": "...", "token": "..."}.
	JobPushApplication = "push.application"
	// JobPushCancellation tells a traveller, on one of their devices, that
	// an admin cancelled their booking (its expert was suspended).
	// Payload: {"bookingId": "...", "token": "..."}.
	JobPushCancellation = "push.cancellation"
	// JobAIReply asks the AI model for the expert's reply to a traveller's
	// message. Payload: {"conversationId": "...", "messageId": "..."}.
	JobAIReply = "ai.reply"
	// JobBlobDelete removes a stored file no longer referenced, such as the
	// avatar of a closed account. Payload: {"key": "..."}.
	JobBlobDelete = "blob.delete"
)

// Job kinds of the realtime chat channel: each publishes what a
// transaction committed (an outbox: the job is enqueued in the
// transaction, so a publication exists if and only if the change does,
// and survives a crash between the commit and the publish).
const (
	// JobRealtimeMessage publishes a recorded message to its conversation's
	// channel and the recipient's unread count to their personal channel.
	// Payload: a guidedb.RealtimeMessage.
	JobRealtimeMessage = "realtime.message"
	// JobRealtimeRead publishes a read receipt to the conversation's channel
	// and the reader's unread count to their personal channel. Payload: a
	// guidedb.ReadReceipt.
	JobRealtimeRead = "realtime.read"
	// JobRealtimeConversation publishes a new conversation to the other
	// participant's personal channel. Payload: a guidedb.NewConversation.
	JobRealtimeConversation = "realtime.conversation"
)
