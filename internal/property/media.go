package property

// Image references are stored as paths on the API ("/media/…"). MediaRefs
// hands each one to f, which the API uses to show them as absolute URLs on
// its public base URL (media.Resolve). The references are shared
// with the value, so value receivers suffice.

// MediaRefs calls f with the property's images.
func (p Property) MediaRefs(f func(*string)) {
	for i := range p.Images {
		f(&p.Images[i])
	}
}

// MediaRefs calls f with the property's image.
func (p PropertySummary) MediaRefs(f func(*string)) {
	if p.Image != nil {
		f(p.Image)
	}
}
