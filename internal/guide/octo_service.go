package guide

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/field"
)

// octoIDErr refuses an id that names nothing sold: field names the id
// in the details, with its value as sent.
func octoIDErr(field, value, msg string) error {
	return &apperr.Error{Code: apperr.NotFound, Message: msg, Details: map[string]any{field: value}}
}

// CheckOctoSeller admits an API key only: resellers sell for the key's
// account, in the key's mode. It returns whether the key is a test key.
// Errors: apperr.Unauthorized, apperr.Forbidden.
func CheckOctoSeller(c *Caller) (test bool, err error) {
	if err := checkCaller(c); err != nil {
		return false, err
	}
	if c.APIKey == nil {
		return false, apperr.Errorf(apperr.Forbidden, "The OCTO endpoint takes an API key with the %s scope.", ScopeOctoSell)
	}
	return c.APIKey.Mode == "test", nil
}

// OctoSupplier is the marketplace as a supplier.
type OctoSupplier struct {
	ID, Name, Endpoint, Website string
	ShortDescription            string
}

// OctoSupplier returns the supplier. Errors: apperr.Unauthorized,
// apperr.Forbidden.
func (s *Service) OctoSupplier(_ context.Context, c *Caller) (*OctoSupplier, error) {
	if _, err := CheckOctoSeller(c); err != nil {
		return nil, err
	}
	return &OctoSupplier{ID: "wayfarer-guides", Name: "Wayfarer guide marketplace", Endpoint: s.PublicURL + "/octo",
		Website: s.PublicURL, ShortDescription: "Tours with verified local guides in China, Japan, Korea, Taiwan and Hong Kong."}, nil
}

// OctoProducts returns every product in locale. Errors:
// apperr.Unauthorized, apperr.Forbidden.
func (s *Service) OctoProducts(ctx context.Context, c *Caller, locale string) ([]OctoProduct, error) {
	if _, err := CheckOctoSeller(c); err != nil {
		return nil, err
	}
	ps, err := s.Octo.FindOctoProducts(ctx, locale, "")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ps, func(p OctoProduct) bool { return len(p.StartTimes()) == 0 }), nil
}

// OctoProduct returns one product in locale. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (productId).
func (s *Service) OctoProduct(ctx context.Context, c *Caller, id, locale string) (*OctoProduct, error) {
	if _, err := CheckOctoSeller(c); err != nil {
		return nil, err
	}
	return s.octoProduct(ctx, &id, locale)
}

// octoProduct finds a sellable product: one with at least one start time
// in the week.
func (s *Service) octoProduct(ctx context.Context, id *string, locale string) (*OctoProduct, error) {
	if id == nil || *id == "" {
		return nil, octoIDErr("productId", "", "The productId is required.")
	}
	if _, err := uuid.Parse(*id); err != nil || len(*id) != 36 {
		return nil, octoIDErr("productId", *id, "The productId was missing or invalid.")
	}
	ps, err := s.Octo.FindOctoProducts(ctx, locale, strings.ToLower(*id))
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 || len(ps[0].StartTimes()) == 0 {
		return nil, octoIDErr("productId", *id, "No product with this productId is for sale.")
	}
	return &ps[0], nil
}

// octoOption checks the option id of a request.
func octoOption(id *string) error {
	if id == nil || *id != OctoOptionID {
		v := ""
		if id != nil {
			v = *id
		}
		return octoIDErr("optionId", v, "The optionId was missing or invalid: every product has the one option "+OctoOptionID+".")
	}
	return nil
}

// Location is the expert's time zone (UTC if it cannot be loaded).
func (p *OctoProduct) Location() *time.Location {
	loc, err := clock.LoadLocation(p.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Duration is how long each start lasts.
func (p *OctoProduct) Duration() time.Duration { return time.Duration(p.Package.Duration) * time.Hour }

// daySlots returns the starts ("HH:MM") of a weekday: on the hour from
// the start of each working interval, each start ending within it; an
// interval shorter than the package holds one start, at its beginning.
func (p *OctoProduct) daySlots(day string) []string {
	var out []string
	for _, sl := range p.Schedule[day] {
		from, err1 := time.Parse("15:04", sl.Start)
		to, err2 := time.Parse("15:04", sl.End)
		if err1 != nil || err2 != nil || !to.After(from) {
			continue
		}
		if to.Sub(from) < p.Duration() {
			out = append(out, sl.Start)
			continue
		}
		for t := from; !t.Add(p.Duration()).After(to); t = t.Add(time.Hour) {
			out = append(out, t.Format("15:04"))
		}
	}
	return out
}

// StartTimes lists the local start times of the week, sorted, each once.
func (p *OctoProduct) StartTimes() []string {
	var out []string
	for _, d := range Weekdays {
		out = append(out, p.daySlots(d)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Starts lists the starts of the local dates from first to last
// (inclusive, midnights in the expert's zone) whose cutoff is after now.
func (p *OctoProduct) Starts(first, last, now time.Time) []OctoStart {
	loc := p.Location()
	blocked := map[string]bool{}
	for _, b := range p.Blocked {
		blocked[b.Date] = true
	}
	var out []OctoStart
	for d := first; !d.After(last); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc) {
		if blocked[d.Format(time.DateOnly)] {
			continue
		}
		for _, hm := range p.daySlots(Weekdays[(int(d.Weekday())+6)%7]) {
			t, _ := time.Parse("15:04", hm)
			start := time.Date(d.Year(), d.Month(), d.Day(), t.Hour(), t.Minute(), 0, 0, loc)
			cutoff := start.Add(-OctoCutoff).UTC()
			if !now.Before(cutoff) {
				continue
			}
			out = append(out, OctoStart{ID: start.Format(time.RFC3339), Start: start, End: start.Add(p.Duration()), CutoffAt: cutoff,
				Available: true, Status: "AVAILABLE", Vacancies: p.Package.MaxParticipants, Capacity: p.Package.MaxParticipants})
		}
	}
	return out
}

// markBusy marks the starts that overlap the expert's taken time.
func markBusy(starts []OctoStart, busy []Interval) {
	for i := range starts {
		span := Interval{starts[i].Start, starts[i].End}
		for _, b := range busy {
			if span.Overlaps(b) {
				starts[i].Available, starts[i].Status, starts[i].Vacancies = false, "SOLD_OUT", 0
				break
			}
		}
	}
}

// withBusy marks starts with the expert's taken time.
func (s *Service) withBusy(ctx context.Context, p *OctoProduct, starts []OctoStart) error {
	if len(starts) == 0 {
		return nil
	}
	busy, err := s.Octo.FindExpertBusy(ctx, p.ExpertID, starts[0].Start, starts[len(starts)-1].End)
	if err != nil {
		return err
	}
	markBusy(starts, busy)
	return nil
}

// OctoAvailabilityRequest is the body of an availability check or
// calendar, as sent.
type OctoAvailabilityRequest struct {
	ProductID       *string          `json:"productId"`
	OptionID        *string          `json:"optionId"`
	LocalDate       *string          `json:"localDate"`
	LocalDateStart  *string          `json:"localDateStart"`
	LocalDateEnd    *string          `json:"localDateEnd"`
	AvailabilityIDs *[]string        `json:"availabilityIds"`
	Units           []OctoUnitAmount `json:"units"`
	Currency        *string          `json:"currency"`
}

// OctoUnitAmount is a unit and a quantity of an availability request.
type OctoUnitAmount struct {
	ID       *string `json:"id"`
	Quantity *int    `json:"quantity"`
}

// checkAvailability checks the product, option and units of an
// availability request and returns the product.
func (s *Service) checkAvailability(ctx context.Context, c *Caller, in *OctoAvailabilityRequest) (*OctoProduct, error) {
	if _, err := CheckOctoSeller(c); err != nil {
		return nil, err
	}
	p, err := s.octoProduct(ctx, in.ProductID, DefaultLocale)
	if err != nil {
		return nil, err
	}
	if err := octoOption(in.OptionID); err != nil {
		return nil, err
	}
	for _, u := range in.Units {
		if u.ID == nil || *u.ID != OctoUnitID {
			v := ""
			if u.ID != nil {
				v = *u.ID
			}
			return nil, octoIDErr("unitId", v, "The unit id was missing or invalid: every product has the one unit "+OctoUnitID+".")
		}
		if u.Quantity == nil || *u.Quantity < 0 {
			return nil, apperr.Errorf(apperr.Validation, "Each unit needs a quantity of 0 or more.")
		}
	}
	return p, nil
}

// localDates reads a date range YYYY-MM-DD to YYYY-MM-DD (inclusive) of at
// most maxDays days, as midnights in loc.
func localDates(from, to string, maxDays int, loc *time.Location) (time.Time, time.Time, error) {
	a, err1 := time.ParseInLocation(time.DateOnly, from, loc)
	b, err2 := time.ParseInLocation(time.DateOnly, to, loc)
	if err1 != nil || err2 != nil {
		return a, b, apperr.Errorf(apperr.Validation, "localDateStart and localDateEnd must be dates YYYY-MM-DD.")
	}
	if b.Before(a) {
		return a, b, apperr.Errorf(apperr.Validation, "localDateEnd must not be before localDateStart.")
	}
	if days := int(b.Sub(a).Hours()/24+0.5) + 1; days > maxDays {
		return a, b, apperr.Errorf(apperr.Validation, "At most %d days can be asked at once.", maxDays)
	}
	return a, b, nil
}

// OctoAvailability lists the starts of a product: of one local date
// (localDate), of a range of dates (localDateStart and localDateEnd) or
// the starts named (availabilityIds), exactly one of the three. A start
// past its cutoff is not listed; one the expert is taken at is SOLD_OUT.
// Errors: apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (details
// name the productId, optionId or unitId), apperr.Validation.
func (s *Service) OctoAvailability(ctx context.Context, c *Caller, in OctoAvailabilityRequest) ([]OctoStart, *OctoProduct, error) {
	p, err := s.checkAvailability(ctx, c, &in)
	if err != nil {
		return nil, nil, err
	}
	loc, now := p.Location(), s.Clock.Now()
	ranged := in.LocalDateStart != nil || in.LocalDateEnd != nil
	asked := 0
	for _, b := range []bool{in.LocalDate != nil, ranged, in.AvailabilityIDs != nil} {
		if b {
			asked++
		}
	}
	if asked != 1 {
		return nil, nil, apperr.Errorf(apperr.Validation, "Send exactly one of localDate, localDateStart with localDateEnd, or availabilityIds.")
	}
	var first, last time.Time
	var ids map[string]bool
	switch {
	case in.LocalDate != nil:
		first, last, err = localDates(*in.LocalDate, *in.LocalDate, 1, loc)
	case ranged:
		if in.LocalDateStart == nil || in.LocalDateEnd == nil {
			return nil, nil, apperr.Errorf(apperr.Validation, "localDateStart and localDateEnd go together.")
		}
		first, last, err = localDates(*in.LocalDateStart, *in.LocalDateEnd, OctoMaxCheckDays, loc)
	default:
		if len(*in.AvailabilityIDs) == 0 || len(*in.AvailabilityIDs) > OctoMaxAvailabilityIDs {
			return nil, nil, apperr.Errorf(apperr.Validation, "availabilityIds must name 1 to %d starts.", OctoMaxAvailabilityIDs)
		}
		ids = map[string]bool{}
		for _, id := range *in.AvailabilityIDs {
			t, perr := time.Parse(time.RFC3339, id)
			if perr != nil {
				return nil, nil, octoIDErr("availabilityId", id, "The availabilityId was missing or invalid.")
			}
			day := t.In(loc)
			day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
			if first.IsZero() || day.Before(first) {
				first = day
			}
			if day.After(last) {
				last = day
			}
			ids[t.In(loc).Format(time.RFC3339)] = true
		}
		if last.Sub(first) > OctoMaxCalendarDays*24*time.Hour {
			return nil, nil, apperr.Errorf(apperr.Validation, "availabilityIds must lie within %d days.", OctoMaxCalendarDays)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	starts := p.Starts(first, last, now)
	if ids != nil {
		starts = slices.DeleteFunc(starts, func(st OctoStart) bool { return !ids[st.ID] })
	}
	if err := s.withBusy(ctx, p, starts); err != nil {
		return nil, nil, err
	}
	return starts, p, nil
}

// OctoCalendar summarises a product's starts per local date from
// localDateStart to localDateEnd: AVAILABLE while one start is free,
// SOLD_OUT when the expert is taken at every start, CLOSED without a start
// (a day off, a blocked date, or past the cutoff). Errors: those of
// OctoAvailability.
func (s *Service) OctoCalendar(ctx context.Context, c *Caller, in OctoAvailabilityRequest) ([]OctoDay, error) {
	p, err := s.checkAvailability(ctx, c, &in)
	if err != nil {
		return nil, err
	}
	if in.LocalDateStart == nil || in.LocalDateEnd == nil {
		return nil, apperr.Errorf(apperr.Validation, "localDateStart and localDateEnd are required.")
	}
	loc := p.Location()
	first, last, err := localDates(*in.LocalDateStart, *in.LocalDateEnd, OctoMaxCalendarDays, loc)
	if err != nil {
		return nil, err
	}
	starts := p.Starts(first, last, s.Clock.Now())
	if err := s.withBusy(ctx, p, starts); err != nil {
		return nil, err
	}
	var days []OctoDay
	i := 0
	for d := first; !d.After(last); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc) {
		day := OctoDay{Date: d.Format(time.DateOnly), Status: "CLOSED"}
		date := day.Date
		for ; i < len(starts) && starts[i].Start.Format(time.DateOnly) == date; i++ {
			day.Capacity = p.Package.MaxParticipants
			if starts[i].Available {
				day.Available, day.Status, day.Vacancies = true, "AVAILABLE", p.Package.MaxParticipants
			} else if !day.Available {
				day.Status = "SOLD_OUT"
			}
		}
		days = append(days, day)
	}
	return days, nil
}

// OctoContactRequest is a contact as sent.
type OctoContactRequest struct {
	FullName       *string  `json:"fullName"`
	FirstName      *string  `json:"firstName"`
	LastName       *string  `json:"lastName"`
	EmailAddress   *string  `json:"emailAddress"`
	PhoneNumber    *string  `json:"phoneNumber"`
	Locales        []string `json:"locales"`
	PostalCode     *string  `json:"postalCode"`
	Country        *string  `json:"country"`
	Notes          *string  `json:"notes"`
	AllowMarketing *bool    `json:"allowMarketing"`
}

// OctoUnitItemRequest is a unit item as sent.
type OctoUnitItemRequest struct {
	UUID              *string             `json:"uuid"`
	UnitID            *string             `json:"unitId"`
	ResellerReference *string             `json:"resellerReference"`
	Contact           *OctoContactRequest `json:"contact"`
}

// checkContact checks a contact's text; nil is the empty contact.
func checkContact(errs apperr.FieldErrors, at string, in *OctoContactRequest) OctoContact {
	out := OctoContact{Locales: []string{}}
	if in == nil {
		return out
	}
	text := func(name string, v *string, maxLen int) *string {
		if v == nil {
			return nil
		}
		t := field.CheckString(errs, at+"."+name, v, false, 0, maxLen)
		return &t
	}
	out.FullName, out.FirstName, out.LastName = text("fullName", in.FullName, 200), text("firstName", in.FirstName, 100), text("lastName", in.LastName, 100)
	out.EmailAddress, out.PhoneNumber = text("emailAddress", in.EmailAddress, 254), text("phoneNumber", in.PhoneNumber, 50)
	out.PostalCode, out.Country, out.Notes = text("postalCode", in.PostalCode, 20), text("country", in.Country, 60), text("notes", in.Notes, 2000)
	if len(in.Locales) > 10 {
		errs.Add(at+".locales", "at most 10 locales")
	}
	for i, l := range in.Locales {
		out.Locales = append(out.Locales, field.CheckString(errs, fmt.Sprintf("%s.locales[%d]", at, i), &l, true, 1, 35))
	}
	return out
}

// checkUnitItems checks the unit items of a booking of p: at least one, at
// most the package's participants, each of the one unit.
func checkUnitItems(p *OctoProduct, in *[]OctoUnitItemRequest, errs apperr.FieldErrors) ([]OctoUnitItem, error) {
	if in == nil || len(*in) == 0 {
		return nil, apperr.Errorf(apperr.InvalidState, "unitItems must hold one item per person, at least one.")
	}
	if len(*in) > p.Package.MaxParticipants {
		return nil, apperr.Errorf(apperr.InvalidState, "This product takes at most %d people a booking.", p.Package.MaxParticipants)
	}
	out := make([]OctoUnitItem, 0, len(*in))
	for i, u := range *in {
		if u.UnitID == nil || *u.UnitID != OctoUnitID {
			v := ""
			if u.UnitID != nil {
				v = *u.UnitID
			}
			return nil, octoIDErr("unitId", v, "The unitId was missing or invalid: every product has the one unit "+OctoUnitID+".")
		}
		at := fmt.Sprintf("unitItems[%d]", i)
		item := OctoUnitItem{UUID: uuid.NewString(), UnitID: OctoUnitID, Contact: checkContact(errs, at+".contact", u.Contact)}
		if u.UUID != nil {
			id, err := uuid.Parse(*u.UUID)
			if err != nil {
				errs.Add(at+".uuid", "must be a UUID")
			}
			item.UUID = id.String()
		}
		if u.ResellerReference != nil {
			ref := field.CheckString(errs, at+".resellerReference", u.ResellerReference, false, 0, 100)
			item.ResellerReference = &ref
		}
		out = append(out, item)
	}
	return out, nil
}

// octoStart finds the start availabilityID names among p's starts that are
// still sold. Errors: apperr.NotFound (availabilityId).
func (s *Service) octoStart(p *OctoProduct, availabilityID *string) (OctoStart, error) {
	if availabilityID == nil {
		return OctoStart{}, octoIDErr("availabilityId", "", "The availabilityId is required: every product is sold by start time.")
	}
	t, err := time.Parse(time.RFC3339, *availabilityID)
	if err == nil {
		loc := p.Location()
		local := t.In(loc)
		day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
		for _, st := range p.Starts(day, day, s.Clock.Now()) {
			if st.Start.Equal(t) {
				return st, nil
			}
		}
	}
	return OctoStart{}, octoIDErr("availabilityId", *availabilityID,
		"The availabilityId was missing or invalid: it names no start of this product that is still sold.")
}

// holdMinutes checks expirationMinutes.
func holdMinutes(v *int) (int, error) {
	if v == nil {
		return OctoHoldMinutes, nil
	}
	if *v < 1 || *v > OctoMaxHoldMinutes {
		return 0, apperr.Errorf(apperr.Validation, "expirationMinutes must be from 1 to %d.", OctoMaxHoldMinutes)
	}
	return *v, nil
}

// OctoReservationRequest is a reserve, as sent.
type OctoReservationRequest struct {
	UUID              *string                `json:"uuid"`
	ProductID         *string                `json:"productId"`
	OptionID          *string                `json:"optionId"`
	AvailabilityID    *string                `json:"availabilityId"`
	ExpirationMinutes *int                   `json:"expirationMinutes"`
	Notes             *string                `json:"notes"`
	UnitItems         *[]OctoUnitItemRequest `json:"unitItems"`
	ResellerReference *string                `json:"resellerReference"`
	Contact           *OctoContactRequest    `json:"contact"`
	Currency          *string                `json:"currency"`
}

// OctoOnce runs place at most once for the caller's Idempotency-Key key
// and the request's fingerprint, as the door keeps its keys: a retry of
// the same request answers the hold the first placed, as it is now; a
// refusal is not kept, so that a retry may succeed. Errors: those of
// place, apperr.IdempotencyKeyReused (the key was sent with another
// request), apperr.IdempotencyInProgress.
type OctoOnce func(ctx context.Context, key, fingerprint string, place func(ctx context.Context) (*OctoBooking, error)) (*OctoBooking, error)

// OctoReserve holds a start of a product for the caller until
// expirationMinutes (OctoHoldMinutes by default) have passed. The same
// request sent again with the same resellerReference or uuid answers the
// same hold, and so does one with the same Idempotency-Key (idempotencyKey,
// "" when none), through once. A test key's hold takes no time. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (details name the
// productId, optionId, availabilityId or unitId), apperr.Conflict (the
// expert is taken at that time, or the uuid, named in the details, was
// used for another booking), apperr.InvalidState (no unit items, too
// many, the expert's own time), apperr.Validation (an Idempotency-Key
// used with another request too), apperr.IdempotencyInProgress.
func (s *Service) OctoReserve(ctx context.Context, c *Caller, in OctoReservationRequest, idempotencyKey string, once OctoOnce) (*OctoBooking, error) {
	test, err := CheckOctoSeller(c)
	if err != nil {
		return nil, err
	}
	p, err := s.octoProduct(ctx, in.ProductID, DefaultLocale)
	if err != nil {
		return nil, err
	}
	if err := octoOption(in.OptionID); err != nil {
		return nil, err
	}
	st, err := s.octoStart(p, in.AvailabilityID)
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	items, err := checkUnitItems(p, in.UnitItems, errs)
	if err != nil {
		return nil, err
	}
	minutes, err := holdMinutes(in.ExpirationMinutes)
	if err != nil {
		return nil, err
	}
	h := OctoHold{UUID: uuid.NewString(), UserID: c.User.ID, TestMode: test, Product: p, AvailabilityID: st.ID,
		Start: st.Start.UTC(), End: st.End.UTC(), UnitItems: items, Contact: checkContact(errs, "contact", in.Contact),
		ExpiresAt: s.Clock.Now().UTC().Add(time.Duration(minutes) * time.Minute).Truncate(time.Second)}
	if in.UUID != nil {
		id, err := uuid.Parse(*in.UUID)
		if err != nil {
			return nil, apperr.Errorf(apperr.Validation, "uuid must be a UUID.")
		}
		h.UUID = id.String()
	}
	if in.ResellerReference != nil {
		ref := field.CheckString(errs, "resellerReference", in.ResellerReference, true, 1, 100)
		h.ResellerReference = &ref
	}
	if idempotencyKey != "" {
		idempotencyKey = field.CheckString(errs, "Idempotency-Key", &idempotencyKey, true, 1, 255)
	}
	if in.Notes != nil {
		n := field.CheckString(errs, "notes", in.Notes, false, 0, 2000)
		h.Notes = &n
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if p.ExpertUserID == c.User.ID {
		return nil, apperr.Errorf(apperr.InvalidState, "An expert cannot sell their own time to themselves.")
	}
	units := make([]*string, len(items))
	for i := range items {
		units[i] = items[i].ResellerReference
	}
	sum, _ := json.Marshal(map[string]any{"productId": p.Package.ID, "availabilityId": st.ID, "uuid": in.UUID, "units": units,
		"notes": h.Notes, "contact": h.Contact, "expirationMinutes": minutes})
	digest := sha256.Sum256(sum)
	h.RequestHash = hex.EncodeToString(digest[:])
	place := func(ctx context.Context) (*OctoBooking, error) {
		b, err := s.Octo.Reserve(ctx, h)
		switch apperr.Code(err) {
		case apperr.Conflict:
			return nil, apperr.Errorf(apperr.Conflict, "The start is sold out: the expert is booked or held at an overlapping time.")
		case apperr.Validation:
			id := h.UUID
			if in.UUID != nil { // named as sent
				id = *in.UUID
			}
			return nil, &apperr.Error{Code: apperr.Conflict, Message: "The uuid was already used for another booking.", Details: map[string]any{"uuid": id}}
		}
		return b, err
	}
	var b *OctoBooking
	if idempotencyKey == "" {
		b, err = place(ctx)
	} else {
		// The mode is part of the request: a key sent again with the other
		// mode's key is another request.
		b, err = once(ctx, idempotencyKey, fmt.Sprintf("octo reserve\n%t\n%s", test, h.RequestHash), place)
	}
	if apperr.Code(err) == apperr.IdempotencyKeyReused {
		return nil, apperr.Errorf(apperr.Validation, "The Idempotency-Key was already used with another request.")
	}
	if err != nil {
		return nil, err
	}
	return s.octoView(b), nil
}

// octoView sets what a booking's status depends on the time: a hold past
// its expiry is EXPIRED, and whether it can still be cancelled.
func (s *Service) octoView(b *OctoBooking) *OctoBooking {
	now := s.Clock.Now()
	if b.Status == OctoOnHold && b.ExpiresAt != nil && !now.Before(*b.ExpiresAt) {
		b.Status = OctoExpired
	}
	b.Cancellable = b.Status == OctoOnHold || (b.Status == OctoPending || b.Status == OctoConfirmed) && now.Before(b.Start)
	return b
}

// octoLookup maps the errors of a booking's lookup or change: an unknown
// uuid is apperr.NotFound naming the uuid, a start taken meanwhile
// apperr.Conflict; apperr.InvalidState passes as it is.
func (s *Service) octoLookup(id string, b *OctoBooking, err error) (*OctoBooking, error) {
	switch apperr.Code(err) {
	case apperr.NotFound:
		return nil, octoIDErr("uuid", id, "The uuid names no booking of yours.")
	case apperr.Conflict:
		return nil, apperr.Errorf(apperr.Conflict, "The start is sold out: the expert is booked or held at an overlapping time.")
	}
	if err != nil {
		return nil, err
	}
	return s.octoView(b), nil
}

// checkUUID reads a booking uuid from the path.
func checkUUID(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", octoIDErr("uuid", id, "The uuid was missing or invalid.")
	}
	return u.String(), nil
}

// checkOctoBooking checks the caller, as checkOcto, and then the booking
// uuid of the path, as checkUUID.
func checkOctoBooking(c *Caller, id string) (test bool, u string, err error) {
	if test, err = CheckOctoSeller(c); err != nil {
		return false, "", err
	}
	if u, err = checkUUID(id); err != nil {
		return false, "", err
	}
	return test, u, nil
}

// OctoBooking returns a booking of the caller's. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (uuid).
func (s *Service) OctoBooking(ctx context.Context, c *Caller, id string) (*OctoBooking, error) {
	test, u, err := checkOctoBooking(c, id)
	if err != nil {
		return nil, err
	}
	b, err := s.Octo.FindOctoBooking(ctx, c.User.ID, test, u)
	return s.octoLookup(id, b, err)
}

// OctoBookings lists the caller's bookings with a reseller reference or
// a supplier reference; one of them is required. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.Validation.
func (s *Service) OctoBookings(ctx context.Context, c *Caller, resellerRef, supplierRef string) ([]OctoBooking, error) {
	test, err := CheckOctoSeller(c)
	if err != nil {
		return nil, err
	}
	if resellerRef == "" && supplierRef == "" {
		return nil, apperr.Errorf(apperr.Validation, "Send resellerReference or supplierReference: bookings are not listed unfiltered.")
	}
	if len(resellerRef) > 100 || len(supplierRef) > 100 {
		return nil, apperr.Errorf(apperr.Validation, "A reference has at most 100 characters.")
	}
	bs, err := s.Octo.FindOctoBookings(ctx, c.User.ID, test, resellerRef, supplierRef)
	if err != nil {
		return nil, err
	}
	for i := range bs {
		s.octoView(&bs[i])
	}
	return bs, nil
}

// OctoConfirmationRequest is a confirm, as sent.
type OctoConfirmationRequest struct {
	ResellerReference *string                `json:"resellerReference"`
	Contact           *OctoContactRequest    `json:"contact"`
	UnitItems         *[]OctoUnitItemRequest `json:"unitItems"`
	EmailReceipt      *bool                  `json:"emailReceipt"`
}

// OctoConfirm turns a live hold into a marketplace booking for the expert
// to accept (PENDING; a test key's stays PENDING and reaches no expert).
// A booking confirmed already is answered as it is. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (details name
// the uuid or unitId), apperr.InvalidState (an expired or cancelled hold,
// a product no longer sold), apperr.Conflict, apperr.Validation.
func (s *Service) OctoConfirm(ctx context.Context, c *Caller, id string, in OctoConfirmationRequest) (*OctoBooking, error) {
	test, u, err := checkOctoBooking(c, id)
	if err != nil {
		return nil, err
	}
	if in.Contact == nil {
		return nil, apperr.Errorf(apperr.Validation, "contact is required.")
	}
	errs := apperr.FieldErrors{}
	contact := checkContact(errs, "contact", in.Contact)
	ch := OctoChange{Confirm: true, Contact: &contact}
	if in.ResellerReference != nil {
		ref := field.CheckString(errs, "resellerReference", in.ResellerReference, true, 1, 100)
		ch.ResellerReference = &ref
	}
	if in.UnitItems != nil {
		cur, err := s.Octo.FindOctoBooking(ctx, c.User.ID, test, u)
		if err != nil {
			return s.octoLookup(id, nil, err)
		}
		p, err := s.octoProduct(ctx, &cur.ProductID, DefaultLocale)
		if err != nil {
			return nil, apperr.Errorf(apperr.InvalidState, "The product of this booking is no longer sold.")
		}
		if ch.UnitItems, err = checkUnitItems(p, in.UnitItems, errs); err != nil {
			return nil, err
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	b, err := s.Octo.ChangeOcto(ctx, c.User.ID, test, u, ch)
	return s.octoLookup(id, b, err)
}

// OctoExtendRequest is an extend, as sent.
type OctoExtendRequest struct {
	ExpirationMinutes *int `json:"expirationMinutes"`
}

// OctoExtend keeps a live hold expirationMinutes longer (OctoHoldMinutes
// by default), up to OctoMaxHoldMinutes from now. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (uuid),
// apperr.InvalidState (not a live hold), apperr.Validation.
func (s *Service) OctoExtend(ctx context.Context, c *Caller, id string, in OctoExtendRequest) (*OctoBooking, error) {
	test, u, err := checkOctoBooking(c, id)
	if err != nil {
		return nil, err
	}
	minutes, err := holdMinutes(in.ExpirationMinutes)
	if err != nil {
		return nil, err
	}
	cur, err := s.Octo.FindOctoBooking(ctx, c.User.ID, test, u)
	if err != nil {
		return s.octoLookup(id, nil, err)
	}
	now := s.Clock.Now().UTC()
	if s.octoView(cur).Status != OctoOnHold {
		return nil, apperr.Errorf(apperr.InvalidState, "Only a booking ON_HOLD can be extended; this one is %s.", cur.Status)
	}
	exp := cur.ExpiresAt.Add(time.Duration(minutes) * time.Minute)
	if limit := now.Add(OctoMaxHoldMinutes * time.Minute).Truncate(time.Second); exp.After(limit) {
		exp = limit
	}
	b, err := s.Octo.ChangeOcto(ctx, c.User.ID, test, u, OctoChange{ExpiresAt: &exp})
	return s.octoLookup(id, b, err)
}

// OctoUpdateRequest is an update (PATCH), as sent.
type OctoUpdateRequest struct {
	ResellerReference *string                `json:"resellerReference"`
	ProductID         *string                `json:"productId"`
	OptionID          *string                `json:"optionId"`
	AvailabilityID    *string                `json:"availabilityId"`
	ExpirationMinutes *int                   `json:"expirationMinutes"`
	Notes             *string                `json:"notes"`
	EmailReceipt      *bool                  `json:"emailReceipt"`
	UnitItems         *[]OctoUnitItemRequest `json:"unitItems"`
	Contact           *OctoContactRequest    `json:"contact"`
}

// OctoUpdate changes a booking: its reference, contact, notes and unit
// items always; its product, option, start and expiry only while it is a
// live hold (a booking moves by a cancel and a new booking). A new start
// must be free. Errors: apperr.Unauthorized, apperr.Forbidden,
// apperr.NotFound (details name the uuid, productId, optionId,
// availabilityId or unitId), apperr.InvalidState, apperr.Conflict,
// apperr.Validation.
func (s *Service) OctoUpdate(ctx context.Context, c *Caller, id string, in OctoUpdateRequest) (*OctoBooking, error) {
	test, u, err := checkOctoBooking(c, id)
	if err != nil {
		return nil, err
	}
	cur, err := s.Octo.FindOctoBooking(ctx, c.User.ID, test, u)
	if err != nil {
		return s.octoLookup(id, nil, err)
	}
	s.octoView(cur)
	errs := apperr.FieldErrors{}
	var ch OctoChange
	if in.ResellerReference != nil {
		ref := field.CheckString(errs, "resellerReference", in.ResellerReference, true, 1, 100)
		ch.ResellerReference = &ref
	}
	if in.Contact != nil {
		ct := checkContact(errs, "contact", in.Contact)
		ch.Contact = &ct
	}
	if in.Notes != nil {
		n := field.CheckString(errs, "notes", in.Notes, false, 0, 2000)
		ch.Notes, ch.NotesSet = &n, true
	}
	moves := in.ProductID != nil || in.OptionID != nil || in.AvailabilityID != nil
	if (moves || in.ExpirationMinutes != nil) && cur.Status != OctoOnHold {
		return nil, apperr.Errorf(apperr.InvalidState, "Only a booking ON_HOLD changes its product, start or expiry; this one is %s. Cancel it and book again.", cur.Status)
	}
	productID := cur.ProductID
	if in.ProductID != nil {
		productID = *in.ProductID
	}
	p, err := s.octoProduct(ctx, &productID, DefaultLocale)
	if err != nil {
		return nil, err
	}
	if in.OptionID != nil {
		if err := octoOption(in.OptionID); err != nil {
			return nil, err
		}
	}
	if in.UnitItems != nil {
		if ch.UnitItems, err = checkUnitItems(p, in.UnitItems, errs); err != nil {
			return nil, err
		}
	}
	if in.ExpirationMinutes != nil {
		minutes, err := holdMinutes(in.ExpirationMinutes)
		if err != nil {
			return nil, err
		}
		exp := s.Clock.Now().UTC().Add(time.Duration(minutes) * time.Minute).Truncate(time.Second)
		ch.ExpiresAt = &exp
	}
	if moves {
		avail := cur.AvailabilityID
		if in.AvailabilityID != nil {
			avail = *in.AvailabilityID
		}
		st, err := s.octoStart(p, &avail)
		if err != nil {
			return nil, err
		}
		items := ch.UnitItems
		if items == nil {
			items = cur.UnitItems
		}
		if len(items) > p.Package.MaxParticipants {
			return nil, apperr.Errorf(apperr.InvalidState, "This product takes at most %d people a booking.", p.Package.MaxParticipants)
		}
		ch.Move = &OctoHold{UUID: u, UserID: c.User.ID, TestMode: test, Product: p, AvailabilityID: st.ID, Start: st.Start.UTC(), End: st.End.UTC()}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	b, err := s.Octo.ChangeOcto(ctx, c.User.ID, test, u, ch)
	return s.octoLookup(id, b, err)
}

// OctoCancellationRequest is a cancel, as sent.
type OctoCancellationRequest struct {
	Reason *string `json:"reason"`
	Force  *bool   `json:"force"`
}

// OctoCancel cancels a hold, or a booking before its start: the
// marketplace booking too, which the expert learns of. Nothing is charged
// through the marketplace, so the refund is FULL. Errors:
// apperr.Unauthorized, apperr.Forbidden, apperr.NotFound (uuid),
// apperr.InvalidState (cancelled already, started, past).
func (s *Service) OctoCancel(ctx context.Context, c *Caller, id string, in OctoCancellationRequest) (*OctoBooking, error) {
	test, u, err := checkOctoBooking(c, id)
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var reason *string
	if in.Reason != nil {
		r := field.CheckString(errs, "reason", in.Reason, false, 0, 500)
		reason = &r
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	b, err := s.Octo.CancelOcto(ctx, c.User.ID, test, u, reason)
	return s.octoLookup(id, b, err)
}
