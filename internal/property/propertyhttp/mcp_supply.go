package propertyhttp

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wayfarer-asia/platform/internal/platform/mcpx"
	"github.com/wayfarer-asia/platform/internal/property"
)

// The supply-side MCP tools: a host's agent pushes its calendar. It calls the
// service operation of PATCH /api/v1/properties/{id}/calendar.

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
		property.ScopeCalendarWrite, func(ctx context.Context, _ *mcp.CallToolRequest, in calendarIn) (*mcp.CallToolResult, *property.CalendarResult, error) {
			return mcpx.Idempotent(ctx, s.mcpWrite(ctx, mcpx.Write{Key: in.IdempotencyKey, Method: http.MethodPatch,
				Path: "/api/v1/properties/" + in.PropertyID + "/calendar", Body: map[string]any{"updates": in.Updates}, Status: http.StatusOK}),
				func(ctx context.Context) (*property.CalendarResult, error) {
					return s.svc.UpdateCalendar(ctx, mcpCaller(ctx), in.PropertyID, calendarFields(in.Updates))
				})
		})
}

// calendarFields are the updates of a tool call as the REST body sends
// them.
func calendarFields(in []calendarUpdateIn) property.CalendarFields {
	if in == nil {
		return property.CalendarFields{}
	}
	updates := make([]property.CalendarUpdateFields, len(in))
	for i, u := range in {
		cu := property.CalendarUpdateFields{RoomTypeID: &u.RoomTypeID, From: &u.From, To: &u.To, Units: u.Units,
			MinStay: u.MinStay, Closed: u.Closed, ClosedToArrival: u.ClosedToArrival, ClosedToDeparture: u.ClosedToDeparture}
		if u.DaysOfWeek != nil {
			cu.DaysOfWeek = &u.DaysOfWeek
		}
		if u.Price != nil {
			cu.Price = &property.MoneyFields{Amount: &u.Price.Amount}
			if u.Price.Currency != "" {
				cu.Price.Currency = &u.Price.Currency
			}
		}
		updates[i] = cu
	}
	return property.CalendarFields{Updates: &updates}
}
