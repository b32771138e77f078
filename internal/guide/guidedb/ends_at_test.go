package guidedb_test

import (
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestBookingEndsAtForPreviousRelease: the release before ends_at inserts
// bookings without it (while a fleet rolls, or after a rollback); each is
// given the end the current release would have written: its end, else
// its duration, else an hour.
func TestBookingEndsAtForPreviousRelease(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			start := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
			end := start.Add(90 * time.Minute)
			for _, tc := range []struct {
				id       string
				end      *time.Time
				duration any
				want     time.Time
			}{
				{"0196a000-0000-7000-8000-000000000001", &end, 4, end},
				{"0196a000-0000-7000-8000-000000000002", nil, 3, start.Add(3 * time.Hour)},
				{"0196a000-0000-7000-8000-000000000003", nil, nil, start.Add(time.Hour)},
			} {
				// The previous release's statement, without ends_at.
				_, err := db.ExecContext(t.Context(), `INSERT INTO bookings (id, tourist_id, expert_id, package_id, status, scheduled_date,
						scheduled_end_date, participants, duration, created_at, updated_at)
					SELECT $1, tourist_id, expert_id, NULL, 'PENDING', $2, $3, 1, $4, $5, $5 FROM bookings LIMIT 1`,
					tc.id, start, tc.end, tc.duration, start.Add(-time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				var got time.Time
				if err := db.QueryRowContext(t.Context(), `SELECT ends_at FROM bookings WHERE id = $1`, tc.id).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if !got.Equal(tc.want) {
					t.Errorf("%s: ends_at %v, want %v", tc.id, got, tc.want)
				}
			}
		})
	}
}
