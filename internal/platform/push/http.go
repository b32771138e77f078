package push

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// SendTimeout bounds one request to the push gateway.
const SendTimeout = 10 * time.Second

// maxErrorBody is how much of a gateway's answer is read.
const maxErrorBody = 64 << 10

// Its requests carry the traceparent of the job's span.
var defaultClient = &http.Client{Timeout: SendTimeout, Transport: telemetry.Transport(nil)}

// HTTPSender posts each notification as a Firebase Cloud Messaging HTTP v1
// request body to a gateway: FCM's messages:send endpoint behind an
// authenticating proxy, or a service of ours that speaks the same shape.
type HTTPSender struct {
	URL    string       // PUSH_GATEWAY_URL
	Client *http.Client // nil: a client with a SendTimeout timeout
}

type fcmRequest struct {
	Message fcmMessage `json:"message"`
}

type fcmMessage struct {
	Token        string            `json:"token"`
	Notification fcmNotification   `json:"notification"`
	Data         map[string]string `json:"data,omitempty"`
	Android      fcmAndroid        `json:"android"`
	APNS         fcmAPNS           `json:"apns"`
}

type fcmNotification struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

type fcmAndroid struct {
	Priority string `json:"priority"`
}

type fcmAPNS struct {
	Payload struct {
		APS struct {
			Sound string `json:"sound"`
		} `json:"aps"`
	} `json:"payload"`
}

// fcmError is the error body of FCM HTTP v1 (google.rpc.Status).
type fcmError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Type            string `json:"@type"`
			ErrorCode       string `json:"errorCode"`
			FieldViolations []struct {
				Field       string `json:"field"`
				Description string `json:"description"`
			} `json:"fieldViolations"`
		} `json:"details"`
	} `json:"error"`
}

// Send posts m to the gateway. A 2xx answer is success. ErrTokenGone: a
// 410, or a 404/400 whose error body says the token is unknown
// (UNREGISTERED, NOT_FOUND) or invalid (INVALID_ARGUMENT about the token).
// A *StatusError otherwise: retriable for 429 and 5xx, permanent for other
// answers. Network failures and timeouts are retriable.
func (s *HTTPSender) Send(ctx context.Context, m Message) error {
	if s.URL == "" {
		return &permanentError{errors.New("push: no gateway URL")}
	}
	req := fcmRequest{Message: fcmMessage{
		Token: m.Token, Notification: fcmNotification{Title: m.Title, Body: m.Body},
		Data: m.Data, Android: fcmAndroid{Priority: "high"},
	}}
	req.Message.APNS.Payload.APS.Sound = "default"
	body, err := json.Marshal(req)
	if err != nil {
		return &permanentError{fmt.Errorf("push: encode message: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return &permanentError{fmt.Errorf("push: %w", err)}
	}
	hreq.Header.Set("Content-Type", "application/json; charset=utf-8")
	hreq.Header.Set("Accept", "application/json")
	client := s.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return fmt.Errorf("push gateway: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody)) // lets the connection be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	var fe fcmError
	json.Unmarshal(answer, &fe)
	if tokenGone(resp.StatusCode, &fe) {
		return fmt.Errorf("%w (HTTP %d %s)", ErrTokenGone, resp.StatusCode, fe.Error.Status)
	}
	se := &StatusError{StatusCode: resp.StatusCode, Status: fe.Error.Status, Message: fe.Error.Message,
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	if se.Message == "" && fe.Error.Status == "" {
		se.Message = strings.TrimSpace(string(answer))
		if len(se.Message) > 200 {
			se.Message = se.Message[:200] + "…"
		}
	}
	return se
}

// tokenGone reports whether the gateway's answer says the device token is
// dead. A bare 404 is not enough: a wrong gateway URL answers that too, and
// must not make us forget every device.
func tokenGone(code int, fe *fcmError) bool {
	if code == http.StatusGone {
		return true
	}
	if code != http.StatusNotFound && code != http.StatusBadRequest {
		return false
	}
	for _, d := range fe.Error.Details {
		if d.ErrorCode == "UNREGISTERED" {
			return true
		}
	}
	switch fe.Error.Status {
	case "UNREGISTERED", "NOT_FOUND":
		return true
	case "INVALID_ARGUMENT":
		// Only when it is the token that is invalid, not, say, the data.
		if strings.Contains(strings.ToLower(fe.Error.Message), "token") {
			return true
		}
		for _, d := range fe.Error.Details {
			for _, v := range d.FieldViolations {
				if strings.Contains(strings.ToLower(v.Field), "token") {
					return true
				}
			}
		}
	}
	return false
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
