// Package push delivers notifications to users' devices: the message sent
// to one device (Message), the providers that send it (HTTPSender to a
// Firebase-compatible gateway, LogSender for development), the text of a
// chat-message notification and of a pending action's request for
// confirmation in the device's language (Language, Notice, ActionNotice)
// and the quiet hours during which a device is left alone (QuietUntil).
package push

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Message is one notification for one device.
type Message struct {
	Token    string // the device's registration token
	Platform string // WEB, ANDROID or IOS
	Title    string
	Body     string
	// Data is delivered to the app with the notification, for it to open
	// the right screen.
	Data map[string]string
}

// Sender delivers notifications.
type Sender interface {
	// Send delivers m. Errors: ErrTokenGone when the provider says the
	// token is dead; an error for which Retriable reports true when trying
	// again later may succeed; any other error is permanent.
	Send(ctx context.Context, m Message) error
}

// ErrTokenGone reports that the push provider no longer knows the device
// token (the app was uninstalled, the token expired or it was never valid):
// the token is to be forgotten.
var ErrTokenGone = errors.New("push: device token is no longer valid")

// StatusError is an unsuccessful answer of the push gateway.
type StatusError struct {
	StatusCode int
	// Status is the error.status of a Firebase-shaped error body, if any.
	Status  string
	Message string
	// RetryAfter is the delay the gateway asked for (Retry-After), if any.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("push gateway: HTTP %d", e.StatusCode)
	if e.Status != "" {
		s += " " + e.Status
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Retriable reports whether the same request may succeed later: rate
// limiting (429) and server errors (5xx).
func (e *StatusError) Retriable() bool { return e.StatusCode == 429 || e.StatusCode >= 500 }

// Retriable reports whether sending again later may succeed after err:
// network failures, timeouts and 429/5xx answers are retriable; ErrTokenGone
// and other answers (a request the gateway refuses) are not.
func Retriable(err error) bool {
	if err == nil || errors.Is(err, ErrTokenGone) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Retriable()
	}
	var p *permanentError
	return !errors.As(err, &p)
}

// RetryAfter returns the delay the gateway asked for with err, or 0.
func RetryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}

// permanentError is a failure that no retry can fix, such as a message
// that cannot be encoded.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }
