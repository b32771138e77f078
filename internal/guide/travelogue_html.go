package guide

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/text/unicode/norm"
)

// A travelogue's content is HTML that readers' browsers render, written by
// anyone with an account, so it is cleaned by an allow-list sanitiser
// (bluemonday) before it is stored: only the elements of a story (text,
// headings, lists, quotes, tables, links and images) and a few harmless
// attributes survive. Scripts, styles, frames, objects, forms and every
// event handler go, with the text of scripts and styles; links keep only
// http, https, mailto and relative addresses and get rel="nofollow
// noreferrer"; an image keeps its source only when it is one of this
// API's own ("/media/…", or absolute on the public base URL, stored as
// the path), so content never loads anything from elsewhere.

// travelogueElements are the elements content may hold.
var travelogueElements = []string{
	"p", "br", "hr", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
	"strong", "em", "b", "i", "u", "s", "del", "ins", "sub", "sup", "small", "mark", "q", "cite", "abbr",
	"code", "pre", "figure", "figcaption", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td", "span", "div",
}

// ownMediaSegment is one clean segment of a media path: no "." or ".."
// segment, no escape, query or fragment.
const ownMediaSegment = `/[A-Za-z0-9_-][A-Za-z0-9_.-]*`

// uploadedSrc finds the uploaded images content shows, in sanitised
// content, where every src is a clean path.
var uploadedSrc = regexp.MustCompile(`src="(` + regexp.QuoteMeta(TravelogueUploadsPrefix) + `[^"]*)"`)

// newContentPolicy returns the sanitiser of travelogue content for an API
// whose public base URL is publicURL.
func newContentPolicy(publicURL string) *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements(travelogueElements...)
	p.AllowAttrs("title").OnElements("abbr")
	p.AllowAttrs("lang").Matching(regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)).Globally()
	p.AllowAttrs("colspan", "rowspan").Matching(bluemonday.Integer).OnElements("td", "th")
	p.AllowAttrs("href").OnElements("a")
	p.AllowStandardURLs() // http, https, mailto and relative; rel="nofollow"
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	own := regexp.MustCompile(`^(?:` + regexp.QuoteMeta(publicURL) + `)?/media(?:` + ownMediaSegment + `)+$`)
	p.AllowAttrs("src").Matching(own).OnElements("img")
	p.AllowAttrs("alt").OnElements("img")
	p.AllowAttrs("width", "height").Matching(bluemonday.Integer).OnElements("img")
	// Stored as the path, as every image reference is.
	p.RewriteSrc(func(u *url.URL) {
		if s := u.String(); publicURL != "" && strings.HasPrefix(s, publicURL+"/") {
			*u = url.URL{Path: strings.TrimPrefix(s, publicURL)}
		}
	})
	return p
}

// textOnly strips every tag, to tell whether content says anything.
var textOnly = bluemonday.StrictPolicy()

// sanitizeContent returns html cleaned, and whether anything is left to
// read or see.
func (s *Service) sanitizeContent(html string) (string, bool) {
	s.contentOnce.Do(func() { s.contentPolicy = newContentPolicy(s.PublicURL) })
	clean := strings.TrimSpace(s.contentPolicy.Sanitize(html))
	return clean, strings.TrimSpace(textOnly.Sanitize(clean)) != "" || strings.Contains(clean, "<img ")
}

// uploadsIn lists the uploaded images sanitised content shows.
func uploadsIn(content string) []string {
	var out []string
	for _, m := range uploadedSrc.FindAllStringSubmatch(content, -1) {
		out = append(out, m[1])
	}
	return out
}

// maxSlugBase bounds the part of a slug made of the title.
const maxSlugBase = 80

// reservedSlugs name the routes beside /api/v1/travelogues/{slug}.
var reservedSlugs = []string{"mine"}

// TravelogueSlug makes the slug base of a title: lower-case ASCII letters
// and digits, accents dropped ("Café" is "cafe"), words joined by dashes,
// at most maxSlugBase characters ending on a whole word; "travelogue" when
// the title has no such letter (a title in Japanese alone).
func TravelogueSlug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFD.String(strings.ToLower(title)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		case unicode.Is(unicode.Mn, r), r == '\'' || r == '’':
			// Accents go; "Xi'an" is "xian".
		default:
			dash = true
		}
	}
	slug := b.String()
	if len(slug) > maxSlugBase {
		slug = slug[:maxSlugBase]
		if i := strings.LastIndexByte(slug, '-'); i > 0 {
			slug = slug[:i]
		}
	}
	if slug == "" {
		return "travelogue"
	}
	return slug
}

// SlugReserved reports whether slug cannot be a travelogue's.
func SlugReserved(slug string) bool {
	for _, r := range reservedSlugs {
		if slug == r {
			return true
		}
	}
	return false
}
