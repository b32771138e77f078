package propertyhttp

import (
	"context"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The supply-side MCP tools: a host's agent pushes its calendar. Like the
// other tools, each runs the REST handler (PATCH /api/v1/properties/{id}/calendar).

type calendarPriceIn struct {
	Amount   int64  `json:"amount" jsonschema:"nightly price in minor units of the property's currency"`
	Currency string `json:"currency,omitempty" jsonschema:"ISO 4217 code; must be the property's currency when given"`
}

type calendarUpdateIn struct {
	RoomTypeID        string           `json:"roomTypeId" jsonschema:"the room type (UUID)"`
	From              string           `json:"from" jsonschema:"first night YYYY-MM-DD"`
	To                string           `json:"to" jsonschema:"the day after the last night YYYY-MM-DD"`
	DaysOfWeek        []string         `json:"daysOfWeek,omitempty" jsonschema:"only these weekdays (mon to sun); every day when left out"`
	Units             *int             `json:"units,omitempty" jsonschema:"units on sale per night"`
	Price             *calendarPriceIn `json:"price,omitempty" jsonschema:"nightly price"`
	MinStay           *int             `json:"minStay,omitempty" jsonschema:"fewest nights of a stay arriving that night"`
	Closed            *bool            `json:"closed,omitempty" jsonschema:"closed for sale"`
	ClosedToArrival   *bool            `json:"closedToArrival,omitempty" jsonschema:"no arrivals that night"`
	ClosedToDeparture *bool            `json:"closedToDeparture,omitempty" jsonschema:"no departures that day"`
}

type calendarIn struct {
	PropertyID     string             `json:"propertyId" jsonschema:"the property of this key's account (UUID)"`
	Updates        []calendarUpdateIn `json:"updates" jsonschema:"the changes, applied in order (a later one wins)"`
	IdempotencyKey string             `json:"idempotencyKey,omitempty" jsonschema:"a unique string such as a UUID: a retry with the same key and arguments returns the first answer (kept 24 hours)"`
}

func (s *Server) mcpSupplyTools(d *mcpx.Door) {
	mcpx.AddTool(d, &mcp.Tool{Name: "update_calendar", Title: "Update a calendar", Annotations: mcpx.Sets,
		Description: "Set units, nightly price and restrictions of a room type over date ranges (optionally on some weekdays only) " +
			"for a property of this key's account. Units cannot fall below those already sold or held."},
		property.ScopeCalendarWrite, func(ctx context.Context, req *mcp.CallToolRequest, in calendarIn) (*mcp.CallToolResult, *property.CalendarResult, error) {
			body := map[string]any{"updates": in.Updates}
			return mcpx.Send[*property.CalendarResult](ctx, d, req, mcpx.Request{Method: http.MethodPatch,
				Path: "/api/v1/properties/" + url.PathEscape(in.PropertyID) + "/calendar", Body: body, IdempotencyKey: in.IdempotencyKey})
		})
}
