package guide

import (
	"context"
	"strings"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

// Profile returns the caller's own profile. Errors: apperr.Unauthorized,
// apperr.NotFound.
func (s *Service) Profile(ctx context.Context, c *Caller) (*Profile, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	return s.Profiles.FindProfile(ctx, c.User.ID)
}

// UpdateProfile changes the fields u names, their values as sent: each is
// trimmed, must not be blank (a nil Value clears the field) and is
// bounded. Errors: apperr.Unauthorized, apperr.Validation, apperr.NotFound.
func (s *Service) UpdateProfile(ctx context.Context, c *Caller, u ProfileUpdate) (*Profile, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var out ProfileUpdate
	for _, f := range []struct {
		name string
		max  int
		in   *Change
		out  **Change
	}{
		{"name", 100, u.Name, &out.Name},
		{"nickname", 50, u.Nickname, &out.Nickname},
		{"bio", 500, u.Bio, &out.Bio},
		{"bioZh", 500, u.BioZh, &out.BioZh},
	} {
		if f.in == nil {
			continue
		}
		c := &Change{}
		if f.in.Value != nil {
			v := strings.TrimSpace(*f.in.Value)
			if v == "" {
				errs.Add(f.name, "must not be blank; send null to clear it")
			}
			field.CheckString(errs, f.name, &v, false, 1, f.max)
			c.Value = &v
		}
		*f.out = c
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Profiles.UpdateProfile(ctx, c.User.ID, out)
}

// SetAvatar makes img, an uploaded image already sanitised, the caller's
// avatar, and removes the file of the one it replaces. It returns the
// avatar's path on the API ("/media/…"). Errors: apperr.Unauthorized,
// apperr.NotFound.
func (s *Service) SetAvatar(ctx context.Context, c *Caller, img *media.Image) (string, error) {
	if err := checkCaller(c); err != nil {
		return "", err
	}
	key := img.Key("avatars/" + c.User.ID)
	if err := s.Blobs.Put(ctx, key, img.Data, img.ContentType); err != nil {
		return "", err
	}
	// Only the path is stored: the URL is made on the public base URL
	// whenever the avatar is shown.
	path := "/media/" + key
	old, err := s.Profiles.SetAvatar(ctx, c.User.ID, path, key)
	if err != nil {
		return "", err
	}
	if old != "" {
		if err := s.Blobs.Delete(ctx, old); err != nil {
			// The new avatar is in place; a leftover file is only litter.
			s.Logger.WarnContext(ctx, "old avatar not removed", "key", old, "err", err)
		}
	}
	return path, nil
}
