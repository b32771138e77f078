package guide

import (
	"context"
	"slices"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

var errNotAdmin = apperr.Errorf(apperr.Forbidden, "This endpoint is for the marketplace's admins, signed in with a user token.")

// IsAdmin reports whether u is one of the deployment's admins: an account
// with the ADMIN role (the sample data's demo admin) or whose e-mail
// address is in the configured list (ADMIN_EMAILS), so an empty deployment
// names its first admins without touching the database. The list is read
// at every request: taking an address off it ends that account's rights
// at once. Account e-mails are trustworthy for this: an
// identity provider's unverified address never becomes an account's
// e-mail, and an address belongs to one account only.
func (s *Service) IsAdmin(u *User) bool {
	return u != nil && (u.Role == RoleAdmin || u.Email != nil && slices.ContainsFunc(s.AdminEmails, func(e string) bool { return strings.EqualFold(e, *u.Email) }))
}

// checkAdmin admits an admin who signed in with a user token (or the web
// session): never an API key, an MCP call or an OAuth grant, so no agent
// credential reaches admin work.
func (s *Service) checkAdmin(c *Caller) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	if c.APIKey != nil || c.MCP || !s.IsAdmin(c.User) {
		return errNotAdmin
	}
	return nil
}

// AuditSearch selects audit entries as a door receives it.
type AuditSearch struct {
	PageArgs
	TargetType string
	TargetID   string
}

// AuditLog returns admins' actions, newest first. Errors:
// apperr.Unauthorized, apperr.Forbidden (not an admin), apperr.Validation.
func (s *Service) AuditLog(ctx context.Context, c *Caller, in AuditSearch) ([]AuditEntry, paging.Meta, error) {
	if err := s.checkAdmin(c); err != nil {
		return nil, paging.Meta{}, err
	}
	errs := apperr.FieldErrors{}
	f := AuditFilter{Page: in.check(errs),
		TargetType: field.CheckString(errs, "targetType", &in.TargetType, false, 0, 40),
		TargetID:   field.CheckString(errs, "targetId", &in.TargetID, false, 0, 100)}
	if (f.TargetType == "") != (f.TargetID == "") {
		errs.Add("targetId", "targetType and targetId go together")
	}
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	entries, total, err := s.Admin.FindAuditEntries(ctx, f)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return entries, paging.NewMeta(f.Page, total), nil
}
