package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// sampleBatchRows is how many rows one INSERT carries. The widest table
// (experts, 21 columns) stays far below both engines' parameter limits.
const sampleBatchRows = 100

// IsEmpty reports whether the guide database has no users, that is,
// whether the sample data may be loaded.
func IsEmpty(ctx context.Context, db *store.DB) (bool, error) {
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM users)").Scan(&exists); err != nil {
		return false, fmt.Errorf("count users: %w", err)
	}
	return !exists, nil
}

// LoadSample inserts the whole dataset in one transaction: either all
// of it is stored or none. It expects an empty database; rows that already
// exist make it fail on their unique keys.
func LoadSample(ctx context.Context, db *store.DB, ds *sample.Dataset) error {
	return LoadSampleScaled(ctx, db, ds, 1)
}

// LoadSampleScaled inserts the dataset with scale-1 replicas of its public
// catalogue (see sample.CopyExpert) in one transaction, in batched
// INSERTs. Replicas are made row by row as they are inserted, so memory
// stays that of the dataset whatever the scale.
func LoadSampleScaled(ctx context.Context, db *store.DB, ds *sample.Dataset, scale int) (err error) {
	defer store.Wrap(&err, "load guide sample at scale %d", scale)
	if scale < 1 {
		return fmt.Errorf("scale %d: want 1 or more", scale)
	}
	return db.InTx(ctx, func(tx *sql.Tx) error {
		for _, t := range sampleTables(ds, scale) {
			if err := store.InsertSampleRows(ctx, tx, db.Engine, t, sampleBatchRows); err != nil {
				return err
			}
		}
		return nil
	})
}

// replicas returns the row count and row accessor of rows with scale-1
// replicas made by copy: row i is replica i/len(rows) of rows[i%len(rows)].
func replicas[T any](rows []T, scale int, copy func(T, int) T) (int, func(i int) *T) {
	return len(rows) * scale, func(i int) *T {
		x := copy(rows[i%len(rows)], i/len(rows))
		return &x
	}
}

// sampleTables lists the tables in foreign-key order, the public catalogue
// with scale-1 replicas.
func sampleTables(ds *sample.Dataset, scale int) []store.SampleTable {
	nUsers, user := replicas(ds.Users, scale, sample.CopyUser)
	nExperts, expert := replicas(ds.Experts, scale, sample.CopyExpert)
	nExpertTr, expertTr := replicas(ds.ExpertTranslations, scale, sample.CopyExpertTranslation)
	nLangs, lang := replicas(ds.ExpertLanguages, scale, sample.CopyExpertLanguage)
	nSpecs, spec := replicas(ds.ExpertSpecialties, scale, sample.CopyExpertSpecialty)
	nPackages, pkg := replicas(ds.Packages, scale, sample.CopyPackage)
	nPackageTr, packageTr := replicas(ds.PackageTranslations, scale, sample.CopyPackageTranslation)
	nTravelogues, travelogue := replicas(ds.Travelogues, scale, sample.CopyTravelogue)
	nTravelogueTr, travelogueTr := replicas(ds.TravelogueTranslations, scale, sample.CopyTravelogueTranslation)
	unreadCounts := sampleUnreadCounts(ds)
	return []store.SampleTable{
		{Name: "users", Columns: []string{"id", "handle", "email", "email_normalized", "email_verified", "password_hash", "name", "nickname", "image", "avatar", "bio", "bio_zh", "role", "locale", "created_at", "updated_at"},
			N: nUsers, Row: func(i int) ([]any, error) {
				u := user(i)
				return []any{u.ID, u.Handle, store.SampleArg(u.Email), store.SampleArg(u.EmailNormalized), u.EmailVerified, store.SampleArg(u.PasswordHash), store.SampleArg(u.Name), store.SampleArg(u.Nickname), store.SampleArg(u.Image), store.SampleArg(u.Avatar), store.SampleArg(u.Bio), store.SampleArg(u.BioZh), u.Role, u.Locale, u.CreatedAt, u.UpdatedAt}, nil
			}},
		{Name: "experts", Columns: []string{"id", "user_id", "bio", "location", "country_code", "currency", "profile_image", "cover_image", "hourly_rate", "rating", "review_count", "social_links", "messaging_enabled", "weekly_schedule", "blocked_dates", "timezone", "ai_auto_reply", "ai_instructions", "verified_at", "created_at", "updated_at"},
			N: nExperts, Row: func(i int) ([]any, error) {
				x := expert(i)
				links, err1 := store.SampleJSON(x.SocialLinks, "{}")
				schedule, err2 := store.SampleJSON(x.WeeklySchedule, "{}")
				blocked, err3 := store.SampleJSON(x.BlockedDates, "[]")
				return []any{x.ID, x.UserID, store.SampleArg(x.Bio), store.SampleArg(x.Location), x.CountryCode, x.Currency, store.SampleArg(x.ProfileImage), store.SampleArg(x.CoverImage), store.SampleArg(x.HourlyRate), x.Rating, x.ReviewCount, links, x.MessagingEnabled, schedule, blocked, x.Timezone, x.AIAutoReply, store.SampleArg(x.AIInstructions), store.SampleArg(x.VerifiedAt), x.CreatedAt, x.UpdatedAt}, errors.Join(err1, err2, err3)
			}},
		{Name: "expert_translations", Columns: []string{"expert_id", "locale", "bio"},
			N: nExpertTr, Row: func(i int) ([]any, error) {
				t := expertTr(i)
				return []any{t.ExpertID, t.Locale, store.SampleArg(t.Bio)}, nil
			}},
		{Name: "expert_languages", Columns: []string{"expert_id", "language", "position"},
			N: nLangs, Row: func(i int) ([]any, error) {
				l := lang(i)
				return []any{l.ExpertID, l.Language, l.Position}, nil
			}},
		{Name: "expert_specialties", Columns: []string{"expert_id", "specialty", "position"},
			N: nSpecs, Row: func(i int) ([]any, error) {
				s := spec(i)
				return []any{s.ExpertID, s.Specialty, s.Position}, nil
			}},
		{Name: "packages", Columns: []string{"id", "expert_id", "title", "description", "category", "country_code", "base_price", "currency", "duration", "max_participants", "images", "highlights", "included", "excluded", "meeting_point", "is_active", "created_at", "updated_at"},
			N: nPackages, Row: func(i int) ([]any, error) {
				p := pkg(i)
				images, err1 := store.SampleJSON(p.Images, "[]")
				highlights, err2 := store.SampleJSON(p.Highlights, "[]")
				included, err3 := store.SampleJSON(p.Included, "[]")
				excluded, err4 := store.SampleJSON(p.Excluded, "[]")
				return []any{p.ID, p.ExpertID, p.Title, p.Description, p.Category, p.CountryCode, p.BasePrice, p.Currency, p.Duration, p.MaxParticipants, images, highlights, included, excluded, store.SampleArg(p.MeetingPoint), p.IsActive, p.CreatedAt, p.UpdatedAt}, errors.Join(err1, err2, err3, err4)
			}},
		{Name: "package_translations", Columns: []string{"package_id", "locale", "title", "description", "highlights", "included", "excluded", "meeting_point"},
			N: nPackageTr, Row: func(i int) ([]any, error) {
				t := packageTr(i)
				highlights, err1 := sampleJSONOrNull(t.Highlights)
				included, err2 := sampleJSONOrNull(t.Included)
				excluded, err3 := sampleJSONOrNull(t.Excluded)
				return []any{t.PackageID, t.Locale, store.SampleArg(t.Title), store.SampleArg(t.Description), highlights, included, excluded, store.SampleArg(t.MeetingPoint)}, errors.Join(err1, err2, err3)
			}},
		{Name: "bookings", Columns: []string{"id", "tourist_id", "expert_id", "package_id", "status", "scheduled_date", "scheduled_end_date", "participants", "custom_request", "meeting_location", "price", "currency", "duration", "confirmed_at", "completed_at", "cancelled_at", "cancelled_by", "created_at", "updated_at", "ends_at"},
			N: len(ds.Bookings), Row: func(i int) ([]any, error) {
				b := &ds.Bookings[i]
				return []any{b.ID, b.TouristID, store.SampleArg(b.ExpertID), store.SampleArg(b.PackageID), b.Status, b.ScheduledDate, store.SampleArg(b.ScheduledEndDate), b.Participants, store.SampleArg(b.CustomRequest), store.SampleArg(b.MeetingLocation), store.SampleArg(b.Price), store.SampleArg(b.Currency), store.SampleArg(b.Duration), store.SampleArg(b.ConfirmedAt), store.SampleArg(b.CompletedAt), store.SampleArg(b.CancelledAt), store.SampleArg(b.CancelledBy), b.CreatedAt, b.UpdatedAt,
					guide.BookingEnd(b.ScheduledDate, b.ScheduledEndDate, b.Duration)}, nil
			}},
		{Name: "reviews", Columns: []string{"id", "booking_id", "expert_id", "author_id", "rating", "comment", "created_at"},
			N: len(ds.Reviews), Row: func(i int) ([]any, error) {
				r := &ds.Reviews[i]
				return []any{r.ID, r.BookingID, r.ExpertID, r.AuthorID, r.Rating, store.SampleArg(r.Comment), r.CreatedAt}, nil
			}},
		{Name: "travelogues", Columns: []string{"id", "slug", "author_id", "title", "excerpt", "content", "cover_image", "category", "location_tags", "images", "score", "view_count", "comment_count", "hot_score", "status", "published_at", "created_at", "updated_at"},
			N: nTravelogues, Row: func(i int) ([]any, error) {
				t := travelogue(i)
				tags, err1 := store.SampleJSON(t.LocationTags, "[]")
				images, err2 := store.SampleJSON(t.Images, "[]")
				return []any{t.ID, t.Slug, t.AuthorID, t.Title, store.SampleArg(t.Excerpt), t.Content, store.SampleArg(t.CoverImage), t.Category, tags, images, t.Score, t.ViewCount, t.CommentCount, t.HotScore, t.Status, store.SampleArg(t.PublishedAt), t.CreatedAt, t.UpdatedAt}, errors.Join(err1, err2)
			}},
		{Name: "travelogue_translations", Columns: []string{"travelogue_id", "locale", "title", "excerpt", "content"},
			N: nTravelogueTr, Row: func(i int) ([]any, error) {
				t := travelogueTr(i)
				return []any{t.TravelogueID, t.Locale, store.SampleArg(t.Title), store.SampleArg(t.Excerpt), store.SampleArg(t.Content)}, nil
			}},
		{Name: "conversations", Columns: []string{"id", "tourist_id", "expert_id", "last_message", "last_message_at", "created_at", "updated_at", "tourist_unread", "expert_unread"},
			N: len(ds.Conversations), Row: func(i int) ([]any, error) {
				c := &ds.Conversations[i]
				n := unreadCounts[c.ID]
				return []any{c.ID, c.TouristID, c.ExpertID, store.SampleArg(c.LastMessage), store.SampleArg(c.LastMessageAt), c.CreatedAt, c.UpdatedAt, n[0], n[1]}, nil
			}},
		{Name: "messages", Columns: []string{"id", "conversation_id", "sender_id", "message_type", "content", "image_url", "image_width", "image_height", "is_read", "is_ai_generated", "realtime_message_id", "created_at"},
			N: len(ds.Messages), Row: func(i int) ([]any, error) {
				m := &ds.Messages[i]
				return []any{m.ID, m.ConversationID, m.SenderID, m.MessageType, store.SampleArg(m.Content), store.SampleArg(m.ImageURL), store.SampleArg(m.ImageWidth), store.SampleArg(m.ImageHeight), m.IsRead, m.IsAIGenerated, store.SampleArg(m.RealtimeMessageID), m.CreatedAt}, nil
			}},
	}
}

// sampleUnreadCounts returns each conversation's unread messages from the
// expert and from the traveller: its tourist_unread and expert_unread.
func sampleUnreadCounts(ds *sample.Dataset) map[string][2]int {
	expertUser := map[string]string{}
	for _, x := range ds.Experts {
		expertUser[x.ID] = x.UserID
	}
	sides := map[string][2]string{}
	for _, c := range ds.Conversations {
		sides[c.ID] = [2]string{c.TouristID, expertUser[c.ExpertID]}
	}
	counts := map[string][2]int{}
	for _, m := range ds.Messages {
		if m.IsRead {
			continue
		}
		side, n := sides[m.ConversationID], counts[m.ConversationID]
		n[0] += unread(m.SenderID != side[0])
		n[1] += unread(m.SenderID != side[1])
		counts[m.ConversationID] = n
	}
	return counts
}

// sampleJSONOrNull is s as JSON text, or nil (SQL NULL) when s is nil.
func sampleJSONOrNull(s []string) (any, error) {
	if s == nil {
		return nil, nil
	}
	return store.SampleJSON(s, "[]")
}
