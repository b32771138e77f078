package guide

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Guides join the marketplace: a signed-in user applies with the public
// profile they ask for, an admin decides, and the verified expert edits
// the profile afterwards. One validator (applyProfileFields) checks the
// profile both in an application and in PATCH /api/v1/expert/profile.

var (
	validHandle    = regexp.MustCompile(`^[a-z0-9-]{3,40}$`)
	validLanguage  = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z]{2,4})?$`)
	validSpecialty = regexp.MustCompile(`^[a-z][a-z0-9-]{1,39}$`)
	validLinkName  = regexp.MustCompile(`^[a-z][a-z0-9_]{1,29}$`)
)

// Bounds of an expert profile.
const (
	maxExpertLanguages   = 10
	maxExpertSpecialties = 8
	maxSocialLinks       = 10
	maxHourlyRate        = 1_000_000
)

// ProfileFields is an expert profile as sent: in an application (every
// field but hourlyRate, weeklySchedule, socialLinks and messagingEnabled
// required) or an update, where absent fields stay as they are. Bio maps
// locales to text; on update, the locales sent replace theirs and null
// removes a translation (English cannot be removed).
type ProfileFields struct {
	Handle           field.Optional[string]                `json:"handle"`
	Name             field.Optional[string]                `json:"name"`
	Bio              field.Optional[map[string]*string]    `json:"bio"`
	Languages        field.Optional[[]string]              `json:"languages"`
	Specialties      field.Optional[[]string]              `json:"specialties"`
	Location         field.Optional[LocationFields]        `json:"location"`
	Currency         field.Optional[string]                `json:"currency"`
	HourlyRate       field.Optional[float64]               `json:"hourlyRate"`
	Timezone         field.Optional[string]                `json:"timezone"`
	WeeklySchedule   field.Optional[map[string][]SentSlot] `json:"weeklySchedule"`
	SocialLinks      field.Optional[map[string]string]     `json:"socialLinks"`
	MessagingEnabled field.Optional[bool]                  `json:"messagingEnabled"`
}

// LocationFields is an expert's location as sent.
type LocationFields struct {
	City        *string `json:"city"`
	CountryCode *string `json:"countryCode"`
}

// ApplicationFields is the body of an application or of its edit: the
// profile and the statement for the reviewers.
type ApplicationFields struct {
	ProfileFields
	Statement field.Optional[string] `json:"statement"`
}

// specialtyVocabulary is what an expert may name as a specialty: the tags
// of SpecialtyTags and those the catalogue lists.
func (s *Service) specialtyVocabulary(ctx context.Context) ([]string, error) {
	listed, err := s.Catalog.FindSpecialties(ctx)
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(SpecialtyTags), listed...), nil
}

// applyProfileFields checks the sent fields and sets them on p. create
// asks for the required fields; fixedHandle refuses a change of handle
// (a verified expert's); vocabulary is what specialties may name.
func applyProfileFields(in *ProfileFields, p *ExpertPublicProfile, create, fixedHandle bool, vocabulary []string, errs apperr.FieldErrors) {
	if in.Handle.Required(errs, "handle", create && !fixedHandle) {
		switch v := *in.Handle.Value; {
		case fixedHandle && v != p.Handle:
			errs.Add("handle", "is fixed once the expert is verified")
		case !validHandle.MatchString(v):
			errs.Add("handle", "must be 3 to 40 lower-case letters, digits or hyphens")
		default:
			p.Handle = v
		}
	}
	if in.Name.Required(errs, "name", create) {
		p.Name = field.CheckString(errs, "name", in.Name.Value, true, 1, 100)
	}
	if in.Bio.Required(errs, "bio", create) {
		bio := map[string]string{}
		for k, v := range p.Bio {
			bio[k] = v
		}
		for loc, v := range *in.Bio.Value {
			at := "bio." + loc
			switch {
			case !slices.Contains(Locales, loc):
				errs.Add(at, "unknown locale: use "+strings.Join(Locales, ", "))
			case v == nil:
				delete(bio, loc)
			default:
				bio[loc] = field.CheckString(errs, at, v, true, 1, 2000)
			}
		}
		if bio[DefaultLocale] == "" {
			errs.Add("bio.en", "the English bio is required")
		}
		p.Bio = bio
	}
	if in.Languages.Required(errs, "languages", create) {
		p.Languages = checkTags(errs, "languages", *in.Languages.Value, maxExpertLanguages, func(v string) string {
			if !validLanguage.MatchString(v) {
				return "must be a language code such as en, ja or zh-TW"
			}
			return ""
		})
	}
	if in.Specialties.Required(errs, "specialties", create) {
		p.Specialties = checkTags(errs, "specialties", *in.Specialties.Value, maxExpertSpecialties, func(v string) string {
			if !validSpecialty.MatchString(v) || !slices.Contains(vocabulary, v) {
				return UnknownSpecialty
			}
			return ""
		})
	}
	if in.Location.Required(errs, "location", create) {
		l := *in.Location.Value
		city := field.CheckString(errs, "location.city", l.City, true, 1, 100)
		switch {
		case l.CountryCode == nil:
			errs.Add("location.countryCode", "is required")
		case !slices.Contains(CountryCodes, *l.CountryCode):
			errs.Add("location.countryCode", "must be one of "+strings.Join(CountryCodes, ", "))
		default:
			p.Location = ExpertLocation{City: city, CountryCode: *l.CountryCode}
		}
	}
	if in.Currency.Required(errs, "currency", create) {
		if v := *in.Currency.Value; !validCurrency.MatchString(v) {
			errs.Add("currency", "must be an ISO 4217 code such as JPY")
		} else {
			p.Currency = v
		}
	}
	if in.HourlyRate.Set {
		if v := in.HourlyRate.Value; v != nil && (*v <= 0 || *v > maxHourlyRate) {
			errs.Add("hourlyRate", fmt.Sprintf("must be above 0 and at most %d, or null", maxHourlyRate))
		} else {
			p.HourlyRate = v
		}
	}
	if in.Timezone.Required(errs, "timezone", create) {
		if checkTimezone(errs, "timezone", *in.Timezone.Value) {
			p.Timezone = *in.Timezone.Value
		}
	}
	if in.WeeklySchedule.Set || create {
		schedule := WeeklySchedule{}
		if in.WeeklySchedule.Value != nil {
			for day, slots := range *in.WeeklySchedule.Value {
				if out, ok := checkDay(errs, day, slots); ok {
					schedule[day] = out
				}
			}
		}
		p.WeeklySchedule = schedule
	}
	if in.SocialLinks.Set || create {
		links := map[string]string{}
		if in.SocialLinks.Value != nil {
			if len(*in.SocialLinks.Value) > maxSocialLinks {
				errs.Add("socialLinks", fmt.Sprintf("at most %d links", maxSocialLinks))
			}
			for name, link := range *in.SocialLinks.Value {
				at := "socialLinks." + name
				if !validLinkName.MatchString(name) {
					errs.Add("socialLinks", "each name must be a lower-case tag such as instagram or website")
					continue
				}
				if u, err := url.Parse(link); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(link) > 300 {
					errs.Add(at, "must be an https URL of at most 300 characters")
					continue
				}
				links[name] = link
			}
		}
		p.SocialLinks = links
	}
	if in.MessagingEnabled.Set || create {
		p.MessagingEnabled = true
		if in.MessagingEnabled.Value != nil {
			p.MessagingEnabled = *in.MessagingEnabled.Value
		}
	}
}

// checkTags checks a list of 1 to max distinct tags (any case counts
// once), each judged by bad ("" when good).
func checkTags(errs apperr.FieldErrors, field string, tags []string, max int, bad func(string) string) []string {
	if len(tags) == 0 || len(tags) > max {
		errs.Add(field, fmt.Sprintf("must hold 1 to %d entries", max))
		return nil
	}
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for i, v := range tags {
		at := fmt.Sprintf("%s[%d]", field, i)
		if msg := bad(v); msg != "" {
			errs.Add(at, msg)
			continue
		}
		if seen[strings.ToLower(v)] {
			errs.Add(at, "is listed twice")
			continue
		}
		seen[strings.ToLower(v)] = true
		out = append(out, v)
	}
	return out
}

// checkTimezone reports whether v is an IANA time zone such as
// Asia/Tokyo, adding the error to errs when it is not.
func checkTimezone(errs apperr.FieldErrors, field, v string) bool {
	if _, err := clock.LoadLocation(v); err != nil || len(v) > 64 || !strings.Contains(v, "/") {
		errs.Add(field, "must be an IANA time zone such as Asia/Tokyo")
		return false
	}
	return true
}

// profileVocabulary returns the specialty vocabulary when in names
// specialties (the only field that needs a query to check).
func (s *Service) profileVocabulary(ctx context.Context, in *ProfileFields) ([]string, error) {
	if !in.Specialties.Set {
		return nil, nil
	}
	return s.specialtyVocabulary(ctx)
}

// Apply stores the caller's application to become a verified expert:
// the public profile asked for and a statement for the reviewers. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key), apperr.Validation,
// apperr.Conflict (an open application already, a verified expert, or the
// handle taken: details.handle).
func (s *Service) Apply(ctx context.Context, c *Caller, in ApplicationFields) (*Application, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	vocabulary, err := s.profileVocabulary(ctx, &in.ProfileFields)
	if err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var p ExpertPublicProfile
	applyProfileFields(&in.ProfileFields, &p, true, false, vocabulary, errs)
	statement := ""
	if in.Statement.Required(errs, "statement", true) {
		statement = field.CheckString(errs, "statement", in.Statement.Value, true, 20, 5000)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return applicantView(s.Applications.CreateApplication(ctx, c.User.ID, p, statement))
}

// applicantView is an application as its applicant sees it: without the
// admins' view of who applied.
func applicantView(a *Application, err error) (*Application, error) {
	if a != nil {
		a.Applicant = nil
	}
	return a, err
}

// MyApplication returns the caller's latest application, with its status
// and the reviewer's message. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.NotFound (none).
func (s *Service) MyApplication(ctx context.Context, c *Caller) (*Application, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	return applicantView(s.Applications.FindLatestApplication(ctx, c.User.ID))
}

// UpdateApplication changes the fields sent of the caller's open
// application (pending, or asked for changes: then it is pending again).
// Errors: apperr.Unauthorized, apperr.Forbidden (an API key),
// apperr.NotFound, apperr.Validation, apperr.Conflict (decided, or the
// handle taken).
func (s *Service) UpdateApplication(ctx context.Context, c *Caller, id string, in ApplicationFields) (*Application, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "application")
	if err != nil {
		return nil, err
	}
	vocabulary, err := s.profileVocabulary(ctx, &in.ProfileFields)
	if err != nil {
		return nil, err
	}
	return applicantView(s.Applications.UpdateApplication(ctx, c.User.ID, id, func(p *ExpertPublicProfile, statement *string) error {
		errs := apperr.FieldErrors{}
		applyProfileFields(&in.ProfileFields, p, false, false, vocabulary, errs)
		if in.Statement.Required(errs, "statement", false) {
			*statement = field.CheckString(errs, "statement", in.Statement.Value, true, 20, 5000)
		}
		return errs.Err()
	}))
}

// CheckApplicationDocument tells, before an upload is read, whether the
// caller may add a document to the application now: theirs, open, and
// room for one more (checked again when it is added). It returns the
// application's id in its canonical form. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.NotFound, apperr.Conflict
// (decided, or full).
func (s *Service) CheckApplicationDocument(ctx context.Context, c *Caller, id string) (string, error) {
	if err := checkPerson(c); err != nil {
		return "", err
	}
	id, err := checkID(id, "application")
	if err != nil {
		return "", err
	}
	a, err := s.Applications.FindLatestApplication(ctx, c.User.ID)
	if err != nil || a.ID != id {
		return "", apperr.Errorf(apperr.NotFound, "No application with id %q.", id)
	}
	if err := a.CheckNewDocument(); err != nil {
		return "", err
	}
	return id, nil
}

// AddApplicationDocument stores doc, a checked upload (a sanitised image
// or a PDF), privately under a random key and adds it to the caller's
// open application. Errors: those of CheckApplicationDocument.
func (s *Service) AddApplicationDocument(ctx context.Context, c *Caller, id string, doc *media.Document) (*Application, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "application")
	if err != nil {
		return nil, err
	}
	// A random key, unrelated to the document's id or content: it is
	// never shown, and no route serves the applications/ prefix.
	var b [16]byte
	rand.Read(b[:])
	key := "applications/" + id + "/" + hex.EncodeToString(b[:]) + doc.Ext
	if err := s.Blobs.Put(ctx, key, doc.Data, doc.ContentType); err != nil {
		return nil, err
	}
	a, err := s.Applications.AddApplicationDocument(ctx, c.User.ID, id, NewDocument{
		ID: uuid.Must(uuid.NewV7()).String(), Key: key, ContentType: doc.ContentType, Size: len(doc.Data)})
	if err != nil {
		if derr := s.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.Logger.WarnContext(ctx, "refused application document not removed", "key", key, "err", derr)
		}
		return nil, err
	}
	return applicantView(a, nil)
}

// ApplicationSearch selects applications as a door receives it.
type ApplicationSearch struct {
	PageArgs
	Status string // default pending
}

// ListApplications returns the admins' queue: applications of a status
// (pending by default), oldest first. Errors: apperr.Unauthorized,
// apperr.Forbidden (not an admin), apperr.Validation.
func (s *Service) ListApplications(ctx context.Context, c *Caller, in ApplicationSearch) ([]Application, paging.Meta, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, paging.Meta{}, err
	}
	errs := apperr.FieldErrors{}
	if in.Order == "" {
		in.Order = "asc"
	}
	f := ApplicationFilter{Page: in.check(errs), Status: field.Enum(errs, "status", in.Status, ApplicationPending, ApplicationStatuses)}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	apps, total, err := s.Applications.FindApplications(ctx, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return apps, paging.NewMeta(f.Page, total), nil
}

// GetApplication returns an application for an admin. Errors:
// apperr.Unauthorized, apperr.Forbidden (not an admin), apperr.NotFound.
func (s *Service) GetApplication(ctx context.Context, c *Caller, id string) (*Application, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "application")
	if err != nil {
		return nil, err
	}
	return s.Applications.FindApplication(ctx, id)
}

// DecisionFields is the body of a decision: the reason of a rejection
// (required), the changes a request asks for (required), or a note to the
// applicant on approval (optional).
type DecisionFields struct {
	Reason  *string `json:"reason"`
	Message *string `json:"message"`
}

// DecideApplication approves, rejects or asks for changes to a pending
// application, as the admin caller. Of concurrent decisions one stands:
// the others find it no longer pending. Errors: apperr.Unauthorized,
// apperr.Forbidden (not an admin), apperr.NotFound (no such application
// or decision), apperr.Validation (a rejection without reason, a request
// without message), apperr.Conflict (not pending, or on approval the
// handle taken meanwhile).
func (s *Service) DecideApplication(ctx context.Context, c *Caller, id, decision string, in DecisionFields) (*Application, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, err
	}
	id, err := checkID(id, "application")
	if err != nil {
		return nil, err
	}
	status, ok := decisionStatus[decision]
	if !ok {
		return nil, apperr.Errorf(apperr.NotFound, "No decision %q: use approve, reject or request-changes.", decision)
	}
	errs := apperr.FieldErrors{}
	d := Decision{Decision: decision, Status: status, Audit: decisionAudit[decision], AdminID: c.User.ID}
	switch decision {
	case DecisionReject:
		if in.Message != nil {
			errs.Add("message", "a rejection gives its reason in reason")
		}
		v := field.CheckString(errs, "reason", in.Reason, true, 1, 2000)
		d.Message = &v
	case DecisionRequestChanges:
		if in.Reason != nil {
			errs.Add("reason", "a request for changes says what to change in message")
		}
		v := field.CheckString(errs, "message", in.Message, true, 1, 2000)
		d.Message = &v
	default:
		if in.Reason != nil {
			errs.Add("reason", "an approval has no reason; a note to the applicant goes in message")
		}
		if in.Message != nil {
			v := field.CheckString(errs, "message", in.Message, false, 1, 2000)
			d.Message = &v
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Applications.DecideApplication(ctx, id, d)
}

// OpenApplicationDocument opens a verification document for an admin:
// the caller closes the reader. Errors: apperr.Unauthorized,
// apperr.Forbidden (not an admin), apperr.NotFound (no such document, or
// removed after the decision).
func (s *Service) OpenApplicationDocument(ctx context.Context, c *Caller, id, docID string) (io.ReadCloser, *ApplicationDocument, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, nil, err
	}
	id, err := checkID(id, "application")
	if err != nil {
		return nil, nil, err
	}
	docID, err = checkID(docID, "document")
	if err != nil {
		return nil, nil, err
	}
	d, err := s.Applications.FindApplicationDocument(ctx, id, docID)
	if err != nil {
		return nil, nil, err
	}
	rc, _, err := s.Blobs.Get(ctx, d.Key)
	if err != nil {
		if errors.Is(err, media.ErrNotFound) {
			return nil, nil, apperr.Errorf(apperr.NotFound, "The document has been removed.")
		}
		return nil, nil, err
	}
	return rc, d, nil
}

// MyExpertProfile returns the caller's verified expert profile. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key), apperr.NotFound
// (not a verified expert).
func (s *Service) MyExpertProfile(ctx context.Context, c *Caller) (*OwnExpertProfile, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	return s.Applications.FindOwnExpertProfile(ctx, c.User.ID)
}

// UpdateExpertProfile changes the fields sent of the caller's verified
// expert profile, checked as an application's; the handle is fixed. The
// catalogue shows the change at once. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.NotFound (not a verified expert),
// apperr.Validation.
func (s *Service) UpdateExpertProfile(ctx context.Context, c *Caller, in ProfileFields) (*OwnExpertProfile, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	vocabulary, err := s.profileVocabulary(ctx, &in)
	if err != nil {
		return nil, err
	}
	return s.Applications.UpdateExpertProfile(ctx, c.User.ID, func(p *OwnExpertProfile) error {
		errs := apperr.FieldErrors{}
		applyProfileFields(&in, &p.ExpertPublicProfile, false, true, vocabulary, errs)
		return errs.Err()
	})
}

// Kinds of expert image (the kind query parameter of the upload).
const (
	ExpertImageProfile = "profile"
	ExpertImageCover   = "cover"
)

// CheckExpertImage tells, before an upload is read, whether the caller
// may upload an expert image of kind. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.Validation (kind),
// apperr.NotFound (not a verified expert).
func (s *Service) CheckExpertImage(ctx context.Context, c *Caller, kind string) (*OwnExpertProfile, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	if kind != ExpertImageProfile && kind != ExpertImageCover {
		return nil, apperr.Field("kind", "must be profile or cover")
	}
	return s.Applications.FindOwnExpertProfile(ctx, c.User.ID)
}

// SetExpertImage makes img, an uploaded image already sanitised, the
// caller's profile or cover image; the file of an upload it replaces is
// removed by a job. It returns the profile and the image's path on the
// API. Errors: those of CheckExpertImage.
func (s *Service) SetExpertImage(ctx context.Context, c *Caller, kind string, img *media.Image) (*OwnExpertProfile, string, error) {
	p, err := s.CheckExpertImage(ctx, c, kind)
	if err != nil {
		return nil, "", err
	}
	// A key of its own for every upload: the replaced file is removed
	// later, by a job, and must not be one uploaded again meanwhile.
	key := ExpertUploadsPrefix + p.ID + "/" + uuid.Must(uuid.NewV7()).String() + img.Ext()
	if err := s.Blobs.Put(ctx, key, img.Data, img.ContentType); err != nil {
		return nil, "", err
	}
	path := "/media/" + key
	out, err := s.Applications.SetExpertImage(ctx, c.User.ID, kind == ExpertImageCover, path)
	if err != nil {
		if derr := s.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.Logger.WarnContext(ctx, "refused expert image not removed", "key", key, "err", derr)
		}
		return nil, "", err
	}
	return out, path, nil
}

// ExpertUploadsPrefix starts the storage key of every uploaded expert
// image, served at /media/experts/….
const ExpertUploadsPrefix = "experts/"
