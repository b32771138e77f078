package guidehttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/idempotency"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
)

// mcpCreateBooking books for the create_booking tool. Its idempotencyKey
// is the REST route's Idempotency-Key: the same account key space, mode
// and fingerprint (the REST body made of the other arguments), so that a
// retry through either door replays the first answer, marked in the
// result's _meta as REST marks it with a header.
func (s *Server) mcpCreateBooking(ctx context.Context, in bookingCreateIn) (*mcp.CallToolResult, data[guide.CreatedBooking], error) {
	var none data[guide.CreatedBooking]
	c := mcpCallerFrom(ctx)
	key := in.IdempotencyKey
	in.IdempotencyKey = "" // not part of the REST body
	req := guide.BookingRequest{ScheduledDate: &in.ScheduledDate, ScheduledEndDate: in.ScheduledEndDate, ExpertID: in.ExpertID,
		PackageID: in.PackageID, Participants: in.Participants, CustomRequest: in.CustomRequest, MeetingLocation: in.MeetingLocation}
	create := func(ctx context.Context) (any, error) { return s.svc.CreateBooking(ctx, c, req) }
	if key == "" {
		b, err := create(ctx)
		if err != nil {
			return nil, none, mcpx.ErrorOf(ctx, err)
		}
		return nil, data[guide.CreatedBooking]{*b.(*guide.CreatedBooking)}, nil
	}
	if err := idempotency.CheckKey(key); err != nil {
		return nil, none, mcpx.ErrorOf(ctx, err)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, none, err
	}
	account, mode := idempotencyScope(c)
	result, stored, _, err := idempotency.Do(ctx, s.cfg.Idempotency, idempotency.Call{
		Account: account, Key: key, Fingerprint: idempotency.Fingerprint(http.MethodPost, "/api/v1/bookings", mode, body),
		Status: http.StatusCreated, Render: renderItem,
		Answer: func(result any, err error) (int, []byte, bool) {
			if err == nil { // committed with the booking; recorded only if it were not
				b, rerr := renderItem(result)
				return http.StatusCreated, b, rerr == nil
			}
			// A server error is not recorded (nor rendered, which logs it).
			var refused *mcpx.CallError
			if apperr.Code(err) == apperr.Internal || !errors.As(mcpx.ErrorOf(ctx, err), &refused) {
				return 0, nil, false
			}
			return refused.Status, refused.Body, refused.Status < 500
		},
	}, create)
	switch {
	case err != nil:
		return nil, none, mcpx.ErrorOf(ctx, err)
	case stored != nil && stored.Status >= 400:
		return nil, none, mcpx.RecordedRefusal(stored.Status, stored.Body)
	case stored != nil:
		var out data[guide.CreatedBooking]
		if err := json.Unmarshal(stored.Body, &out); err != nil {
			return nil, none, err
		}
		return &mcp.CallToolResult{Meta: mcp.Meta{"idempotentReplayed": true}}, out, nil
	}
	return nil, data[guide.CreatedBooking]{*result.(*guide.CreatedBooking)}, nil
}
