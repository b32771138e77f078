-- +goose Up
-- The W3C traceparent of the span that enqueued a job (a request), so
-- that the job's span joins that trace; NULL when tracing was off.
ALTER TABLE jobs ADD COLUMN traceparent TEXT;

-- +goose Down
ALTER TABLE jobs DROP COLUMN traceparent;
