package guidedb

import (
	"context"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// DemoEmails are the sample accounts that DEMO_PASSWORD unlocks.
var DemoEmails = []string{"traveller@example.com", "expert@example.com", "admin@example.com"}

// SetDemoPasswords gives the demo accounts the password hash, or takes
// their passwords away when hash is empty, so that whether they can log in
// follows DEMO_PASSWORD at every start, not only when the sample is loaded.
func (g *Guide) SetDemoPasswords(ctx context.Context, hash string) (err error) {
	defer store.Wrap(&err, "set demo passwords")
	var value any
	if hash != "" {
		value = hash
	}
	_, err = g.db.ExecContext(ctx, `UPDATE users SET password_hash = $1, updated_at = $2
		WHERE email_normalized IN ($3, $4, $5) AND deleted_at IS NULL`,
		value, g.clock.Now(), DemoEmails[0], DemoEmails[1], DemoEmails[2])
	return err
}
