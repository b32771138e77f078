package sample

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Content locales, indexes into a tr. The order is that of guide.Locales.
const (
	en = iota
	zh
	zhTW
	ja
	ko
	nLocales
)

// localeCodes names the locales of a tr, in order.
var localeCodes = [nLocales]string{"en", "zh", "zh-TW", "ja", "ko"}

// translatedLocales are the locales that get translation rows; English is
// the base row.
var translatedLocales = []int{zh, zhTW, ja, ko}

// tr is one text in every content locale: en, zh, zh-TW, ja, ko. Templates
// use {placeholders}; a capitalised placeholder ({City}, {Place}) gives the
// value with its first letter upper-cased, for English titles and sentence
// starts.
type tr [nLocales]string

// fill replaces the placeholders of tpl; vars holds placeholder, value
// pairs.
func fill(tpl string, vars []string) string {
	return strings.NewReplacer(vars...).Replace(tpl)
}

// fillAll fills t in every locale, taking each locale's variables from vars.
func fillAll(t tr, vars func(l int) []string) tr {
	var out tr
	for l := range nLocales {
		out[l] = fill(t[l], vars(l))
	}
	return out
}

// capFirst upper-cases the first letter of s; scripts without case are left
// as they are.
func capFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// minorWords stay lowercase inside an English title.
var minorWords = map[string]bool{"a": true, "an": true, "and": true, "at": true, "from": true, "in": true, "of": true, "on": true, "the": true, "to": true}

// titleCase capitalises the words of an English name for use inside a
// title: "the hutongs of Shichahai" is "the Hutongs of Shichahai". The
// title's own first letter is capitalised separately.
func titleCase(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if !minorWords[w] {
			words[i] = capFirst(w)
		}
	}
	return strings.Join(words, " ")
}

// joinList joins items as a list reads in locale l: "a, b and c",
// "a、b和c", "a、b、c", "a, b, c".
func joinList(l int, items []string) string {
	switch {
	case len(items) == 0:
		return ""
	case len(items) == 1:
		return items[0]
	}
	head, last := items[:len(items)-1], items[len(items)-1]
	switch l {
	case en:
		return strings.Join(head, ", ") + " and " + last
	case zh, zhTW:
		return strings.Join(head, "、") + "和" + last
	case ja:
		return strings.Join(items, "、")
	default:
		return strings.Join(items, ", ")
	}
}

// joinSentences joins the sentences of a paragraph: with a space in
// English and Korean, directly in Chinese and Japanese.
func joinSentences(l int, sentences ...string) string {
	if l == en || l == ko {
		return strings.Join(sentences, " ")
	}
	return strings.Join(sentences, "")
}

// asciiFolds spells the accented letters of the sample names in ASCII.
var asciiFolds = strings.NewReplacer(
	"ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss",
	"á", "a", "à", "a", "â", "a", "ã", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e",
	"í", "i", "ï", "i", "ó", "o", "ô", "o", "ú", "u",
	"ç", "c", "ñ", "n", "ø", "o", "å", "a",
)

// slugify turns s into a lowercase ASCII slug: words of letters and digits
// joined by single hyphens.
func slugify(s string) string {
	s = asciiFolds.Replace(strings.ToLower(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		case r == '\'' || r == '’':
			// "Xi'an" is "xian", "Beyond" stays one word.
		default:
			dash = true
		}
	}
	return b.String()
}

// htmlText escapes the characters that are special in HTML text.
var htmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// givenName is the part of a family-name-first name after the family name:
// "Wang Mei" gives "Mei", "Kim Min-jun" gives "Min-jun".
func givenName(name string) string {
	if _, given, ok := strings.Cut(name, " "); ok {
		return given
	}
	return name
}
