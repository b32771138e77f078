package guidehttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
	"github.com/wayfarer-asia/platform/internal/platform/ratelimit"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// The experts' supply side: their packages and availability, with user
// tokens only (no API key scope writes them).

// supplyRoutes registers the experts' routes.
func (s *Server) supplyRoutes() {
	s.authed("PUT /api/expert/availability", userOnly, s.handleAvailabilityUpdate)
	s.authed("POST /api/v1/packages", userOnly, s.idem.Wrap(http.StatusCreated, nil, s.handlePackageCreate))
	s.authed("PATCH /api/v1/packages/{id}", userOnly, s.idem.Wrap(http.StatusOK, nil, s.handlePackageUpdate))
	// Each upload is decoded: a costly step, bounded per user before the
	// body is read.
	s.authed("POST /api/v1/packages/{id}/images", userOnly,
		httpx.RateLimitCounted(s.cfg.Metrics, s.cfg.Limiter, s.packageImageKey, s.handlePackageImageUpload))
	s.router.Handle("GET /media/packages/{key...}", httpx.Adapt(s.handlePackageImageGet))
}

func (s *Server) packageImageKey(r *http.Request) (string, ratelimit.Limit) {
	return "guide:package-image:" + caller(r.Context()).User.ID, s.cfg.ImageLimit
}

var (
	validClock    = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
	validCategory = regexp.MustCompile(`^[a-z][a-z0-9_]{1,49}$`)
	validCurrency = regexp.MustCompile(`^[A-Z]{3}$`)
)

// maxBlockedDates bounds the blocked dates of an expert.
const maxBlockedDates = 366

func (s *Server) handleAvailabilityUpdate(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		WeeklySchedule *map[string][]struct {
			Start *string `json:"start"`
			End   *string `json:"end"`
		} `json:"weeklySchedule"`
		BlockedDates *[]struct {
			Date   *string `json:"date"`
			Reason *string `json:"reason"`
		} `json:"blockedDates"`
		Timezone *string `json:"timezone"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
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
	schedule := guide.WeeklySchedule{}
	if in.WeeklySchedule == nil {
		errs.Add("weeklySchedule", "is required")
	} else {
		for day, slots := range *in.WeeklySchedule {
			if !slices.Contains(guide.Weekdays, day) {
				errs.Add("weeklySchedule."+day, "unknown weekday: use mon, tue, wed, thu, fri, sat or sun")
				continue
			}
			if len(slots) > 12 {
				errs.Add("weeklySchedule."+day, "at most 12 intervals a day")
				continue
			}
			out := make([]guide.TimeSlot, 0, len(slots))
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
					out = append(out, guide.TimeSlot{Start: *sl.Start, End: *sl.End})
				}
			}
			sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
			for i := 1; i < len(out); i++ {
				if out[i].Start < out[i-1].End {
					errs.Add("weeklySchedule."+day, fmt.Sprintf("intervals %s–%s and %s–%s overlap", out[i-1].Start, out[i-1].End, out[i].Start, out[i].End))
					break
				}
			}
			schedule[day] = out
		}
	}
	blocked := []guide.BlockedDate{}
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
				now := s.cfg.Clock.Now().In(loc)
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
			bd := guide.BlockedDate{Date: *b.Date}
			if b.Reason != nil {
				v := httpx.CheckString(errs, at+".reason", b.Reason, false, 0, 200)
				bd.Reason = &v
			}
			blocked = append(blocked, bd)
		}
		sort.Slice(blocked, func(i, j int) bool { return blocked[i].Date < blocked[j].Date })
	}
	if err := errs.Err(); err != nil {
		return err
	}
	sj, err1 := json.Marshal(schedule)
	bj, err2 := json.Marshal(blocked)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("encode availability: %v %v", err1, err2)
	}
	a, err := s.cfg.Supply.UpdateAvailability(r.Context(), caller(r.Context()).User,
		guide.Availability{WeeklySchedule: sj, BlockedDates: bj, Timezone: *in.Timezone})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}

// packageFields is the body of a package create or update: absent fields
// stay as they are. title and description map locales to text; on
// update, the locales sent replace theirs and null removes a translation
// (English cannot be removed).
type packageFields struct {
	Title           httpx.Optional[map[string]*string] `json:"title"`
	Description     httpx.Optional[map[string]*string] `json:"description"`
	Category        httpx.Optional[string]             `json:"category"`
	CountryCode     httpx.Optional[string]             `json:"countryCode"`
	BasePrice       httpx.Optional[float64]            `json:"basePrice"`
	Currency        httpx.Optional[string]             `json:"currency"`
	Duration        httpx.Optional[int]                `json:"duration"`
	MaxParticipants httpx.Optional[int]                `json:"maxParticipants"`
	Images          httpx.Optional[[]string]           `json:"images"`
	Status          httpx.Optional[string]             `json:"status"`
	// ExpertID lets an admin create a package for an expert.
	ExpertID *string `json:"expertId"`
}

// apply checks the sent fields and sets them on c.
func (s *Server) applyPackageFields(in *packageFields, c *guide.PackageContent, create bool, errs apperr.FieldErrors) {
	if c.Translations == nil {
		c.Translations = map[string]guide.PackageText{}
	}
	texts := map[string]guide.PackageText{}
	for k, v := range c.Translations {
		texts[k] = v
	}
	for _, f := range []struct {
		name string
		o    httpx.Optional[map[string]*string]
		max  int
		set  func(*guide.PackageText, string)
	}{
		{"title", in.Title, 200, func(t *guide.PackageText, v string) { t.Title = v }},
		{"description", in.Description, 5000, func(t *guide.PackageText, v string) { t.Description = v }},
	} {
		if !f.o.Required(errs, f.name, create) {
			continue
		}
		for loc, v := range *f.o.Value {
			at := f.name + "." + loc
			if !slices.Contains(guide.Locales, loc) {
				errs.Add(at, "unknown locale: use "+strings.Join(guide.Locales, ", "))
				continue
			}
			if v == nil {
				if loc == guide.DefaultLocale {
					errs.Add(at, "English is required")
				}
				delete(texts, loc)
				continue
			}
			t := texts[loc]
			f.set(&t, httpx.CheckString(errs, at, v, true, 1, f.max))
			texts[loc] = t
		}
	}
	for loc, t := range texts {
		if loc != guide.DefaultLocale && (t.Title == "" || t.Description == "") {
			errs.Add("title."+loc, "a translation needs both title and description")
		}
	}
	if en := texts[guide.DefaultLocale]; en.Title == "" || en.Description == "" {
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
		if in.CountryCode.Value == nil || !slices.Contains(guide.CountryCodes, *in.CountryCode.Value) {
			errs.Add("countryCode", "must be one of "+strings.Join(guide.CountryCodes, ", "))
		} else {
			c.CountryCode = *in.CountryCode.Value
		}
	}
	if in.BasePrice.Required(errs, "basePrice", create) {
		if v := *in.BasePrice.Value; v < 0 || v > guide.MaxBasePrice {
			errs.Add("basePrice", fmt.Sprintf("must be from 0 to %d", guide.MaxBasePrice))
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
		c.Images = httpx.CheckMediaRefs(errs, "images", s.cfg.PublicURL, in.Images.Value, guide.MaxPackageImages)
		// An upload can be kept, moved or dropped, never added here: not
		// another package's, nor one dropped (its file is on its way out).
		for _, img := range c.Images {
			if strings.HasPrefix(img, guide.PackageUploadsPrefix) && !slices.Contains(had, img) {
				errs.Add("images", "an uploaded image that is not this package's; add one with POST /api/v1/packages/{id}/images")
			}
		}
	}
	if in.Status.Set || create {
		c.Status = guide.PackageDraft
		if in.Status.Value != nil {
			if !slices.Contains(guide.PackageStatuses, *in.Status.Value) {
				errs.Add("status", "must be one of "+strings.Join(guide.PackageStatuses, ", "))
			} else {
				c.Status = *in.Status.Value
			}
		}
	}
}

func (s *Server) handlePackageCreate(w http.ResponseWriter, r *http.Request) error {
	var in packageFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	errs := apperr.FieldErrors{}
	var c guide.PackageContent
	s.applyPackageFields(&in, &c, true, errs)
	expertID := ""
	if in.ExpertID != nil {
		if caller(r.Context()).User.Role != guide.RoleAdmin {
			errs.Add("expertId", "only an admin creates packages for another expert")
		}
		expertID = httpx.CheckString(errs, "expertId", in.ExpertID, true, 1, 36)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	p, err := s.cfg.Supply.CreatePackage(r.Context(), caller(r.Context()).User, expertID, c)
	if err != nil {
		return err
	}
	s.catalogChanged()
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusCreated, item{p})
	return nil
}

func (s *Server) handlePackageUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "package")
	if err != nil {
		return err
	}
	var in packageFields
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	if in.ExpertID != nil {
		return apperr.Field("expertId", "a package's expert does not change")
	}
	p, err := s.cfg.Supply.UpdatePackage(r.Context(), caller(r.Context()).User, id, func(c *guide.PackageContent) error {
		errs := apperr.FieldErrors{}
		s.applyPackageFields(&in, c, false, errs)
		return errs.Err()
	})
	if err != nil {
		return err
	}
	s.catalogChanged()
	httpx.ResolveMedia(r.Context(), p)
	httpx.WriteJSON(w, http.StatusOK, item{p})
	return nil
}

var errPackageImagesFull = apperr.Errorf(apperr.Conflict,
	"The package has %d images, the most it may have: drop one with PATCH /api/v1/packages/{id} first.", guide.MaxPackageImages)

// handlePackageImageUpload adds an uploaded image to a package, sanitised
// as avatars are.
func (s *Server) handlePackageImageUpload(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "package")
	if err != nil {
		return err
	}
	ctx, user := r.Context(), caller(r.Context()).User
	// Whose package, and room for one more, before the upload is read and
	// decoded; checked again in the transaction.
	p, err := s.cfg.Supply.FindExpertPackage(ctx, user, id)
	if err != nil {
		return err
	}
	if len(p.Images) >= guide.MaxPackageImages {
		return errPackageImagesFull
	}
	img, err := httpx.ReadImageUpload(w, r, maxImageUpload)
	if err != nil {
		return err
	}
	// A key of its own for every upload, not the content's: a dropped
	// image's file is removed later, by a job, and must not be one
	// uploaded again meanwhile.
	key := "packages/" + id + "/" + store.NewID() + img.Ext()
	if err := s.cfg.Avatars.Put(ctx, key, img.Data, img.ContentType); err != nil {
		return err
	}
	path := "/media/" + key
	p, err = s.cfg.Supply.UpdatePackage(ctx, user, id, func(c *guide.PackageContent) error {
		if len(c.Images) >= guide.MaxPackageImages {
			return errPackageImagesFull
		}
		c.Images = append(c.Images, path)
		return nil
	})
	if err != nil {
		// Nothing refers to the file: its key is this request's.
		if derr := s.cfg.Avatars.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.cfg.Logger.WarnContext(ctx, "refused package image not removed", "key", key, "err", derr)
		}
		return err
	}
	s.catalogChanged()
	httpx.ResolveMedia(ctx, p)
	w.Header().Set("Location", httpx.AbsoluteURL(ctx, path))
	httpx.WriteJSON(w, http.StatusCreated, item{p})
	return nil
}

func (s *Server) handlePackageImageGet(w http.ResponseWriter, r *http.Request) error {
	return httpx.ServeBlob(w, r, s.cfg.Avatars, "packages/"+r.PathValue("key"))
}
