package guidehttp

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
)

// mcpCreateBooking books for the create_booking tool. Its idempotencyKey
// is the REST route's Idempotency-Key: the same account key space, mode
// and fingerprint (the REST body made of the other arguments), so that a
// retry through either door replays the first answer.
func (s *Server) mcpCreateBooking(ctx context.Context, in bookingCreateIn) (*mcp.CallToolResult, data[guide.CreatedBooking], error) {
	c := mcpCallerFrom(ctx)
	key := in.IdempotencyKey
	in.IdempotencyKey = "" // not part of the REST body
	req := guide.BookingRequest{ScheduledDate: &in.ScheduledDate, ScheduledEndDate: in.ScheduledEndDate, ExpertID: in.ExpertID,
		PackageID: in.PackageID, Participants: in.Participants, CustomRequest: in.CustomRequest, MeetingLocation: in.MeetingLocation}
	account, mode := idempotencyScope(c)
	w := mcpx.Write{Store: s.cfg.Idempotency, Key: key, Account: account, Mode: mode,
		Method: http.MethodPost, Path: "/api/v1/bookings", Body: in, Status: http.StatusCreated, Render: renderItem}
	return mcpx.Idempotent(ctx, w, func(ctx context.Context) (data[guide.CreatedBooking], error) {
		b, err := s.svc.CreateBooking(ctx, c, req)
		if err != nil {
			return data[guide.CreatedBooking]{}, err
		}
		return data[guide.CreatedBooking]{*b}, nil
	})
}
