// Package chat is a realtime chat channel that knows no product: the
// centrifuge engine (the library behind Centrifugo) with WebSocket, SSE
// and HTTP streaming transports, authenticated by the credentials it
// issues (Credentials), scaled through Redis when REDIS_URL is set. The
// product decides who may connect and join, and what a draft may hold
// (Rules), and what its jobs publish (PublishJob).
//
// Channels:
//
//   - conversation:{id} — the conversation's participants only (Rules,
//     asked at subscribe time): what the product publishes, drafts and
//     typing signals; presence and join/leave tell who is online; history
//     with recovery lets a client that reconnects within RecoveryWindow
//     receive what it missed.
//   - user:{id} — the user's own.
package chat

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/centrifugal/centrifuge"
	"github.com/golang-jwt/jwt/v5"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Channel name prefixes.
const (
	conversationPrefix = "conversation:"
	userPrefix         = "user:"
)

// ConversationChannel is the name of a conversation's channel.
func ConversationChannel(conversationID string) string { return conversationPrefix + conversationID }

// UserChannel is the name of a user's own channel.
func UserChannel(userID string) string { return userPrefix + userID }

// RecoveryWindow is how long a channel keeps its publications for clients
// that reconnect; HistorySize bounds how many it keeps.
const (
	RecoveryWindow = 5 * time.Minute
	HistorySize    = 100
)

// idempotentResultTTL is how long a publication's idempotency key is
// remembered: longer than a job's first retries, so that a retried
// publication job is not delivered twice.
const idempotentResultTTL = time.Hour

// DisconnectAccountClosed drops the connections of a closed account; the
// client must not reconnect.
var DisconnectAccountClosed = centrifuge.Disconnect{Code: 4501, Reason: "account closed"}

// Rules are the product's: who may connect, who may join a conversation's
// channel, and what a draft may hold.
type Rules interface {
	// CheckUser checks that the user may connect: an open account.
	// Errors: apperr.NotFound.
	CheckUser(ctx context.Context, userID string) error
	// CheckParticipant checks that the user takes part in the
	// conversation. Errors: apperr.NotFound, apperr.Forbidden.
	CheckParticipant(ctx context.Context, userID, conversationID string) error
	// CheckDraft checks a draft's content and message type (nil: the
	// product's default) as the product checks a message, and returns
	// them as the draft is published. Errors: apperr.Validation.
	CheckDraft(content, messageType *string) (text, kind string, err error)
}

// Config is what the engine needs.
type Config struct {
	Credentials *Credentials // verifies connection tokens
	Rules       Rules
	// RedisURL, when set, makes the engine use Redis as its broker and
	// presence manager, so that any replica delivers to any client.
	RedisURL string
	// RedisPrefix prefixes the engine's Redis keys; "realtime" when empty.
	RedisPrefix string
	// Name names this node (the host name when empty).
	Name   string
	Logger *slog.Logger // nil: slog.Default()
}

// Engine is a running realtime node.
type Engine struct {
	node     *centrifuge.Node
	cfg      Config
	shards   []*centrifuge.RedisShard
	mux      *http.ServeMux
	draining atomic.Bool
}

// New starts a realtime node. Errors name REDIS_URL when Redis cannot be
// set up.
func New(cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RedisPrefix == "" {
		cfg.RedisPrefix = "realtime"
	}
	logger := cfg.Logger
	node, err := centrifuge.New(centrifuge.Config{
		Name:     cfg.Name,
		LogLevel: centrifuge.LogLevelWarn,
		LogHandler: func(e centrifuge.LogEntry) {
			level := slog.LevelInfo
			if e.Level >= centrifuge.LogLevelWarn {
				level = slog.LevelWarn
			}
			attrs := []any{"fields", e.Fields}
			if e.Error != nil {
				attrs = append(attrs, "err", e.Error)
			}
			logger.Log(context.Background(), level, "realtime: "+e.Message, attrs...)
		},
		// Recovery needs the stream's epoch and offset to outlive the
		// publications themselves.
		HistoryMetaTTL: 24 * time.Hour,
	})
	if err != nil {
		return nil, err
	}
	e := &Engine{node: node, cfg: cfg}
	if cfg.RedisURL != "" {
		if err := e.useRedis(); err != nil {
			return nil, fmt.Errorf("REDIS_URL: realtime: %w", err)
		}
	}
	node.OnConnecting(e.connecting)
	node.OnConnect(e.connect)
	if err := node.Run(); err != nil {
		e.closeShards()
		return nil, fmt.Errorf("start realtime node: %w", err)
	}
	e.mux = http.NewServeMux()
	ws := centrifuge.NewWebsocketHandler(node, centrifuge.WebsocketConfig{
		// Connections authenticate with a token, never a cookie: a page
		// of another origin gains nothing it could not do itself.
		CheckOrigin:      func(*http.Request) bool { return true },
		MessageSizeLimit: 64 << 10,
	})
	e.mux.Handle("GET /api/realtime/connection/websocket", ws)
	sse := centrifuge.NewSSEHandler(node, centrifuge.SSEConfig{MaxRequestBodySize: 64 << 10})
	e.mux.Handle("GET /api/realtime/connection/sse", sse)
	e.mux.Handle("POST /api/realtime/connection/sse", sse)
	e.mux.Handle("POST /api/realtime/connection/http_stream", centrifuge.NewHTTPStreamHandler(node, centrifuge.HTTPStreamConfig{MaxRequestBodySize: 64 << 10}))
	e.mux.Handle("POST /api/realtime/connection/emulation", centrifuge.NewEmulationHandler(node, centrifuge.EmulationConfig{MaxRequestBodySize: 64 << 10}))
	return e, nil
}

func (e *Engine) useRedis() error {
	shard, err := centrifuge.NewRedisShard(e.node, centrifuge.RedisShardConfig{Address: e.cfg.RedisURL, ConnectTimeout: 2 * time.Second, IOTimeout: 2 * time.Second})
	if err != nil {
		return err
	}
	e.shards = []*centrifuge.RedisShard{shard}
	broker, err := centrifuge.NewRedisBroker(e.node, centrifuge.RedisBrokerConfig{Prefix: e.cfg.RedisPrefix, Shards: e.shards})
	if err != nil {
		e.closeShards()
		return err
	}
	e.node.SetBroker(broker)
	presence, err := centrifuge.NewRedisPresenceManager(e.node, centrifuge.RedisPresenceManagerConfig{Prefix: e.cfg.RedisPrefix, Shards: e.shards})
	if err != nil {
		e.closeShards()
		return err
	}
	e.node.SetPresenceManager(presence)
	return nil
}

func (e *Engine) closeShards() {
	for _, s := range e.shards {
		s.Close()
	}
}

// Drain hands this replica's clients to the others as it stops: every
// connection, and every one that arrives from now on, is closed with
// centrifuge's shutdown advice, so clients reconnect (through the load
// balancer, to another replica) and recover what they missed from the
// shared history. The node itself keeps publishing, so jobs that run
// during the grace period still deliver. Long-lived streams would
// otherwise hold the HTTP server's shutdown for its whole grace period.
func (e *Engine) Drain() {
	e.draining.Store(true)
	for _, c := range e.node.Hub().Connections() {
		c.Disconnect(centrifuge.DisconnectShutdown)
	}
}

// Shutdown disconnects the clients and stops the node.
func (e *Engine) Shutdown(ctx context.Context) error {
	err := e.node.Shutdown(ctx)
	e.closeShards()
	return err
}

// ServeHTTP serves the transports under /api/realtime/connection/:
// websocket, sse, http_stream and emulation (the fallbacks' client to
// server path).
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mux.ServeHTTP(flushHijacker{w, http.NewResponseController(w)}, r)
}

// flushHijacker lets the transports flush and hijack through the API's
// middleware, whose writer only unwraps for http.ResponseController.
type flushHijacker struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w flushHijacker) Flush()                                       { _ = w.rc.Flush() }
func (w flushHijacker) FlushError() error                            { return w.rc.Flush() }
func (w flushHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) { return w.rc.Hijack() }
func (w flushHijacker) Unwrap() http.ResponseWriter                  { return w.ResponseWriter }

// Publish publishes data to channel, kept for recovery. A second
// publication with the same idempotency key within an hour is dropped, so
// a retried job delivers once.
func (e *Engine) Publish(ctx context.Context, channel string, data []byte, idempotencyKey string) error {
	_, span := telemetry.StartRealtime(ctx, "publish")
	_, err := e.node.Publish(channel, data, centrifuge.WithHistory(HistorySize, RecoveryWindow),
		centrifuge.WithIdempotencyKey(idempotencyKey), centrifuge.WithIdempotentResultTTL(idempotentResultTTL))
	span.End(err)
	return err
}

// Online tells whether the user has a connection subscribed to channel,
// on any node.
func (e *Engine) Online(ctx context.Context, channel, userID string) (bool, error) {
	_, span := telemetry.StartRealtime(ctx, "presence")
	p, err := e.node.Presence(channel)
	span.End(err)
	if err != nil {
		return false, err
	}
	for _, info := range p.Presence {
		if info.UserID == userID {
			return true, nil
		}
	}
	return false, nil
}

// DisconnectUser drops every connection of the user, on every node, and
// tells the clients not to reconnect: for a closed account.
func (e *Engine) DisconnectUser(userID string) error {
	return e.node.Disconnect(userID, centrifuge.WithCustomDisconnect(DisconnectAccountClosed))
}

// connecting authenticates a connection with its token.
func (e *Engine) connecting(ctx context.Context, ev centrifuge.ConnectEvent) (centrifuge.ConnectReply, error) {
	if e.draining.Load() {
		return centrifuge.ConnectReply{}, centrifuge.DisconnectShutdown
	}
	userID, exp, err := e.cfg.Credentials.Verify(ev.Token)
	if errors.Is(err, jwt.ErrTokenExpired) {
		return centrifuge.ConnectReply{}, centrifuge.ErrorTokenExpired
	} else if err != nil {
		return centrifuge.ConnectReply{}, centrifuge.ErrorUnauthorized
	}
	if err := e.checkOpen(ctx, userID); err != nil {
		return centrifuge.ConnectReply{}, err
	}
	return centrifuge.ConnectReply{
		Credentials:       &centrifuge.Credentials{UserID: userID, ExpireAt: exp.Unix()},
		ClientSideRefresh: true,
	}, nil
}

// checkOpen refuses a closed account.
func (e *Engine) checkOpen(ctx context.Context, userID string) error {
	err := e.cfg.Rules.CheckUser(ctx, userID)
	if err == nil {
		return nil
	}
	if apperr.Code(err) == apperr.NotFound {
		return centrifuge.ErrorUnauthorized
	}
	e.cfg.Logger.ErrorContext(ctx, "realtime: find user", "user", userID, "err", err)
	return centrifuge.ErrorInternal
}

func (e *Engine) connect(c *centrifuge.Client) {
	c.OnRefresh(func(ev centrifuge.RefreshEvent, cb centrifuge.RefreshCallback) {
		// The client fetched a new token from GET /api/realtime/token.
		userID, exp, err := e.cfg.Credentials.Verify(ev.Token)
		if err != nil || userID != c.UserID() {
			cb(centrifuge.RefreshReply{}, centrifuge.DisconnectInvalidToken)
			return
		}
		if err := e.checkOpen(c.Context(), userID); err != nil {
			cb(centrifuge.RefreshReply{}, DisconnectAccountClosed)
			return
		}
		cb(centrifuge.RefreshReply{ExpireAt: exp.Unix()}, nil)
	})
	c.OnSubscribe(func(ev centrifuge.SubscribeEvent, cb centrifuge.SubscribeCallback) {
		cb(e.subscribe(c, ev.Channel))
	})
	c.OnPublish(func(ev centrifuge.PublishEvent, cb centrifuge.PublishCallback) {
		cb(e.publish(c, ev))
	})
	c.OnPresence(func(ev centrifuge.PresenceEvent, cb centrifuge.PresenceCallback) {
		cb(centrifuge.PresenceReply{}, e.subscribed(c, ev.Channel))
	})
	c.OnPresenceStats(func(ev centrifuge.PresenceStatsEvent, cb centrifuge.PresenceStatsCallback) {
		cb(centrifuge.PresenceStatsReply{}, e.subscribed(c, ev.Channel))
	})
	c.OnHistory(func(ev centrifuge.HistoryEvent, cb centrifuge.HistoryCallback) {
		cb(centrifuge.HistoryReply{}, e.subscribed(c, ev.Channel))
	})
}

// subscribed allows what only a subscriber may ask of a channel: its
// subscription passed the access rules.
func (e *Engine) subscribed(c *centrifuge.Client, channel string) error {
	if !c.IsSubscribed(channel) {
		return centrifuge.ErrorPermissionDenied
	}
	return nil
}

// subscribe applies the access rules: a conversation's channel to its
// participants, a user's channel to that user.
func (e *Engine) subscribe(c *centrifuge.Client, channel string) (centrifuge.SubscribeReply, error) {
	recoverable := centrifuge.SubscribeOptions{EnablePositioning: true, EnableRecovery: true}
	switch {
	case strings.HasPrefix(channel, userPrefix):
		if strings.TrimPrefix(channel, userPrefix) != c.UserID() {
			return centrifuge.SubscribeReply{}, centrifuge.ErrorPermissionDenied
		}
		return centrifuge.SubscribeReply{Options: recoverable}, nil
	case strings.HasPrefix(channel, conversationPrefix):
		err := e.cfg.Rules.CheckParticipant(c.Context(), c.UserID(), strings.TrimPrefix(channel, conversationPrefix))
		switch {
		case err == nil:
		case apperr.Code(err) == apperr.NotFound, apperr.Code(err) == apperr.Forbidden:
			return centrifuge.SubscribeReply{}, centrifuge.ErrorPermissionDenied
		default:
			e.cfg.Logger.ErrorContext(c.Context(), "realtime: check participant", "channel", channel, "err", err)
			return centrifuge.SubscribeReply{}, centrifuge.ErrorInternal
		}
		opts := recoverable
		opts.EmitPresence, opts.EmitJoinLeave, opts.PushJoinLeave = true, true, true
		return centrifuge.SubscribeReply{Options: opts}, nil
	}
	return centrifuge.SubscribeReply{}, centrifuge.ErrorUnknownChannel
}

// ClientPublication is what a participant may publish to its
// conversation's channel.
type ClientPublication struct {
	// Type is "draft" (a message sent here first, to be recorded through
	// REST with realtimeMessageId) or "typing".
	Type        string  `json:"type"`
	Content     *string `json:"content"`
	MessageType *string `json:"messageType"`
	// Ref is the client's own reference to the draft, echoed so that it
	// can find the draft's id in the publication.
	Ref *string `json:"ref"`
}

// Draft is a participant's draft as the channel publishes it.
type Draft struct {
	Type           string  `json:"type"` // "draft"
	ID             string  `json:"id"`   // pass as realtimeMessageId
	ConversationID string  `json:"conversationId"`
	SenderID       string  `json:"senderId"`
	MessageType    string  `json:"messageType"`
	Content        string  `json:"content"`
	Ref            *string `json:"ref"`
}

// Typing is a participant's typing signal; it is not kept in history.
type Typing struct {
	Type           string `json:"type"` // "typing"
	ConversationID string `json:"conversationId"`
	UserID         string `json:"userId"`
}

// publish handles a client's publication: participants only (their
// subscription passed the rules), content checked as the REST API checks a
// message. The engine publishes it itself, so that a draft carries the id
// the channel gives it.
func (e *Engine) publish(c *centrifuge.Client, ev centrifuge.PublishEvent) (centrifuge.PublishReply, error) {
	if !strings.HasPrefix(ev.Channel, conversationPrefix) || !c.IsSubscribed(ev.Channel) {
		return centrifuge.PublishReply{}, centrifuge.ErrorPermissionDenied
	}
	var in ClientPublication
	// Text is UTF-8 without NUL, as the REST API takes it.
	if !utf8.Valid(ev.Data) {
		return centrifuge.PublishReply{}, centrifuge.ErrorBadRequest
	}
	if err := json.Unmarshal(ev.Data, &in); err != nil {
		return centrifuge.PublishReply{}, centrifuge.ErrorBadRequest
	}
	conversationID := strings.TrimPrefix(ev.Channel, conversationPrefix)
	var data []byte
	var opts []centrifuge.PublishOption
	switch in.Type {
	case "typing":
		data, _ = json.Marshal(Typing{Type: "typing", ConversationID: conversationID, UserID: c.UserID()})
	case "draft":
		d, err := e.checkDraft(in)
		if err != nil {
			return centrifuge.PublishReply{}, centrifuge.ErrorBadRequest
		}
		d.ID, d.ConversationID, d.SenderID = store.NewID(), conversationID, c.UserID()
		data, _ = json.Marshal(d)
		opts = append(opts, centrifuge.WithHistory(HistorySize, RecoveryWindow))
	default:
		return centrifuge.PublishReply{}, centrifuge.ErrorBadRequest
	}
	res, err := e.node.Publish(ev.Channel, data, opts...)
	if err != nil {
		e.cfg.Logger.Error("realtime: publish", "channel", ev.Channel, "err", err)
		return centrifuge.PublishReply{}, centrifuge.ErrorInternal
	}
	return centrifuge.PublishReply{Result: &res}, nil
}

// checkDraft checks a draft as the product checks a message (Rules), and
// its ref.
func (e *Engine) checkDraft(in ClientPublication) (Draft, error) {
	errs := apperr.FieldErrors{}
	text, kind, err := e.cfg.Rules.CheckDraft(in.Content, in.MessageType)
	if err != nil {
		return Draft{}, err
	}
	d := Draft{Type: "draft", MessageType: kind, Content: text, Ref: in.Ref}
	field.CheckString(errs, "ref", in.Ref, false, 1, 200)
	if strings.IndexByte(d.Content, 0) >= 0 || (in.Ref != nil && strings.IndexByte(*in.Ref, 0) >= 0) {
		errs.Add("content", "must not contain NUL")
	}
	return d, errs.Err()
}
