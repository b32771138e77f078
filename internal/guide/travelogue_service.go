package guide

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/field"
	"github.com/wayfarer-asia/platform/internal/platform/media"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
)

// Travelogue authoring: any signed-in person writes travelogues, as
// drafts that only they see, and publishes them into the public lists.
// Only the person writes them (no API key scope does), and only the
// author changes one.

// Bounds of the texts of a travelogue, in characters.
const (
	maxTravelogueTitle   = 200
	maxTravelogueExcerpt = 500
	maxLocationTag       = 50
)

// TravelogueFields is the body of a travelogue create or update: absent
// fields stay as they are. Title, Excerpt and Content map locales to
// text; on update, the locales sent replace theirs. A null title or
// content removes the locale's translation (English cannot be removed); a
// null excerpt removes the excerpt alone.
type TravelogueFields struct {
	Title        field.Optional[map[string]*string] `json:"title"`
	Excerpt      field.Optional[map[string]*string] `json:"excerpt"`
	Content      field.Optional[map[string]*string] `json:"content"`
	Category     field.Optional[string]             `json:"category"`
	LocationTags field.Optional[[]string]           `json:"locationTags"`
	CoverImage   field.Optional[string]             `json:"coverImage"`
	Images       field.Optional[[]string]           `json:"images"`
}

// applyTravelogueFields checks the sent fields and sets them on c; on
// create title, content and category are required.
func (s *Service) applyTravelogueFields(in *TravelogueFields, c *TravelogueContent, create bool, errs apperr.FieldErrors) {
	texts := map[string]TravelogueText{}
	for k, v := range c.Translations {
		texts[k] = v
	}
	for _, f := range []struct {
		name     string
		o        field.Optional[map[string]*string]
		required bool
		set      func(at string, t *TravelogueText, v *string)
	}{
		{"title", in.Title, true, func(at string, t *TravelogueText, v *string) {
			t.Title = field.CheckString(errs, at, v, true, 1, maxTravelogueTitle)
		}},
		{"excerpt", in.Excerpt, false, func(at string, t *TravelogueText, v *string) {
			t.Excerpt = nil
			if v != nil {
				if e := field.CheckString(errs, at, v, false, 0, maxTravelogueExcerpt); e != "" {
					t.Excerpt = &e
				}
			}
		}},
		{"content", in.Content, true, func(at string, t *TravelogueText, v *string) {
			raw := field.CheckString(errs, at, v, true, 1, MaxTravelogueContent)
			if raw == "" {
				return
			}
			clean, ok := s.sanitizeContent(raw)
			if !ok {
				errs.Add(at, "has nothing to read once cleaned of what content may not hold (scripts, styles, frames, images from elsewhere)")
			}
			t.Content = clean
		}},
	} {
		if !f.o.Required(errs, f.name, create && f.required) {
			continue
		}
		for loc, v := range *f.o.Value {
			at := f.name + "." + loc
			if !slices.Contains(Locales, loc) {
				errs.Add(at, "unknown locale: use "+strings.Join(Locales, ", "))
				continue
			}
			if _, had := texts[loc]; v == nil && !f.required && !had {
				continue // no translation to take the excerpt from
			}
			if v == nil && f.required {
				if loc == DefaultLocale {
					errs.Add(at, "English is required")
				}
				delete(texts, loc)
				continue
			}
			t := texts[loc]
			f.set(at, &t, v)
			texts[loc] = t
		}
	}
	for loc, t := range texts {
		if loc != DefaultLocale && (t.Title == "" || t.Content == "") {
			errs.Add("title."+loc, "a translation needs both title and content")
		}
	}
	if en := texts[DefaultLocale]; en.Title == "" || en.Content == "" {
		errs.Add("title.en", "the English title and content are required")
	}
	c.Translations = texts
	if in.Category.Required(errs, "category", create) {
		if v := *in.Category.Value; !slices.Contains(TravelogueCategories, v) {
			errs.Add("category", "must be one of "+strings.Join(TravelogueCategories, ", "))
		} else {
			c.Category = v
		}
	}
	if in.LocationTags.Set || create {
		c.LocationTags = []string{}
		var tags []string
		if in.LocationTags.Value != nil {
			tags = *in.LocationTags.Value
		}
		if len(tags) > MaxTravelogueLocationTags {
			errs.Add("locationTags", fmt.Sprintf("at most %d tags", MaxTravelogueLocationTags))
		}
		for i, tag := range tags {
			at := fmt.Sprintf("locationTags[%d]", i)
			v := field.CheckString(errs, at, &tag, true, 1, maxLocationTag)
			if slices.ContainsFunc(c.LocationTags, func(t string) bool { return strings.EqualFold(t, v) }) {
				errs.Add(at, "is listed twice")
				continue
			}
			c.LocationTags = append(c.LocationTags, v)
		}
	}
	if in.Images.Set || create {
		had := c.Images
		c.Images = media.CheckRefs(errs, "images", s.PublicURL, in.Images.Value, MaxTravelogueImages)
		// An upload can be kept, moved or dropped, never added here: not
		// another travelogue's, nor one dropped (its file is on its way out).
		for _, img := range c.Images {
			if strings.HasPrefix(img, TravelogueUploadsPrefix) && !slices.Contains(had, img) {
				errs.Add("images", ForeignTravelogueImage)
			}
		}
	}
	if in.CoverImage.Set {
		c.CoverImage = nil
		if in.CoverImage.Value != nil {
			if refs := media.CheckRefs(errs, "coverImage", s.PublicURL, &[]string{*in.CoverImage.Value}, 1); len(refs) == 1 {
				c.CoverImage = &refs[0]
			}
		}
	}
	// The uploads the cover and the content show are among the images,
	// so that dropping an image never leaves them pointing at a removed
	// file.
	if c.CoverImage != nil && strings.HasPrefix(*c.CoverImage, TravelogueUploadsPrefix) && !slices.Contains(c.Images, *c.CoverImage) {
		errs.Add("coverImage", "an uploaded image that is not among this travelogue's images")
	}
	for loc, t := range c.Translations {
		for _, img := range uploadsIn(t.Content) {
			if !slices.Contains(c.Images, img) {
				errs.Add("content."+loc, "shows an uploaded image that is not among this travelogue's images: "+img)
				break
			}
		}
	}
}

// checkSlug returns slug as travelogues spell theirs (lower case), or
// apperr.NotFound when it cannot be one.
func checkSlug(slug string) (string, error) {
	if slug == "" || len(slug) > field.MaxKey || strings.Trim(strings.ToLower(slug), "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return "", apperr.Errorf(apperr.NotFound, "No travelogue with slug %q.", slug)
	}
	return strings.ToLower(slug), nil
}

// CreateTravelogue creates a draft travelogue of the caller's, with a
// slug made of its English title (TravelogueSlug; "-2", "-3"… when
// taken), which never changes. Errors: apperr.Unauthorized,
// apperr.Forbidden (an API key), apperr.Validation.
func (s *Service) CreateTravelogue(ctx context.Context, c *Caller, in TravelogueFields) (*AuthorTravelogue, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	errs := apperr.FieldErrors{}
	var content TravelogueContent
	s.applyTravelogueFields(&in, &content, true, errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s.Authoring.CreateTravelogue(ctx, c.User, TravelogueSlug(content.Translations[DefaultLocale].Title), content)
}

// UpdateTravelogue changes the fields sent of a travelogue of the
// caller's; a published one stays published, changed. Errors:
// apperr.Unauthorized, apperr.Forbidden (an API key, or another's
// published travelogue), apperr.NotFound (no such travelogue, or
// another's draft), apperr.Validation.
func (s *Service) UpdateTravelogue(ctx context.Context, c *Caller, slug string, in TravelogueFields) (*AuthorTravelogue, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	slug, err := checkSlug(slug)
	if err != nil {
		return nil, err
	}
	return s.Authoring.UpdateTravelogue(ctx, c.User, slug, func(content *TravelogueContent) error {
		errs := apperr.FieldErrors{}
		s.applyTravelogueFields(&in, content, false, errs)
		return errs.Err()
	})
}

// PublishTravelogue puts a travelogue of the caller's in the public
// lists. Its publishedAt is the time of its first publication, kept when
// it is taken back and published again, so that republishing does not
// lift it above newer stories. Publishing a published travelogue answers
// it unchanged. Errors: as UpdateTravelogue's, but apperr.Validation.
func (s *Service) PublishTravelogue(ctx context.Context, c *Caller, slug string) (*AuthorTravelogue, error) {
	return s.setTravelogueStatus(ctx, c, slug, TraveloguePublished)
}

// UnpublishTravelogue takes a travelogue of the caller's out of the
// public lists, back to a draft only the author sees. Errors: as
// PublishTravelogue's.
func (s *Service) UnpublishTravelogue(ctx context.Context, c *Caller, slug string) (*AuthorTravelogue, error) {
	return s.setTravelogueStatus(ctx, c, slug, TravelogueDraft)
}

func (s *Service) setTravelogueStatus(ctx context.Context, c *Caller, slug, status string) (*AuthorTravelogue, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	slug, err := checkSlug(slug)
	if err != nil {
		return nil, err
	}
	return s.Authoring.SetTravelogueStatus(ctx, c.User, slug, status)
}

// MyTravelogue returns a travelogue of the caller's as its author sees
// it, every translation included. Errors: as UpdateTravelogue's, but
// apperr.Validation.
func (s *Service) MyTravelogue(ctx context.Context, c *Caller, slug string) (*AuthorTravelogue, error) {
	if err := checkPerson(c); err != nil {
		return nil, err
	}
	slug, err := checkSlug(slug)
	if err != nil {
		return nil, err
	}
	return s.Authoring.FindAuthorTravelogue(ctx, c.User, slug)
}

// MyTravelogues lists the caller's travelogues, drafts included, the
// last changed first (order asc: the least recently changed first).
// Errors: apperr.Unauthorized, apperr.Forbidden (an API key),
// apperr.Validation.
func (s *Service) MyTravelogues(ctx context.Context, c *Caller, in PageArgs) ([]AuthorTravelogueSummary, paging.Meta, error) {
	if err := checkPerson(c); err != nil {
		return nil, paging.Meta{}, err
	}
	errs := apperr.FieldErrors{}
	p := in.check(errs)
	if err := errs.Err(); err != nil {
		return nil, paging.Meta{}, err
	}
	list, total, err := s.Authoring.FindAuthorTravelogues(ctx, c.User, p)
	if err != nil {
		return nil, paging.Meta{}, err
	}
	return list, paging.NewMeta(p, total), nil
}

// ForeignTravelogueImage and ErrTravelogueImagesFull are a travelogue's
// ForeignPackageImage and ErrPackageImagesFull.
const ForeignTravelogueImage = "an uploaded image that is not this travelogue's; upload it to this travelogue first"

var ErrTravelogueImagesFull = apperr.Errorf(apperr.Conflict,
	"The travelogue has %d images, the most it may have: drop one first.", MaxTravelogueImages)

// CheckTravelogueImage tells, before an upload is read, whether the
// caller may add an image to the travelogue now: whose travelogue, and
// room for one more (checked again when it is added). It returns the
// slug in its canonical form. Errors: as UpdateTravelogue's, but
// apperr.Validation; apperr.Conflict (the travelogue has
// MaxTravelogueImages images).
func (s *Service) CheckTravelogueImage(ctx context.Context, c *Caller, slug string) (string, error) {
	t, err := s.MyTravelogue(ctx, c, slug)
	if err != nil {
		return "", err
	}
	if len(t.Images) >= MaxTravelogueImages {
		return "", ErrTravelogueImagesFull
	}
	return t.Slug, nil
}

// AddTravelogueImage adds img, an uploaded image already sanitised, to
// the travelogue's images, and returns the travelogue and the image's
// path on the API ("/media/…"). Errors: those of CheckTravelogueImage.
func (s *Service) AddTravelogueImage(ctx context.Context, c *Caller, slug string, img *media.Image) (*AuthorTravelogue, string, error) {
	t, err := s.MyTravelogue(ctx, c, slug)
	if err != nil {
		return nil, "", err
	}
	// A key of its own for every upload, under the travelogue's id (its
	// slug never changes either): a dropped image's file is removed later,
	// by a job, and must not be one uploaded again meanwhile.
	key := "travelogues/" + t.ID + "/" + uuid.Must(uuid.NewV7()).String() + img.Ext()
	if err := s.Blobs.Put(ctx, key, img.Data, img.ContentType); err != nil {
		return nil, "", err
	}
	path := "/media/" + key
	out, err := s.Authoring.UpdateTravelogue(ctx, c.User, t.Slug, func(content *TravelogueContent) error {
		if len(content.Images) >= MaxTravelogueImages {
			return ErrTravelogueImagesFull
		}
		content.Images = append(content.Images, path)
		return nil
	})
	if err != nil {
		// Nothing refers to the file: its key is this request's.
		if derr := s.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.Logger.WarnContext(ctx, "refused travelogue image not removed", "key", key, "err", derr)
		}
		return nil, "", err
	}
	return out, path, nil
}
