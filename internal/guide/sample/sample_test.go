package sample

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
)

func TestLocaleOrder(t *testing.T) {
	if !slices.Equal(localeCodes[:], guide.Locales) {
		t.Fatalf("localeCodes %v, guide.Locales %v: a tr must follow guide.Locales", localeCodes, guide.Locales)
	}
}

// allTexts lists every translated text of the banks with a name for
// failure messages.
func allTexts() map[string]tr {
	texts := map[string]tr{}
	add := func(name string, ts ...tr) {
		for i, t := range ts {
			texts[name+"["+strconv.Itoa(i)+"]"] = t
		}
	}
	for _, c := range cities {
		add(c.en()+" name", c.name)
		add(c.en()+" landmarks", c.landmarks[:]...)
		add(c.en()+" dishes", c.dishes[:]...)
		add(c.en()+" nearby", c.nearby)
	}
	for _, s := range specialtyNames {
		add("specialty "+s.tag, s.name)
	}
	for _, l := range languageNames {
		add("language "+l.code, l.name)
	}
	add("bioIntros", bioIntros...)
	add("bioFocus", bioFocus...)
	add("bioStyles", bioStyles...)
	add("bioLanguages", bioLanguages)
	add("bioClosings", bioClosings...)
	for _, c := range categories {
		add(c.key+" titles", c.titles...)
		add(c.key+" description", c.description)
		add(c.key+" highlights", c.highlights...)
	}
	for _, it := range packageItems {
		add("item "+it.key, it.text)
	}
	add("descriptionClosings", descriptionClosings...)
	add("meetingPoints", meetingPoints...)
	for _, k := range travelogueKinds {
		add(k.key+" titles", k.titles...)
		for i, o := range k.openers {
			add(k.key+" opener "+strconv.Itoa(i), o.lead, o.rest)
		}
		add(k.key+" heading", k.heading)
		add(k.key+" bodies", k.bodies...)
	}
	add("generalParagraphs", generalParagraphs...)
	add("practicalHeadings", practicalHeadings...)
	add("practicalParagraphs", practicalParagraphs...)
	add("travelTips", travelTips...)
	add("travelQuotes", travelQuotes...)
	add("closingParagraphs", closingParagraphs...)
	add("imageAlts", imageAlts...)
	return texts
}

var placeholder = regexp.MustCompile(`\{[A-Za-z0-9]+\}`)

// placeholdersOf returns the placeholders of s, lower-cased, sorted and
// without repeats: {City} and {city} stand for the same value.
func placeholdersOf(s string) []string {
	var out []string
	for _, p := range placeholder.FindAllString(s, -1) {
		out = append(out, strings.ToLower(p))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTextsAreTranslated checks that every text exists in every locale and
// that each translation uses the same placeholders as the English.
func TestTextsAreTranslated(t *testing.T) {
	for name, text := range allTexts() {
		want := placeholdersOf(text[en])
		for l := range nLocales {
			if strings.TrimSpace(text[l]) == "" {
				t.Errorf("%s has no %s text", name, localeCodes[l])
				continue
			}
			if got := placeholdersOf(text[l]); !slices.Equal(got, want) {
				t.Errorf("%s: %s uses placeholders %v, English %v", name, localeCodes[l], got, want)
			}
		}
	}
}

// TestNoPlaceholderLeft checks that every template was filled.
func TestNoPlaceholderLeft(t *testing.T) {
	b, err := json.Marshal(Generate())
	if err != nil {
		t.Fatal(err)
	}
	if left := placeholder.FindAllString(string(b), 5); len(left) > 0 {
		t.Fatalf("unfilled placeholders in the dataset: %v", left)
	}
}

func TestNewID(t *testing.T) {
	g := &generator{idRand: rand.New(rand.NewPCG(1, 2))}
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	id := g.newID(at)
	layout := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !layout.MatchString(id) {
		t.Fatalf("newID = %q, not a UUIDv7", id)
	}
	if ms, want := strings.ReplaceAll(id[:13], "-", ""), fmt.Sprintf("%012x", at.UnixMilli()); ms != want {
		t.Errorf("newID timestamp %s, want %s", ms, want)
	}
	if id == g.newID(at) {
		t.Error("two ids for the same time are equal")
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"Wang Mei Shanghai":                  "wang-mei-shanghai",
		"Zhou Min Xi'an":                     "zhou-min-xian",
		"Chloé Lefèvre":                      "chloe-lefevre",
		"Jonas Müller":                       "jonas-mueller",
		"Getting Lost (on Purpose) in Tokyo": "getting-lost-on-purpose-in-tokyo",
		"48 Hours in Hong Kong":              "48-hours-in-hong-kong",
		"A Shopper's Walk around the Pier-2": "a-shoppers-walk-around-the-pier-2",
	} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJoinList(t *testing.T) {
	items := []string{"a", "b", "c"}
	for l, want := range map[int]string{en: "a, b and c", zh: "a、b和c", zhTW: "a、b和c", ja: "a、b、c", ko: "a, b, c"} {
		if got := joinList(l, items); got != want {
			t.Errorf("joinList(%s) = %q, want %q", localeCodes[l], got, want)
		}
	}
	if got := joinList(en, []string{"a"}); got != "a" {
		t.Errorf("joinList of one = %q", got)
	}
}

func TestTitleCase(t *testing.T) {
	for in, want := range map[string]string{
		"the hutongs of Shichahai": "the Hutongs of Shichahai",
		"scallion oil noodles":     "Scallion Oil Noodles",
		"Tai O fishing village":    "Tai O Fishing Village",
	} {
		if got := titleCase(in); got != want {
			t.Errorf("titleCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReviewDistribution checks what the store tests cannot see directly:
// how ratings and reviews are spread.
func TestReviewDistribution(t *testing.T) {
	ds := Generate()
	var byRating [6]int
	for _, r := range ds.Reviews {
		byRating[r.Rating]++
	}
	n := len(ds.Reviews)
	if high := byRating[4] + byRating[5]; high*100 < n*75 {
		t.Errorf("%d of %d reviews are 4 or 5 stars, want most", high, n)
	}
	if low := byRating[1] + byRating[2]; low == 0 || low*100 > n*8 {
		t.Errorf("%d of %d reviews are 1 or 2 stars, want a few", low, n)
	}
	hangul := regexp.MustCompile(`\p{Hangul}`)
	kana := regexp.MustCompile(`\p{Hiragana}|\p{Katakana}`)
	han := regexp.MustCompile(`\p{Han}`)
	langs := map[string]int{}
	for _, r := range ds.Reviews {
		if r.Comment == nil {
			continue
		}
		switch c := *r.Comment; {
		case hangul.MatchString(c):
			langs["ko"]++
		case kana.MatchString(c):
			langs["ja"]++
		case han.MatchString(c):
			langs["zh"]++
		default:
			langs["en"]++
		}
	}
	got := map[string]bool{"mostlyEnglish": langs["en"]*2 >= n, "zh": langs["zh"] != 0, "ja": langs["ja"] != 0, "ko": langs["ko"] != 0}
	want := map[string]bool{"mostlyEnglish": true, "zh": true, "ja": true, "ko": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comment languages %v (-want +got):\n%s", langs, diff)
	}
}
