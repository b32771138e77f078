package propertydb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
	"github.com/wayfarer-asia/platform/internal/platform/store"
	"github.com/wayfarer-asia/platform/internal/property"
)

// grantTable: a developer's grants are keys of the account, metered and
// counted as any of its keys.
var grantTable = oauth.KeyTable{Owner: "developer_id"}

var _ oauth.Grants = (*Property)(nil)

// FindGrant returns a working grant.
func (s *Property) FindGrant(ctx context.Context, id string) (_ *property.Key, err error) {
	defer store.Wrap(&err, "find OAuth grant %s", id)
	var k property.Key
	err = scanPropertyKey(s.db.QueryRowContext(ctx, `SELECT `+propertyKeyColumns+` FROM api_keys k
		WHERE k.id = $1 AND k.oauth_client_id IS NOT NULL AND `+propertyWorkingKey, id, s.clock.Now()), &k)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.Unauthorized, "The access token's grant was revoked.")
	} else if err != nil {
		return nil, err
	}
	return &k, nil
}
