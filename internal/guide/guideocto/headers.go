package guideocto

import (
	"strings"

	"golang.org/x/text/language"

	"github.com/wayfarer-asia/platform/internal/guide"
)

// capabilities are the OCTO capabilities the door offers.
var capabilities = []string{"octo/content"}

// capabilitiesOf returns the capabilities of a request: those of the
// Octo-Capabilities header (comma-separated) that the door offers, in the
// order capabilities lists them. The others are ignored, as OCTO says.
func capabilitiesOf(header string) []string {
	asked := map[string]bool{}
	for c := range strings.SplitSeq(header, ",") {
		asked[strings.ToLower(strings.TrimSpace(c))] = true
	}
	out := []string{}
	for _, c := range capabilities {
		if asked[c] {
			out = append(out, c)
		}
	}
	return out
}

var locales = func() *language.Matcher {
	tags := make([]language.Tag, len(guide.Locales))
	for i, l := range guide.Locales {
		tags[i] = language.MustParse(l)
	}
	m := language.NewMatcher(tags)
	return &m
}()

// localeOf picks the locale of the content from an Accept-Language
// header: the best match among guide.Locales, guide.DefaultLocale when
// none matches.
func localeOf(acceptLanguage string) string {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return guide.DefaultLocale
	}
	_, i, conf := (*locales).Match(tags...)
	if conf == language.No {
		return guide.DefaultLocale
	}
	return guide.Locales[i]
}
