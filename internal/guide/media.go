package guide

// Image references are stored as paths on the API ("/media/…") or, for an
// image a client linked to, as its URL. MediaRefs hands each non-nil one of
// a value to f, which the API uses to show them as absolute URLs on its
// public base URL (media.Resolve). The references are shared with
// the value, so value receivers suffice.

func refs(f func(*string), ptrs ...*string) {
	for _, p := range ptrs {
		if p != nil {
			f(p)
		}
	}
}

func refList(f func(*string), list []string) {
	for i := range list {
		f(&list[i])
	}
}

// MediaRefs calls f with the user's picture and avatar.
func (u User) MediaRefs(f func(*string)) { refs(f, u.Image, u.Avatar) }

// MediaRefs calls f with the expert's avatar and profile image.
func (x ExpertSummary) MediaRefs(f func(*string)) { refs(f, x.Avatar, x.ProfileImage) }

// MediaRefs calls f with the expert's avatar, profile and cover images.
func (x ExpertDetail) MediaRefs(f func(*string)) {
	x.ExpertSummary.MediaRefs(f)
	refs(f, x.CoverImage)
}

// MediaRefs calls f with the package's images.
func (p PackageSummary) MediaRefs(f func(*string)) { refList(f, p.Images) }

// MediaRefs calls f with the package's images.
func (p PackageDetail) MediaRefs(f func(*string)) { p.PackageSummary.MediaRefs(f) }

// MediaRefs calls f with the author's avatar.
func (r Review) MediaRefs(f func(*string)) { refs(f, r.Author.Avatar) }

// MediaRefs calls f with the cover image and the author's avatar.
func (t TravelogueSummary) MediaRefs(f func(*string)) { refs(f, t.CoverImage, t.Author.Avatar) }

// MediaRefs calls f with the cover image, the author's avatar and the
// images.
func (t TravelogueDetail) MediaRefs(f func(*string)) {
	t.TravelogueSummary.MediaRefs(f)
	refList(f, t.Images)
}

// MediaRefs calls f with the pictures of the traveller and the expert.
func (b BookingDetail) MediaRefs(f func(*string)) {
	refs(f, b.Tourist.Image)
	if b.Expert != nil {
		refs(f, b.Expert.Image)
	}
}

// MediaRefs calls f with the pictures of both parties.
func (c ConversationSummary) MediaRefs(f func(*string)) { refs(f, c.Expert.Image, c.Tourist.Image) }

// MediaRefs calls f with the message's image and its sender's picture.
func (m Message) MediaRefs(f func(*string)) { refs(f, m.ImageURL, m.Sender.Image) }

// MediaRefs calls f with the image references of every message.
func (p MessagePage) MediaRefs(f func(*string)) {
	for _, m := range p.Messages {
		m.MediaRefs(f)
	}
}

// MediaRefs calls f with the account's picture and avatar.
func (p Profile) MediaRefs(f func(*string)) { refs(f, p.Image, p.Avatar) }
