package guide

import (
	"context"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Statuses of an expert application. An open application (pending or
// changes_requested) is the applicant's to edit; a decision moves a pending
// one on.
const (
	ApplicationPending          = "pending"
	ApplicationChangesRequested = "changes_requested"
	ApplicationApproved         = "approved"
	ApplicationRejected         = "rejected"
)

// ApplicationStatuses lists the statuses of an expert application.
var ApplicationStatuses = []string{ApplicationPending, ApplicationChangesRequested, ApplicationApproved, ApplicationRejected}

// Decisions an admin takes on a pending application: the last segment of
// POST /api/v1/admin/expert-applications/{id}/{decision}.
const (
	DecisionApprove        = "approve"
	DecisionReject         = "reject"
	DecisionRequestChanges = "request-changes"
)

// decisionStatus is the status each decision moves an application to.
var decisionStatus = map[string]string{
	DecisionApprove: ApplicationApproved, DecisionReject: ApplicationRejected, DecisionRequestChanges: ApplicationChangesRequested,
}

// Audit log entries of the decisions on applications.
const (
	AuditTargetApplication         = "expert_application"
	AuditApplicationApprove        = "application.approve"
	AuditApplicationReject         = "application.reject"
	AuditApplicationRequestChanges = "application.request_changes"
)

// decisionAudit is the audit action of each decision.
var decisionAudit = map[string]string{
	DecisionApprove: AuditApplicationApprove, DecisionReject: AuditApplicationReject, DecisionRequestChanges: AuditApplicationRequestChanges,
}

// Bounds of an application's verification documents.
const (
	MaxApplicationDocuments = 5
	MaxDocumentBytes        = 10 << 20
	// DocumentRetention is how long after the final decision (approval or
	// rejection) an application's documents are kept.
	DocumentRetention = 30 * 24 * time.Hour
)

// UnknownSpecialty is the refusal of a specialty outside the vocabulary
// (a door may name where its callers read the catalogue's).
var UnknownSpecialty = "must be a specialty the catalogue lists or one of " + strings.Join(SpecialtyTags, ", ")

// SpecialtyTags is the vocabulary of specialties an expert may name,
// besides those GET /api/v1/specialties lists: the catalogue's own tags,
// so that an empty marketplace can take its first applications.
var SpecialtyTags = []string{"food", "history", "culture", "photography", "nightlife", "shopping", "hiking", "architecture",
	"temples", "art", "tea", "street-food", "family", "nature"}

// ExpertLocation is where an expert guides: a city in one of the markets.
type ExpertLocation struct {
	City        string `json:"city"`
	CountryCode string `json:"countryCode"`
}

// ExpertPublicProfile is an expert's public profile as the expert writes it: in
// an application, and for a verified expert in PATCH /api/v1/expert/profile.
// Bio maps locales to text; English is required and is the fallback of
// the others. ProfileImage and CoverImage are set by uploads only.
type ExpertPublicProfile struct {
	Handle           string            `json:"handle"`
	Name             string            `json:"name"`
	Bio              map[string]string `json:"bio"`
	Languages        []string          `json:"languages"`
	Specialties      []string          `json:"specialties"`
	Location         ExpertLocation    `json:"location"`
	Currency         string            `json:"currency"`
	HourlyRate       *float64          `json:"hourlyRate"`
	Timezone         string            `json:"timezone"`
	WeeklySchedule   WeeklySchedule    `json:"weeklySchedule"`
	SocialLinks      map[string]string `json:"socialLinks"`
	MessagingEnabled bool              `json:"messagingEnabled"`
}

// OwnExpertProfile is a verified expert's profile as the expert sees it:
// every locale of the bio, the images and when the expert was verified.
type OwnExpertProfile struct {
	ExpertPublicProfile
	ID           string     `json:"id"`
	ProfileImage *string    `json:"profileImage"`
	CoverImage   *string    `json:"coverImage"`
	VerifiedAt   *time.Time `json:"verifiedAt"`
}

// MediaRefs calls f with the expert's profile and cover images.
func (p OwnExpertProfile) MediaRefs(f func(*string)) { refs(f, p.ProfileImage, p.CoverImage) }

// ApplicationDocument is a verification document as listed: never its
// storage key, which no URL names.
type ApplicationDocument struct {
	ID          string    `json:"id"`
	ContentType string    `json:"contentType"`
	Size        int       `json:"size"`
	CreatedAt   time.Time `json:"createdAt"`
	Key         string    `json:"-"`
}

// Application is an expert application, as its applicant and the admins
// see it.
type Application struct {
	ID              string                `json:"id"`
	Status          string                `json:"status"`
	Profile         ExpertPublicProfile   `json:"profile"`
	Statement       string                `json:"statement"`
	Documents       []ApplicationDocument `json:"documents"`
	ReviewerMessage *string               `json:"reviewerMessage"`
	DecidedAt       *time.Time            `json:"decidedAt"`
	// DocumentsRemoveAt is when the documents are removed: DocumentRetention
	// after a final decision; null while the application is open.
	DocumentsRemoveAt *time.Time `json:"documentsRemoveAt"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
	// Applicant is who applied; admins only.
	Applicant *ApplicantInfo `json:"applicant,omitempty"`
	UserID    string         `json:"-"`
}

// Open reports whether the application is the applicant's to edit.
func (a *Application) Open() bool {
	return a.Status == ApplicationPending || a.Status == ApplicationChangesRequested
}

// CheckOpen tells whether the applicant may change the application: an
// open one. Errors: apperr.Conflict.
func (a *Application) CheckOpen() error {
	if !a.Open() {
		return apperr.Errorf(apperr.Conflict, "The application has been decided; it can no longer change.")
	}
	return nil
}

// CheckNewDocument tells whether the applicant may add a document: to an
// open application with fewer than MaxApplicationDocuments. Errors:
// apperr.Conflict.
func (a *Application) CheckNewDocument() error {
	if err := a.CheckOpen(); err != nil {
		return err
	}
	if len(a.Documents) >= MaxApplicationDocuments {
		return apperr.Errorf(apperr.Conflict, "The application has %d documents, the most it may have.", MaxApplicationDocuments)
	}
	return nil
}

// CheckDecidable tells whether an admin may decide the application: a
// pending one. Errors: apperr.Conflict.
func (a *Application) CheckDecidable() error {
	if a.Status != ApplicationPending {
		return apperr.Errorf(apperr.Conflict, "The application is %s, not pending: it is not for a decision now.", strings.ReplaceAll(a.Status, "_", " "))
	}
	return nil
}

// CheckApply tells whether a user may apply to become an expert: one who
// is no verified expert yet (verified) and has no open application (open).
// Errors: apperr.Conflict (ErrOpenApplication, or a verified expert).
func CheckApply(verified, open bool) error {
	switch {
	case verified:
		return apperr.Errorf(apperr.Conflict, "This account is a verified expert already: edit the profile with PATCH /api/v1/expert/profile.")
	case open:
		return ErrOpenApplication
	}
	return nil
}

// ErrOpenApplication refuses a second open application of a user
// (apperr.Conflict).
var ErrOpenApplication = apperr.Errorf(apperr.Conflict,
	"You have an open application already: follow it with GET /api/v1/expert-applications/mine, and edit it while it is open.")

// ApplicantInfo is who applied, as admins see it.
type ApplicantInfo struct {
	ID    string  `json:"id"`
	Email *string `json:"email"`
	Name  *string `json:"name"`
}

// ApplicationFilter selects applications for the admins' queue.
type ApplicationFilter struct {
	Page   paging.Page
	Status string
}

// Decision is an admin's decision on an application, checked.
type Decision struct {
	Decision string
	Status   string // the status it moves the application to
	Audit    string // the audit log action
	AdminID  string
	Message  *string // the reason of a rejection, the changes asked for
}

// NewDocument is a verification document to add, already checked and
// stored under Key.
type NewDocument struct {
	ID          string
	Key         string
	ContentType string
	Size        int
}

// ApplicationStore keeps expert applications and verified experts'
// profiles.
type ApplicationStore interface {
	// CreateApplication stores a pending application of user. Errors:
	// apperr.Conflict (an open application already, a verified expert, or
	// the handle taken, with details.handle).
	CreateApplication(ctx context.Context, userID string, p ExpertPublicProfile, statement string) (*Application, error)
	// FindLatestApplication returns the user's latest application.
	// Errors: apperr.NotFound.
	FindLatestApplication(ctx context.Context, userID string) (*Application, error)
	// UpdateApplication changes the user's open application as apply
	// says; one asked for changes becomes pending again. Errors:
	// apperr.NotFound, apperr.Conflict (decided, or the handle taken) and
	// those of apply.
	UpdateApplication(ctx context.Context, userID, id string, apply func(*ExpertPublicProfile, *string) error) (*Application, error)
	// AddApplicationDocument adds a stored document to the user's open
	// application. Errors: apperr.NotFound, apperr.Conflict (decided, or
	// MaxApplicationDocuments already).
	AddApplicationDocument(ctx context.Context, userID, id string, d NewDocument) (*Application, error)
	// FindApplications returns a page of applications, oldest first, and
	// the number f selects.
	FindApplications(ctx context.Context, f ApplicationFilter) ([]Application, int, error)
	// FindApplication returns an application. Errors: apperr.NotFound.
	FindApplication(ctx context.Context, id string) (*Application, error)
	// FindApplicationDocument returns a document of an application.
	// Errors: apperr.NotFound.
	FindApplicationDocument(ctx context.Context, applicationID, docID string) (*ApplicationDocument, error)
	// DecideApplication applies d to a pending application in one
	// transaction, with its audit entry, the applicant's notifications
	// and, for a final decision, the removal of its documents after
	// DocumentRetention; approval makes the applicant a verified expert in
	// the catalogue and records expert.verified. Errors: apperr.NotFound,
	// apperr.Conflict (not pending: decided, or waiting for changes; or,
	// on approval, the handle taken meanwhile).
	DecideApplication(ctx context.Context, id string, d Decision) (*Application, error)

	// FindOwnExpertProfile returns the verified expert profile of user.
	// Errors: apperr.NotFound.
	FindOwnExpertProfile(ctx context.Context, userID string) (*OwnExpertProfile, error)
	// UpdateExpertProfile changes the verified expert profile of user as
	// apply says, and records expert.updated. Errors: apperr.NotFound and
	// those of apply.
	UpdateExpertProfile(ctx context.Context, userID string, apply func(*OwnExpertProfile) error) (*OwnExpertProfile, error)
	// SetExpertImage makes path the expert's profile image (cover false)
	// or cover image, records expert.updated and removes the file of the
	// upload it replaces by a job. Errors: apperr.NotFound.
	SetExpertImage(ctx context.Context, userID string, cover bool, path string) (*OwnExpertProfile, error)
}
