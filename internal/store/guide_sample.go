package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide/sample"
)

// sampleBatchRows is how many rows one INSERT carries. The widest table
// (experts, 21 columns) stays far below both engines' parameter limits.
const sampleBatchRows = 100

// GuideIsEmpty reports whether the guide database has no users, that is,
// whether the sample data may be loaded.
func GuideIsEmpty(ctx context.Context, db *DB) (bool, error) {
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM users)").Scan(&exists); err != nil {
		return false, fmt.Errorf("count users: %w", err)
	}
	return !exists, nil
}

// LoadGuideSample inserts the whole dataset in one transaction: either all
// of it is stored or none. It expects an empty database; rows that already
// exist make it fail on their unique keys.
func LoadGuideSample(ctx context.Context, db *DB, ds *sample.Dataset) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		for _, t := range sampleTables(ds) {
			if err := insertSampleRows(ctx, tx, t, sampleBatchRows); err != nil {
				return err
			}
		}
		return nil
	})
}

// sampleTable is a table's rows as SQL arguments, in column order.
type sampleTable struct {
	name    string
	columns []string
	n       int
	row     func(i int) ([]any, error)
}

// sampleTables lists the tables in foreign-key order.
func sampleTables(ds *sample.Dataset) []sampleTable {
	return []sampleTable{
		{"users", []string{"id", "handle", "email", "email_normalized", "email_verified", "password_hash", "name", "nickname", "image", "avatar", "bio", "bio_zh", "role", "locale", "created_at", "updated_at"},
			len(ds.Users), func(i int) ([]any, error) {
				u := &ds.Users[i]
				return []any{u.ID, u.Handle, sampleArg(u.Email), sampleArg(u.EmailNormalized), u.EmailVerified, sampleArg(u.PasswordHash), sampleArg(u.Name), sampleArg(u.Nickname), sampleArg(u.Image), sampleArg(u.Avatar), sampleArg(u.Bio), sampleArg(u.BioZh), u.Role, u.Locale, u.CreatedAt, u.UpdatedAt}, nil
			}},
		{"experts", []string{"id", "user_id", "bio", "location", "country_code", "currency", "profile_image", "cover_image", "hourly_rate", "rating", "review_count", "social_links", "messaging_enabled", "weekly_schedule", "blocked_dates", "timezone", "ai_auto_reply", "ai_instructions", "verified_at", "created_at", "updated_at"},
			len(ds.Experts), func(i int) ([]any, error) {
				x := &ds.Experts[i]
				links, err1 := sampleJSON(x.SocialLinks, "{}")
				schedule, err2 := sampleJSON(x.WeeklySchedule, "{}")
				blocked, err3 := sampleJSON(x.BlockedDates, "[]")
				return []any{x.ID, x.UserID, sampleArg(x.Bio), sampleArg(x.Location), x.CountryCode, x.Currency, sampleArg(x.ProfileImage), sampleArg(x.CoverImage), sampleArg(x.HourlyRate), x.Rating, x.ReviewCount, links, x.MessagingEnabled, schedule, blocked, x.Timezone, x.AIAutoReply, sampleArg(x.AIInstructions), sampleArg(x.VerifiedAt), x.CreatedAt, x.UpdatedAt}, firstSampleErr(err1, err2, err3)
			}},
		{"expert_translations", []string{"expert_id", "locale", "bio"},
			len(ds.ExpertTranslations), func(i int) ([]any, error) {
				t := &ds.ExpertTranslations[i]
				return []any{t.ExpertID, t.Locale, sampleArg(t.Bio)}, nil
			}},
		{"expert_languages", []string{"expert_id", "language", "position"},
			len(ds.ExpertLanguages), func(i int) ([]any, error) {
				l := &ds.ExpertLanguages[i]
				return []any{l.ExpertID, l.Language, l.Position}, nil
			}},
		{"expert_specialties", []string{"expert_id", "specialty", "position"},
			len(ds.ExpertSpecialties), func(i int) ([]any, error) {
				s := &ds.ExpertSpecialties[i]
				return []any{s.ExpertID, s.Specialty, s.Position}, nil
			}},
		{"packages", []string{"id", "expert_id", "title", "description", "category", "country_code", "base_price", "currency", "duration", "max_participants", "images", "highlights", "included", "excluded", "meeting_point", "is_active", "created_at", "updated_at"},
			len(ds.Packages), func(i int) ([]any, error) {
				p := &ds.Packages[i]
				images, err1 := sampleJSON(p.Images, "[]")
				highlights, err2 := sampleJSON(p.Highlights, "[]")
				included, err3 := sampleJSON(p.Included, "[]")
				excluded, err4 := sampleJSON(p.Excluded, "[]")
				return []any{p.ID, p.ExpertID, p.Title, p.Description, p.Category, p.CountryCode, p.BasePrice, p.Currency, p.Duration, p.MaxParticipants, images, highlights, included, excluded, sampleArg(p.MeetingPoint), p.IsActive, p.CreatedAt, p.UpdatedAt}, firstSampleErr(err1, err2, err3, err4)
			}},
		{"package_translations", []string{"package_id", "locale", "title", "description", "highlights", "included", "excluded", "meeting_point"},
			len(ds.PackageTranslations), func(i int) ([]any, error) {
				t := &ds.PackageTranslations[i]
				highlights, err1 := sampleJSONOrNull(t.Highlights)
				included, err2 := sampleJSONOrNull(t.Included)
				excluded, err3 := sampleJSONOrNull(t.Excluded)
				return []any{t.PackageID, t.Locale, sampleArg(t.Title), sampleArg(t.Description), highlights, included, excluded, sampleArg(t.MeetingPoint)}, firstSampleErr(err1, err2, err3)
			}},
		{"bookings", []string{"id", "tourist_id", "expert_id", "package_id", "status", "scheduled_date", "scheduled_end_date", "participants", "custom_request", "meeting_location", "price", "currency", "duration", "confirmed_at", "completed_at", "cancelled_at", "cancelled_by", "created_at", "updated_at"},
			len(ds.Bookings), func(i int) ([]any, error) {
				b := &ds.Bookings[i]
				return []any{b.ID, b.TouristID, sampleArg(b.ExpertID), sampleArg(b.PackageID), b.Status, b.ScheduledDate, sampleArg(b.ScheduledEndDate), b.Participants, sampleArg(b.CustomRequest), sampleArg(b.MeetingLocation), sampleArg(b.Price), sampleArg(b.Currency), sampleArg(b.Duration), sampleArg(b.ConfirmedAt), sampleArg(b.CompletedAt), sampleArg(b.CancelledAt), sampleArg(b.CancelledBy), b.CreatedAt, b.UpdatedAt}, nil
			}},
		{"reviews", []string{"id", "booking_id", "expert_id", "author_id", "rating", "comment", "created_at"},
			len(ds.Reviews), func(i int) ([]any, error) {
				r := &ds.Reviews[i]
				return []any{r.ID, r.BookingID, r.ExpertID, r.AuthorID, r.Rating, sampleArg(r.Comment), r.CreatedAt}, nil
			}},
		{"travelogues", []string{"id", "slug", "author_id", "title", "excerpt", "content", "cover_image", "category", "location_tags", "images", "score", "view_count", "comment_count", "hot_score", "status", "published_at", "created_at", "updated_at"},
			len(ds.Travelogues), func(i int) ([]any, error) {
				t := &ds.Travelogues[i]
				tags, err1 := sampleJSON(t.LocationTags, "[]")
				images, err2 := sampleJSON(t.Images, "[]")
				return []any{t.ID, t.Slug, t.AuthorID, t.Title, sampleArg(t.Excerpt), t.Content, sampleArg(t.CoverImage), t.Category, tags, images, t.Score, t.ViewCount, t.CommentCount, t.HotScore, t.Status, sampleArg(t.PublishedAt), t.CreatedAt, t.UpdatedAt}, firstSampleErr(err1, err2)
			}},
		{"travelogue_translations", []string{"travelogue_id", "locale", "title", "excerpt", "content"},
			len(ds.TravelogueTranslations), func(i int) ([]any, error) {
				t := &ds.TravelogueTranslations[i]
				return []any{t.TravelogueID, t.Locale, sampleArg(t.Title), sampleArg(t.Excerpt), sampleArg(t.Content)}, nil
			}},
		{"conversations", []string{"id", "tourist_id", "expert_id", "last_message", "last_message_at", "created_at", "updated_at"},
			len(ds.Conversations), func(i int) ([]any, error) {
				c := &ds.Conversations[i]
				return []any{c.ID, c.TouristID, c.ExpertID, sampleArg(c.LastMessage), sampleArg(c.LastMessageAt), c.CreatedAt, c.UpdatedAt}, nil
			}},
		{"messages", []string{"id", "conversation_id", "sender_id", "message_type", "content", "image_url", "image_width", "image_height", "is_read", "is_ai_generated", "realtime_message_id", "created_at"},
			len(ds.Messages), func(i int) ([]any, error) {
				m := &ds.Messages[i]
				return []any{m.ID, m.ConversationID, m.SenderID, m.MessageType, sampleArg(m.Content), sampleArg(m.ImageURL), sampleArg(m.ImageWidth), sampleArg(m.ImageHeight), m.IsRead, m.IsAIGenerated, sampleArg(m.RealtimeMessageID), m.CreatedAt}, nil
			}},
	}
}

// insertSampleRows inserts the table's rows with multi-row INSERTs of up to
// batch rows.
func insertSampleRows(ctx context.Context, tx *sql.Tx, t sampleTable, batch int) error {
	for start := 0; start < t.n; start += batch {
		end := min(start+batch, t.n)
		var q strings.Builder
		q.WriteString("INSERT INTO " + t.name + " (" + strings.Join(t.columns, ", ") + ") VALUES ")
		args := make([]any, 0, (end-start)*len(t.columns))
		for i := start; i < end; i++ {
			row, err := t.row(i)
			if err != nil {
				return fmt.Errorf("%s row %d: %w", t.name, i, err)
			}
			if len(row) != len(t.columns) {
				return fmt.Errorf("%s row %d: %d values for %d columns", t.name, i, len(row), len(t.columns))
			}
			if i > start {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for j := range row {
				if j > 0 {
					q.WriteString(", ")
				}
				q.WriteString("$" + strconv.Itoa(len(args)+j+1))
			}
			q.WriteByte(')')
			args = append(args, row...)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("insert %s rows %d-%d: %w", t.name, start, end-1, err)
		}
	}
	return nil
}

// sampleArg turns a nullable field into a driver argument: nil for NULL, else
// the value itself.
func sampleArg[T string | int | float64 | time.Time](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// sampleJSON is v as JSON text, or empty (for example "[]") when v is a nil
// slice or map.
func sampleJSON(v any, empty string) (string, error) {
	s, err := sampleJSONText(v)
	if s == "null" {
		s = empty
	}
	return s, err
}

// sampleJSONOrNull is s as JSON text, or nil (SQL NULL) when s is nil.
func sampleJSONOrNull(s []string) (any, error) {
	if s == nil {
		return nil, nil
	}
	return sampleJSONText(s)
}

// sampleJSONText marshals v without escaping HTML characters.
func sampleJSONText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func firstSampleErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
