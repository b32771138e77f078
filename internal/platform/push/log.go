package push

import (
	"context"
	"log/slog"
	"unicode/utf8"
)

// LogSender only logs the notifications it would send: the default when no
// push gateway is configured. The message text is not logged, only its
// length, nor more of the token than its end.
type LogSender struct {
	Logger *slog.Logger // nil: slog.Default()
}

// Send logs m and returns nil.
func (s LogSender) Send(ctx context.Context, m Message) error {
	l := s.Logger
	if l == nil {
		l = slog.Default()
	}
	l.InfoContext(ctx, "push: no gateway configured; would send notification",
		"token", tokenTail(m.Token), "platform", m.Platform, "title", m.Title,
		"body_chars", utf8.RuneCountInString(m.Body), "data", m.Data)
	return nil
}

// tokenTail is the end of a device token, enough to tell devices apart in
// logs.
func tokenTail(t string) string {
	if len(t) <= 8 {
		return t
	}
	return "…" + t[len(t)-8:]
}
