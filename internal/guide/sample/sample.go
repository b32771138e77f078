// Package sample generates the guide marketplace's sample data: verified
// local guides in the five markets with their packages, travellers,
// bookings and reviews, travelogues and conversations, with every public
// text in English and translated into zh, zh-TW, ja and ko.
//
// Generate is pure and deterministic: it reads no clock and no environment,
// draws from a fixed seed and never lets map order reach its output, so
// every call returns the same dataset down to ids and timestamps. All
// timestamps lie before Horizon.
//
// The rows mirror the tables of the guide schema. Nullable columns are
// pointers, JSON columns are Go values that the loader marshals, and times
// are UTC with whole seconds.
package sample

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
)

// Horizon is the moment the sample data was "taken": every timestamp is
// before it; only pending and confirmed bookings, and blocked dates, lie
// beyond it.
var Horizon = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// The demo accounts. Their password_hash is NULL in the dataset; the server
// sets a password for them when DEMO_PASSWORD is configured.
const (
	DemoTravellerEmail  = "traveller@example.com"
	DemoTravellerHandle = "demo-traveller"
	DemoExpertEmail     = "expert@example.com"
	DemoExpertHandle    = "demo-expert"
	DemoAdminEmail      = "admin@example.com"
	DemoAdminHandle     = "demo-admin"
)

// Roles of users.role.
const (
	RoleTourist = "TOURIST"
	RoleExpert  = "EXPERT"
	RoleAdmin   = "ADMIN"
)

// Statuses of bookings.status.
const (
	StatusPending   = "PENDING"
	StatusConfirmed = "CONFIRMED"
	StatusCompleted = "COMPLETED"
	StatusCancelled = "CANCELLED"
)

// Dataset is the whole sample, one slice per table, in an order that
// satisfies the foreign keys when inserted front to back.
type Dataset struct {
	Users                  []User
	Experts                []Expert
	ExpertTranslations     []ExpertTranslation
	ExpertLanguages        []ExpertLanguage
	ExpertSpecialties      []ExpertSpecialty
	Packages               []Package
	PackageTranslations    []PackageTranslation
	Bookings               []Booking
	Reviews                []Review
	Travelogues            []Travelogue
	TravelogueTranslations []TravelogueTranslation
	Conversations          []Conversation
	Messages               []Message

	// TranslationGaps are the translations left out on purpose so that the
	// English fallback is exercised (see koreanGapHandles).
	TranslationGaps []TranslationGap
}

// TranslationGap is a translation row deliberately missing from the
// dataset.
type TranslationGap struct {
	Table  string // "package_translations"
	ID     string // the translated row's id
	Locale string
}

// User is a row of users.
type User struct {
	ID              string
	Handle          string
	Email           *string
	EmailNormalized *string // lower(Email)
	EmailVerified   bool
	PasswordHash    *string // always nil: the sample sets no passwords
	Name            *string
	Nickname        *string
	Image           *string
	Avatar          *string
	Bio             *string
	BioZh           *string
	Role            string
	Locale          string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Expert is a row of experts.
type Expert struct {
	ID               string
	UserID           string
	Bio              *string // English
	Location         *string // the city's English name
	CountryCode      string
	Currency         string
	ProfileImage     *string
	CoverImage       *string
	HourlyRate       *float64
	Rating           float64 // float64(sum of ratings) / float64(ReviewCount), 0 without reviews
	ReviewCount      int
	SocialLinks      map[string]string
	MessagingEnabled bool
	WeeklySchedule   guide.WeeklySchedule
	BlockedDates     []guide.BlockedDate
	Timezone         string
	AIAutoReply      bool
	AIInstructions   *string
	VerifiedAt       *time.Time // nil: not verified, never shown publicly
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// ExpertTranslation is a row of expert_translations.
type ExpertTranslation struct {
	ExpertID string
	Locale   string
	Bio      *string
}

// ExpertLanguage is a row of expert_languages.
type ExpertLanguage struct {
	ExpertID string
	Language string
	Position int
}

// ExpertSpecialty is a row of expert_specialties.
type ExpertSpecialty struct {
	ExpertID  string
	Specialty string
	Position  int
}

// Package is a row of packages.
type Package struct {
	ID              string
	ExpertID        string
	Title           string
	Description     string
	Category        string
	CountryCode     string
	BasePrice       float64
	Currency        string
	Duration        int // hours
	MaxParticipants int
	Images          []string
	Highlights      []string
	Included        []string
	Excluded        []string
	MeetingPoint    *string
	IsActive        bool
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// PackageTranslation is a row of package_translations. A nil slice is a
// NULL column.
type PackageTranslation struct {
	PackageID    string
	Locale       string
	Title        *string
	Description  *string
	Highlights   []string
	Included     []string
	Excluded     []string
	MeetingPoint *string
}

// Booking is a row of bookings.
type Booking struct {
	ID               string
	TouristID        string
	ExpertID         *string
	PackageID        *string
	Status           string
	ScheduledDate    time.Time
	ScheduledEndDate *time.Time
	Participants     int
	CustomRequest    *string
	MeetingLocation  *string
	Price            *float64
	Currency         *string
	Duration         *int
	ConfirmedAt      *time.Time
	CompletedAt      *time.Time
	CancelledAt      *time.Time
	CancelledBy      *string // "tourist" or "expert"
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Review is a row of reviews.
type Review struct {
	ID        string
	BookingID string
	ExpertID  string
	AuthorID  string
	Rating    int
	Comment   *string
	CreatedAt time.Time
}

// Travelogue is a row of travelogues.
type Travelogue struct {
	ID           string
	Slug         string
	AuthorID     string
	Title        string
	Excerpt      *string
	Content      string // HTML
	CoverImage   *string
	Category     string
	LocationTags []string
	Images       []string
	Score        int
	ViewCount    int
	CommentCount int
	HotScore     float64 // guide.HotScore of the counts, 0 for drafts
	Status       string  // "published" or "draft"
	PublishedAt  *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// TravelogueTranslation is a row of travelogue_translations.
type TravelogueTranslation struct {
	TravelogueID string
	Locale       string
	Title        *string
	Excerpt      *string
	Content      *string
}

// Conversation is a row of conversations.
type Conversation struct {
	ID            string
	TouristID     string
	ExpertID      string
	LastMessage   *string
	LastMessageAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Message is a row of messages.
type Message struct {
	ID                string
	ConversationID    string
	SenderID          string
	MessageType       string // "TEXT" or "IMAGE"
	Content           *string
	ImageURL          *string
	ImageWidth        *int
	ImageHeight       *int
	IsRead            bool
	IsAIGenerated     bool
	RealtimeMessageID *string
	CreatedAt         time.Time
}

// Generate builds the sample dataset. Every call returns an equal dataset.
func Generate() *Dataset {
	// #nosec G404 -- sample data must be deterministic: a fixed seed, not secrets.
	g := &generator{
		rng:     rand.New(rand.NewPCG(0x5741594641524552, 0x2026_0001)),
		idRand:  rand.New(rand.NewPCG(0x7575696437, 0x2026_0002)),
		ds:      &Dataset{},
		handles: map[string]bool{},
	}
	g.addStaff()
	g.addExperts()
	g.addPackages()
	g.addTourists()
	g.addBookings()
	g.addTravelogues()
	g.addConversations()
	return g.ds
}

// generator holds the state of one Generate call. rng drives every content
// choice; idRand only the random bits of ids, so ids do not shift when
// content choices change.
type generator struct {
	rng     *rand.Rand
	idRand  *rand.Rand
	ds      *Dataset
	handles map[string]bool // handles taken, to keep them unique

	demoTraveller *touristInfo
	demoExpert    *expertInfo
	experts       []*expertInfo
	tourists      []*touristInfo
	pairs         map[[2]string]bool // tourist and expert ids with a review
}

// newID returns a UUIDv7 string for a row created at t: 48 bits of unix
// milliseconds, the version and variant bits, and 74 seeded random bits.
func (g *generator) newID(t time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:8], uint64(t.UnixMilli())<<16|uint64(g.idRand.Uint32()&0xffff))
	binary.BigEndian.PutUint64(b[8:16], g.idRand.Uint64())
	b[6] = 0x70 | b[6]&0x0f // version 7
	b[8] = 0x80 | b[8]&0x3f // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	hex.Encode(s[9:13], b[4:6])
	hex.Encode(s[14:18], b[6:8])
	hex.Encode(s[19:23], b[8:10])
	hex.Encode(s[24:36], b[10:16])
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	return string(s[:])
}

// uniqueHandle returns base, or base with a number appended when base is
// taken, and marks it taken.
func (g *generator) uniqueHandle(base string) string {
	h := base
	for n := 2; g.handles[h]; n++ {
		h = base + "-" + strconv.Itoa(n)
	}
	g.handles[h] = true
	return h
}

// Random helpers.

// between returns an int in [lo, hi].
func (g *generator) between(lo, hi int) int { return lo + g.rng.IntN(hi-lo+1) }

// chance is true with probability p.
func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

// timeBetween returns a time in [a, b), to the second.
func (g *generator) timeBetween(a, b time.Time) time.Time {
	span := int64(b.Sub(a) / time.Second)
	if span <= 0 {
		return a
	}
	return a.Add(time.Duration(g.rng.Int64N(span)) * time.Second)
}

// after returns a time between lo and hi after t.
func (g *generator) after(t time.Time, lo, hi time.Duration) time.Time {
	return g.timeBetween(t.Add(lo), t.Add(hi))
}

// pickIndex returns an index drawn with the given weights.
func (g *generator) pickIndex(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.rng.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// subset returns k items of s, in s's order.
func subset[T any](g *generator, s []T, k int) []T {
	idx := g.rng.Perm(len(s))[:k]
	keep := make([]bool, len(s))
	for _, i := range idx {
		keep[i] = true
	}
	out := make([]T, 0, k)
	for i, v := range s {
		if keep[i] {
			out = append(out, v)
		}
	}
	return out
}

func pick[T any](g *generator, s []T) T { return s[g.rng.IntN(len(s))] }

// Time helpers.

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

const day = 24 * time.Hour

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Pointer helpers.

func ptr[T any](v T) *T { return &v }

// optional returns &v, or nil when keep is false.
func optional[T any](keep bool, v T) *T {
	if !keep {
		return nil
	}
	return &v
}
