package guidedb

import (
	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/oauth"
)

// grantRateLimit is a grant's budget, as an API key's default.
const grantRateLimit = 300

// grantTable: a person's grants are their keys, metered as keys are by
// default, whose pending actions are the person's alone to confirm, and
// which stop when the account closes.
var grantTable = oauth.KeyTable{
	Owner: "user_id",
	Set:   []oauth.Column{{Name: "rate_limit", Value: grantRateLimit}, {Name: "confirmation", Value: guide.ConfirmPerson}},
	Open:  `EXISTS (SELECT 1 FROM users u WHERE u.id = k.user_id AND u.deleted_at IS NULL)`,
}

var _ oauth.Grants = (*Guide)(nil)
