// Package ai asks an OpenAI-compatible chat-completions endpoint for the
// AI assistant's replies.
package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Limits of one request.
const (
	// RequestTimeout bounds one chat completion, answer included.
	RequestTimeout = 60 * time.Second
	// MaxResponseBytes is the most of an answer that is read.
	MaxResponseBytes = 1 << 20
)

// Its requests carry the traceparent of the job's span.
var defaultClient = &http.Client{Timeout: RequestTimeout, Transport: telemetry.Transport(nil)}

// Roles of a Turn.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Turn is one message of the conversation the model is shown.
type Turn struct {
	Role    string // RoleUser or RoleAssistant
	Content string
}

// Client calls POST {BaseURL}/chat/completions.
type Client struct {
	BaseURL string       // AI_BASE_URL, such as https://api.openai.com/v1
	APIKey  string       // AI_API_KEY; sent as a bearer token when set
	Model   string       // AI_MODEL
	HTTP    *http.Client // nil: a client with a RequestTimeout timeout
}

// StatusError is an unsuccessful answer of the endpoint.
type StatusError struct {
	StatusCode int
	Message    string // the error body's error.message, or the start of the body
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("chat completions: HTTP %d: %s", e.StatusCode, e.Message)
}

// Retriable reports whether the request may succeed later: rate limiting
// (429), a timeout (408) and server errors (5xx).
func (e *StatusError) Retriable() bool {
	return e.StatusCode == 429 || e.StatusCode == 408 || e.StatusCode >= 500
}

// ErrEmptyReply reports an answer without a reply text.
var ErrEmptyReply = errors.New("chat completions: the model returned no reply")

// Retriable reports whether asking again later may succeed after err:
// network failures, timeouts, 408/429/5xx answers and empty replies are
// retriable; other answers (a bad key, an unknown model, a request the
// endpoint refuses) are not.
func Retriable(err error) bool {
	if err == nil {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Retriable()
	}
	var ce *configError
	return !errors.As(err, &ce)
}

type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

type errorBody struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Reply asks the model for the next assistant message after history, with
// system as the system prompt, and returns its text, trimmed.
func (c *Client) Reply(ctx context.Context, system string, history []Turn) (string, error) {
	if c == nil || c.BaseURL == "" {
		return "", &configError{"chat completions: no base URL configured"}
	}
	if c.Model == "" {
		return "", &configError{"chat completions: no model configured"}
	}
	msgs := make([]chatMessage, 0, len(history)+1)
	if system != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: system})
	}
	for _, t := range history {
		if t.Role != RoleUser && t.Role != RoleAssistant {
			return "", &configError{fmt.Sprintf("chat completions: unknown role %q", t.Role)}
		}
		msgs = append(msgs, chatMessage(t))
	}
	body, err := json.Marshal(chatRequest{Model: c.Model, Messages: msgs})
	if err != nil {
		return "", &configError{"chat completions: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", &configError{"chat completions: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	client := c.HTTP
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("chat completions: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return "", fmt.Errorf("chat completions: read answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var eb errorBody
		msg := ""
		if json.Unmarshal(answer, &eb) == nil {
			msg = eb.Error.Message
		}
		if msg == "" {
			msg = strings.TrimSpace(string(answer[:min(len(answer), 200)]))
		}
		return "", &StatusError{StatusCode: resp.StatusCode, Message: msg}
	}
	if len(answer) > MaxResponseBytes {
		return "", fmt.Errorf("chat completions: answer larger than %d bytes", MaxResponseBytes)
	}
	var cr chatResponse
	if err := json.Unmarshal(answer, &cr); err != nil {
		return "", fmt.Errorf("chat completions: decode answer: %w", err)
	}
	if len(cr.Choices) == 0 {
		return "", ErrEmptyReply
	}
	text := strings.TrimSpace(cr.Choices[0].Message.Content)
	if text == "" {
		return "", ErrEmptyReply
	}
	return text, nil
}
