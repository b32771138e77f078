package telemetry

import (
	"context"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// RedisHook traces the commands of a go-redis client run under a span
// (client.AddHook(telemetry.RedisHook{})): one span per command or
// pipeline, named by the command, without its keys or arguments (a rate
// limit's key holds a client address or a credential's id).
type RedisHook struct{}

// DialHook leaves dialling untraced.
func (RedisHook) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook traces one command.
func (RedisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if active.Load() == nil {
			return next(ctx, cmd)
		}
		ctx, span := child(ctx, cmd.Name(), trace.SpanKindClient,
			attribute.String("db.system.name", "redis"), attribute.String("db.operation.name", cmd.Name()))
		err := next(ctx, cmd)
		span.End(redisErr(err))
		return err
	}
}

// ProcessPipelineHook traces a pipeline as one span.
func (RedisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if active.Load() == nil {
			return next(ctx, cmds)
		}
		ctx, span := child(ctx, "pipeline", trace.SpanKindClient,
			attribute.String("db.system.name", "redis"), attribute.String("db.operation.name", "pipeline"),
			attribute.Int("db.operation.batch.size", len(cmds)))
		err := next(ctx, cmds)
		span.End(redisErr(err))
		return err
	}
}

// redisErr is err unless it is redis.Nil, a miss rather than a failure.
func redisErr(err error) error {
	if err == redis.Nil {
		return nil
	}
	return err
}

// StartRealtime starts the span of a call into the realtime engine
// (centrifuge), whose Redis client this package cannot hook: op is
// "publish" or "presence". It starts none (nil) when ctx carries no
// recording span.
func StartRealtime(ctx context.Context, op string) (context.Context, *Span) {
	if active.Load() == nil {
		return ctx, nil
	}
	return child(ctx, "realtime "+op, trace.SpanKindClient,
		attribute.String("messaging.system", "centrifuge"), attribute.String("messaging.operation.name", op))
}
