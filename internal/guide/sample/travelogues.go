package sample

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
)

const (
	publishedTravelogues = 36
	draftTravelogues     = 5
)

// specialtyKinds map an expert's specialty to the travelogue category it
// would write in.
var specialtyKinds = []struct{ tag, kind string }{
	{"food", "food"}, {"street-food", "food"}, {"tea", "culture"},
	{"history", "culture"}, {"culture", "culture"}, {"temples", "culture"}, {"art", "culture"},
	{"hiking", "adventure"}, {"nature", "nature"}, {"shopping", "shopping"},
	{"architecture", "city"}, {"photography", "city"}, {"nightlife", "city"}, {"family", "city"},
}

// travelogueAuthor is who writes a travelogue and where.
type travelogueAuthor struct {
	userID string
	since  time.Time // the author could write from then on
	city   *city
	kind   *travelogueKind
}

// addTravelogues adds published travelogues and drafts, the categories
// taking turns. About seven in ten are by experts, about their own city and
// in a category their specialties suggest; the rest by travellers.
func (g *generator) addTravelogues() {
	writers := slices.Clone(g.bookableExperts(true))
	g.rng.Shuffle(len(writers), func(i, j int) { writers[i], writers[j] = writers[j], writers[i] })
	if i := slices.Index(writers, g.demoExpert); i > 0 {
		writers[0], writers[i] = writers[i], writers[0] // the demo expert writes too
	}
	titles, slugs := map[string]bool{}, map[string]bool{}
	for i := range publishedTravelogues + draftTravelogues {
		k := &travelogueKinds[i%len(travelogueKinds)]
		draft := i >= publishedTravelogues
		if i%10 == 3 || i%10 == 6 || i%10 == 9 {
			t := pick(g, g.tourists)
			for {
				a := travelogueAuthor{userID: t.id, since: t.createdAt, city: &cities[g.rng.IntN(len(cities))], kind: k}
				if g.addTravelogue(a, draft, titles, slugs) {
					break
				}
			}
			continue
		}
		// The first writer in line who writes in this category, else the
		// first in line, unless every title of that city is taken; the
		// writer goes to the back of the line.
		order := slices.Clone(writers)
		slices.SortStableFunc(order, func(a, b *expertInfo) int {
			return boolRank(slices.Contains(kindsOf(b), k.key)) - boolRank(slices.Contains(kindsOf(a), k.key))
		})
		for _, e := range order {
			a := travelogueAuthor{userID: e.userID, since: e.verifiedAt, city: e.city, kind: k}
			if g.addTravelogue(a, draft, titles, slugs) {
				w := slices.Index(writers, e)
				writers = append(slices.Delete(writers, w, w+1), e)
				break
			}
		}
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kindsOf lists the travelogue categories an expert's specialties suggest.
func kindsOf(e *expertInfo) []string {
	var kinds []string
	for _, tag := range e.specialties {
		for _, sk := range specialtyKinds {
			if sk.tag == tag {
				kinds = append(kinds, sk.kind)
			}
		}
	}
	return kinds
}

// addTravelogue adds a travelogue by a in its city and category, unless
// every title it could have is taken; it reports whether it added one.
func (g *generator) addTravelogue(a travelogueAuthor, draft bool, titles, slugs map[string]bool) bool {
	k := a.kind
	sc, title, ok := g.travelogueScene(a.city, k, titles)
	if !ok {
		return false
	}
	slug := slugify(title[en])
	for n := 2; slugs[slug]; n++ {
		slug = slugify(title[en]) + "-" + strconv.Itoa(n)
	}
	slugs[slug] = true

	images := make([]string, g.between(1, 4))
	for i := range images {
		images[i] = "/media/sample/travelogues/" + slug + "-" + strconv.Itoa(i+1) + ".jpg"
	}
	excerpt, content := g.travelogueContent(sc, k, images[0])

	tags := []string{a.city.en()}
	if n := g.between(1, 3); n > 1 {
		tags = append(tags, placeTag(a.city.landmarks[sc.place][en]))
		if n > 2 {
			tags = append(tags, placeTag(a.city.nearby[en]))
		}
	}

	t := Travelogue{
		Slug: slug, AuthorID: a.userID, Title: title[en], Excerpt: ptr(excerpt[en]), Content: content[en],
		CoverImage: optional(g.chance(0.85), "/media/sample/travelogues/"+slug+".jpg"),
		Category:   k.key, LocationTags: tags, Images: images,
		Status: "published",
	}
	since := a.since.Add(7 * day)
	if draft {
		t.Status = "draft"
		t.CreatedAt = g.timeBetween(maxTime(since, date(2026, 9, 1)), date(2026, 10, 25))
		t.UpdatedAt = g.after(t.CreatedAt, time.Hour, 5*day)
		// Drafts have only been previewed: a few views, no votes, no comments.
		t.ViewCount = g.between(100, 300)
	} else {
		published := g.timeBetween(maxTime(since.Add(14*day), date(2025, 1, 10)), date(2026, 10, 28))
		t.PublishedAt = ptr(published)
		t.CreatedAt = maxTime(published.Add(-g.durationBetween(day, 14*day)), since)
		t.UpdatedAt = minTime(g.after(published, 0, 30*day), Horizon.Add(-time.Hour))
		g.engagement(&t)
		t.HotScore = guide.HotScore(t.Score, t.ViewCount, t.CommentCount, published)
	}
	t.ID = g.newID(t.CreatedAt)
	g.ds.Travelogues = append(g.ds.Travelogues, t)
	if draft {
		return true
	}
	for _, l := range translatedLocales {
		g.ds.TravelogueTranslations = append(g.ds.TravelogueTranslations, TravelogueTranslation{
			TravelogueID: t.ID, Locale: localeCodes[l],
			Title: ptr(title[l]), Excerpt: ptr(excerpt[l]), Content: ptr(content[l]),
		})
	}
	return true
}

// engagement draws views (most stories have a few thousand, a few go far
// beyond), and a score and comments that follow the views.
func (g *generator) engagement(t *Travelogue) {
	u := g.rng.Float64()
	t.ViewCount = 100 + int(19900*u*u*u)
	t.Score = clamp(t.ViewCount/40+g.between(-20, 60), 0, 500)
	t.CommentCount = clamp(t.Score/7+g.between(-3, 6), 0, 80)
}

// placeTag is a place name as a tag: "the Bund" is "Bund".
func placeTag(name string) string { return capFirst(strings.TrimPrefix(name, "the ")) }

func clamp(v, lo, hi int) int { return int(math.Max(float64(lo), math.Min(float64(hi), float64(v)))) }

// travelogueScene picks the places of a travelogue so that its English
// title is new, or reports that every title is taken; stories about food
// and shopping start at the city's lively landmark.
func (g *generator) travelogueScene(c *city, k *travelogueKind, titles map[string]bool) (scene, tr, bool) {
	t0, d0 := g.rng.IntN(len(k.titles)), g.rng.IntN(2)
	places := placeOrder(c, k.key == "food" || k.key == "shopping", g.rng.IntN(3))
	for i := range len(k.titles) * len(places) {
		p := places[i%len(places)]
		sc := scene{city: c, place: p, place2: (p + 1 + d0) % 3, dish: (d0 + i) % 2, dish2: 1 - (d0+i)%2}
		title := sc.title(k.titles[(t0+i)%len(k.titles)])
		if !titles[title[en]] {
			titles[title[en]] = true
			return sc, title, true
		}
	}
	return scene{}, tr{}, false
}

// travelogueContent writes the excerpt and the HTML content in every
// locale. The structure is the same in each: an opening paragraph, a
// section of two or three body paragraphs with sometimes a quote and a
// photo, a general paragraph, a practical section with a list of tips and
// a closing paragraph.
func (g *generator) travelogueContent(sc scene, k *travelogueKind, image string) (excerpt, content tr) {
	op := pick(g, k.openers)
	bodies := subset(g, k.bodies, g.between(2, len(k.bodies)))
	var quote, alt *tr
	if g.chance(0.5) {
		quote = ptr(pick(g, travelQuotes))
	}
	if g.chance(0.6) {
		alt = ptr(pick(g, imageAlts))
	}
	general := pick(g, generalParagraphs)
	heading2, practical := pick(g, practicalHeadings), pick(g, practicalParagraphs)
	tips := subset(g, travelTips, g.between(3, 5))
	list := pick(g, []string{"ul", "ol"})
	closing := pick(g, closingParagraphs)

	for l := range nLocales {
		v := sc.vars(l)
		text := func(t tr) string { return htmlText.Replace(fill(t[l], v)) }
		lead := fill(op.lead[l], v)
		excerpt[l] = lead

		var b strings.Builder
		p := func(s string) { b.WriteString("<p>" + s + "</p>\n") }
		p(htmlText.Replace(joinSentences(l, lead, fill(op.rest[l], v))))
		b.WriteString("<h2>" + text(k.heading) + "</h2>\n")
		for i, body := range bodies {
			p(text(body))
			if i == 0 && quote != nil {
				b.WriteString("<blockquote><p>" + text(*quote) + "</p></blockquote>\n")
			}
		}
		if alt != nil {
			b.WriteString(`<p><img src="` + image + `" alt="` + text(*alt) + `"></p>` + "\n")
		}
		p(text(general))
		b.WriteString("<h2>" + text(heading2) + "</h2>\n")
		p(text(practical))
		b.WriteString("<" + list + ">\n")
		for _, tip := range tips {
			b.WriteString("<li>" + text(tip) + "</li>\n")
		}
		b.WriteString("</" + list + ">\n")
		p(text(closing))
		content[l] = strings.TrimSuffix(b.String(), "\n")
	}
	return excerpt, content
}
