package guide

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

// The experts' supply side: their packages and availability. Only the
// person writes them (no API key scope does).

var (
	validClock    = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
	validCategory = regexp.MustCompile(`^[a-z][a-z0-9_]{1,49}$`)
	validCurrency = regexp.MustCompile(`^[A-Z]{3}$`)
)

// maxBlockedDates bounds the blocked dates of an expert.
const maxBlockedDates = 366

// maxDaySlots bounds the working intervals of a weekday.
const maxDaySlots = 12

// AvailabilityUpdate is an expert's new availability, as sent: every
// field is required, and replaces what was there.
type AvailabilityUpdate struct {
	WeeklySchedule *map[string][]SentSlot `json:"weeklySchedule"`
	BlockedDates   *[]SentBlockedDate     `json:"blockedDates"`
	Timezone       *string                `json:"timezone"`
}

// SentSlot is a working interval as sent (TimeSlot once checked).
type SentSlot struct {
	Start *string `json:"start"`
	End   *string `json:"end"`
}

// SentBlockedDate is a blocked date as sent (BlockedDate once checked).
type SentBlockedDate struct {
	Date   *string `json:"date"`
	Reason *string `json:"reason"`
}

// UpdateAvailability replaces the caller's weekly schedule, blocked dates
// and time zone. The time zone is an IANA zone ("Asia/Tokyo"); each
// weekday has at most maxDaySlots intervals "HH:MM"–"HH:MM", each ending
// after it starts, none overlapping another; blocked dates are distinct
// days YYYY-MM-DD, none before today in the expert's time zone. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key), apperr.Validation,
// apperr.NotFound (not an expert).
func (s *Service) UpdateAvailability(ctx context.Context, c *Caller, in AvailabilityUpdate) (*Availability, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var loc *time.Location
	if in.Timezone == nil {
		errs.Add("timezone", "is required")
	} else if l, err := clock.LoadLocation(*in.Timezone); err != nil || len(*in.Timezone) > 64 || !strings.Contains(*in.Timezone, "/") {
		errs.Add("timezone", "must be an IANA time zone such as Asia/Tokyo")
	} else {
		loc = l
	}
	schedule := WeeklySchedule{}
	if in.WeeklySchedule == nil {
		errs.Add("weeklySchedule", "is required")
	} else {
		for day, slots := range *in.WeeklySchedule {
			if out, ok := checkDay(errs, day, slots); ok {
				schedule[day] = out
			}
		}
	}
	blocked := []BlockedDate{}
	if in.BlockedDates == nil {
		errs.Add("blockedDates", "is required")
	} else if len(*in.BlockedDates) > maxBlockedDates {
		errs.Add("blockedDates", fmt.Sprintf("at most %d dates", maxBlockedDates))
	} else {
		seen := map[string]bool{}
		for i, b := range *in.BlockedDates {
			at := fmt.Sprintf("blockedDates[%d]", i)
			if b.Date == nil {
				errs.Add(at+".date", "is required")
				continue
			}
			d, err := time.Parse(time.DateOnly, *b.Date)
			if err != nil || len(*b.Date) != len(time.DateOnly) {
				errs.Add(at+".date", "must be a date YYYY-MM-DD")
				continue
			}
			if loc != nil {
				now := s.Clock.Now().In(loc)
				today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
				if d.Before(today) {
					errs.Add(at+".date", "is in the past in the expert's time zone, where today is "+today.Format(time.DateOnly))
					continue
				}
			}
			if seen[*b.Date] {
				errs.Add(at+".date", "is listed twice")
				continue
			}
			seen[*b.Date] = true
			bd := BlockedDate{Date: *b.Date}
			if b.Reason != nil {
				v := field.CheckString(errs, at+".reason", b.Reason, false, 0, 200)
				bd.Reason = &v
			}
			blocked = append(blocked, bd)
		}
		sort.Slice(blocked, func(i, j int) bool { return blocked[i].Date < blocked[j].Date })
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	sj, err1 := json.Marshal(schedule)
	bj, err2 := json.Marshal(blocked)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("encode availability: %v %v", err1, err2)
	}
	return s.Supply.UpdateAvailability(ctx, c.User, Availability{WeeklySchedule: sj, BlockedDates: bj, Timezone: *in.Timezone})
}

// checkDay checks the working intervals of one weekday and returns them
// in order of their start, with ok false when day is not a weekday key
// or has too many intervals (then the intervals are not looked at).
func checkDay(errs apperr.FieldErrors, day string, slots []SentSlot) (out []TimeSlot, ok bool) {
	if !slices.Contains(Weekdays, day) {
		errs.Add("weeklySchedule."+day, "unknown weekday: use mon, tue, wed, thu, fri, sat or sun")
		return nil, false
	}
	if len(slots) > maxDaySlots {
		errs.Add("weeklySchedule."+day, fmt.Sprintf("at most %d intervals a day", maxDaySlots))
		return nil, false
	}
	out = make([]TimeSlot, 0, len(slots))
	for i, sl := range slots {
		at := fmt.Sprintf("weeklySchedule.%s[%d]", day, i)
		switch {
		case sl.Start == nil || !validClock.MatchString(*sl.Start):
			errs.Add(at+".start", "must be a time HH:MM such as 09:00")
		case sl.End == nil || !validClock.MatchString(*sl.End):
			errs.Add(at+".end", "must be a time HH:MM such as 17:00")
		case *sl.End <= *sl.Start:
			errs.Add(at+".end", "must be after start")
		default:
			out = append(out, TimeSlot{Start: *sl.Start, End: *sl.End})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	for i := 1; i < len(out); i++ {
		if out[i].Start < out[i-1].End {
			errs.Add("weeklySchedule."+day, fmt.Sprintf("intervals %s–%s and %s–%s overlap", out[i-1].Start, out[i-1].End, out[i].Start, out[i].End))
			break
		}
	}
	return out, true
}

// PackageFields is the body of a package create or update: absent fields
// stay as they are. Title and Description map locales to text; on
// update, the locales sent replace theirs and null removes a translation
// (English cannot be removed).
type PackageFields struct {
	Title           field.Optional[map[string]*string] `json:"title"`
	Description     field.Optional[map[string]*string] `json:"description"`
	Category        field.Optional[string]             `json:"category"`
	CountryCode     field.Optional[string]             `json:"countryCode"`
	BasePrice       field.Optional[float64]            `json:"basePrice"`
	Currency        field.Optional[string]             `json:"currency"`
	Duration        field.Optional[int]                `json:"duration"`
	MaxParticipants field.Optional[int]                `json:"maxParticipants"`
	Images          field.Optional[[]string]           `json:"images"`
	Status          field.Optional[string]             `json:"status"`
	// ExpertID lets an admin create a package for an expert.
	ExpertID *string `json:"expertId"`
}

// apply checks the sent fields and sets them on c; on create every
// field but countryCode, images and status is required.
func (s *Service) applyPackageFields(in *PackageFields, c *PackageContent, create bool, errs apperr.FieldErrors) {
	if c.Translations == nil {
		c.Translations = map[string]PackageText{}
	}
	texts := map[string]PackageText{}
	for k, v := range c.Translations {
		texts[k] = v
	}
	for _, f := range []struct {
		name string
		o    field.Optional[map[string]*string]
		max  int
		set  func(*PackageText, string)
	}{
		{"title", in.Title, 200, func(t *PackageText, v string) { t.Title = v }},
		{"description", in.Description, 5000, func(t *PackageText, v string) { t.Description = v }},
	} {
		if !f.o.Required(errs, f.name, create) {
			continue
		}
		for loc, v := range *f.o.Value {
			at := f.name + "." + loc
			if !slices.Contains(Locales, loc) {
				errs.Add(at, "unknown locale: use "+strings.Join(Locales, ", "))
				continue
			}
			if v == nil {
				if loc == DefaultLocale {
					errs.Add(at, "English is required")
				}
				delete(texts, loc)
				continue
			}
			t := texts[loc]
			f.set(&t, field.CheckString(errs, at, v, true, 1, f.max))
			texts[loc] = t
		}
	}
	for loc, t := range texts {
		if loc != DefaultLocale && (t.Title == "" || t.Description == "") {
			errs.Add("title."+loc, "a translation needs both title and description")
		}
	}
	if en := texts[DefaultLocale]; en.Title == "" || en.Description == "" {
		errs.Add("title.en", "the English title and description are required")
	}
	c.Translations = texts
	if in.Category.Required(errs, "category", create) {
		if v := *in.Category.Value; !validCategory.MatchString(v) {
			errs.Add("category", "must be a lower-case tag such as city_tour, food_tour or shopping")
		} else {
			c.Category = v
		}
	}
	if in.CountryCode.Set {
		if in.CountryCode.Value == nil || !slices.Contains(CountryCodes, *in.CountryCode.Value) {
			errs.Add("countryCode", "must be one of "+strings.Join(CountryCodes, ", "))
		} else {
			c.CountryCode = *in.CountryCode.Value
		}
	}
	if in.BasePrice.Required(errs, "basePrice", create) {
		if v := *in.BasePrice.Value; v < 0 || v > MaxBasePrice {
			errs.Add("basePrice", fmt.Sprintf("must be from 0 to %d", MaxBasePrice))
		} else {
			c.BasePrice = v
		}
	}
	if in.Currency.Required(errs, "currency", create) {
		if v := *in.Currency.Value; !validCurrency.MatchString(v) {
			errs.Add("currency", "must be an ISO 4217 code such as JPY")
		} else {
			c.Currency = v
		}
	}
	if in.Duration.Required(errs, "duration", create) {
		if v := *in.Duration.Value; v < 1 || v > 240 {
			errs.Add("duration", "must be from 1 to 240 hours")
		} else {
			c.Duration = v
		}
	}
	if in.MaxParticipants.Required(errs, "maxParticipants", create) {
		if v := *in.MaxParticipants.Value; v < 1 || v > 50 {
			errs.Add("maxParticipants", "must be from 1 to 50")
		} else {
			c.MaxParticipants = v
		}
	}
	if in.Images.Set || create {
		had := c.Images
		c.Images = media.CheckRefs(errs, "images", s.PublicURL, in.Images.Value, MaxPackageImages)
		// An upload can be kept, moved or dropped, never added here: not
		// another package's, nor one dropped (its file is on its way out).
		for _, img := range c.Images {
			if strings.HasPrefix(img, PackageUploadsPrefix) && !slices.Contains(had, img) {
				errs.Add("images", ForeignPackageImage)
			}
		}
	}
	if in.Status.Set || create {
		c.Status = PackageDraft
		if in.Status.Value != nil {
			if !slices.Contains(PackageStatuses, *in.Status.Value) {
				errs.Add("status", "must be one of "+strings.Join(PackageStatuses, ", "))
			} else {
				c.Status = *in.Status.Value
			}
		}
	}
}

// CreatePackage creates a package of the caller's expert profile, or, for
// an admin, of the expert in.ExpertID. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.Validation, apperr.NotFound (no
// expert profile, or no such expert).
func (s *Service) CreatePackage(ctx context.Context, c *Caller, in PackageFields) (*ExpertPackage, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var content PackageContent
	s.applyPackageFields(&in, &content, true, errs)
	expertID := ""
	if in.ExpertID != nil {
		if c.User.Role != RoleAdmin {
			errs.Add("expertId", "only an admin creates packages for another expert")
		}
		expertID = field.CheckString(errs, "expertId", in.ExpertID, true, 1, 36)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Supply.CreatePackage(ctx, c.User, expertID, content)
}

// UpdatePackage changes the fields sent of a package of the caller's (any
// package, for an admin). Errors: apperr.Unauthorized, apperr.Forbidden
// (an API key, or another expert's package), apperr.NotFound,
// apperr.Validation.
func (s *Service) UpdatePackage(ctx context.Context, c *Caller, id string, in PackageFields) (*ExpertPackage, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "package")
	if err != nil {
		return nil, err
	}
	if in.ExpertID != nil {
		return nil, apperr.Field("expertId", "a package's expert does not change")
	}
	return s.Supply.UpdatePackage(ctx, c.User, id, func(content *PackageContent) error {
		errs := apperr.FieldErrors{}
		s.applyPackageFields(&in, content, false, errs)
		return errs.Err()
	})
}

// ForeignPackageImage refuses, in a package's images, an upload of
// another package's or one dropped; ErrPackageImagesFull refuses an
// image more than MaxPackageImages. A door may name how its callers add
// and drop images.
const ForeignPackageImage = "an uploaded image that is not this package's; upload it to this package first"

var ErrPackageImagesFull = apperr.Errorf(apperr.Conflict,
	"The package has %d images, the most it may have: drop one first.", MaxPackageImages)

// CheckPackageImage tells, before an upload is read, whether the caller
// may add an image to the package now: whose package, and room for one
// more (checked again when it is added). It returns the package's id in
// its canonical form. Errors: apperr.Unauthorized, apperr.Forbidden (an
// API key, or another expert's package), apperr.NotFound,
// apperr.Conflict (the package has MaxPackageImages images).
func (s *Service) CheckPackageImage(ctx context.Context, c *Caller, id string) (string, error) {
	if err := checkPerson(c); err != nil {
		return "", err
	}
	id, err := checkID(id, "package")
	if err != nil {
		return "", err
	}
	p, err := s.Supply.FindExpertPackage(ctx, c.User, id)
	if err != nil {
		return "", err
	}
	if len(p.Images) >= MaxPackageImages {
		return "", ErrPackageImagesFull
	}
	return id, nil
}

// AddPackageImage adds img, an uploaded image already sanitised, to the
// package's images, and returns the package and the image's path on the
// API ("/media/…"). Errors: those of CheckPackageImage.
func (s *Service) AddPackageImage(ctx context.Context, c *Caller, id string, img *media.Image) (*ExpertPackage, string, error) {
	if err := checkPerson(c); err != nil {
		return nil, "", err
	}
	id, err := checkID(id, "package")
	if err != nil {
		return nil, "", err
	}
	// A key of its own for every upload, not the content's: a dropped
	// image's file is removed later, by a job, and must not be one
	// uploaded again meanwhile.
	key := "packages/" + id + "/" + uuid.Must(uuid.NewV7()).String() + img.Ext()
	if err := s.Blobs.Put(ctx, key, img.Data, img.ContentType); err != nil {
		return nil, "", err
	}
	path := "/media/" + key
	p, err := s.Supply.UpdatePackage(ctx, c.User, id, func(content *PackageContent) error {
		if len(content.Images) >= MaxPackageImages {
			return ErrPackageImagesFull
		}
		content.Images = append(content.Images, path)
		return nil
	})
	if err != nil {
		// Nothing refers to the file: its key is this request's.
		if derr := s.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.Logger.WarnContext(ctx, "refused package image not removed", "key", key, "err", derr)
		}
		return nil, "", err
	}
	return p, path, nil
}
