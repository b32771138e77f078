package guide

// Weekday keys of a WeeklySchedule, Monday first.
var Weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// WeeklySchedule is an expert's usual working hours in the expert's own time
// zone: weekday key ("mon".."sun") to the intervals worked that day. A day
// with no intervals, or absent, is a day off. Stored and served as JSON:
//
//	{"mon": [{"start": "09:00", "end": "17:00"}], "sat": []}
type WeeklySchedule map[string][]TimeSlot

// TimeSlot is a working interval, "HH:MM" 24-hour local times, start < end.
type TimeSlot struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// BlockedDate is a day the expert does not work despite the schedule.
type BlockedDate struct {
	Date   string  `json:"date"` // YYYY-MM-DD in the expert's time zone
	Reason *string `json:"reason"`
}
