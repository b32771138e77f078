package guidehttp_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestTravelogueAuthoring: a traveller writes a draft with hostile HTML
// (scripts, handlers, javascript: links, frames, styles and foreign images
// removed); bad text is refused with 400 naming the field; the draft is
// invisible to others and to the public lists, but the author reads it;
// publishing puts it in the lists at once, past the page cache, with
// publishedAt; another user cannot change it, nor an API key; an uploaded
// image joins it and its content; unpublishing takes it out again; each
// write records its event.
func TestTravelogueAuthoring(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			b := newBookingEnv(t, engine)
			author, other := b.tourist, b.stranger
			type listing struct {
				Data []guide.TravelogueSummary
				Meta struct{ Total int }
			}
			newest := func() listing {
				var l listing
				b.Get("/api/v1/travelogues?sort=publishedAt&category=shopping&pageSize=100").Expect(200).Decode(&l)
				return l
			}
			before := newest() // and the page is now cached

			hostile := `<p onclick="steal()">Night <b>market</b><script>alert(1)</script></p>` +
				`<iframe src="https://evil.example/embed"></iframe><style>p{display:none}</style>` +
				`<a href="javascript:alert(2)">click</a><a href="https://maps.example/x">map</a>` +
				`<img src="https://evil.example/pixel.gif" onerror="alert(3)"><p style="position:fixed">styled</p>`
			in := map[string]any{
				"title":        map[string]any{"en": "Night Markets of Taipei", "ja": "台北の夜市"},
				"excerpt":      map[string]any{"en": "Four markets in one night."},
				"content":      map[string]any{"en": hostile, "ja": "<p>夜市<script>x()</script></p>"},
				"category":     "shopping",
				"locationTags": []string{"Taipei", "Shilin"},
			}
			var created struct{ Data guide.AuthorTravelogue }
			b.Do("POST", "/api/v1/travelogues", in, bearer(author.token)...).Expect(201).Decode(&created)
			tr := created.Data
			for _, bad := range []string{"<script", "alert", "onclick", "onerror", "<iframe", "evil.example", "<style", "display:none",
				"javascript:", "style=", "position:fixed", "x()"} {
				if strings.Contains(tr.Content, bad) || strings.Contains(tr.Translations["ja"].Content, bad) {
					t.Errorf("content keeps %q: %s | %s", bad, tr.Content, tr.Translations["ja"].Content)
				}
			}
			if !strings.Contains(tr.Content, "<b>market</b>") || !strings.Contains(tr.Content, `href="https://maps.example/x"`) ||
				tr.Translations["ja"].Content != "<p>夜市</p>" {
				t.Errorf("content lost its story: %s", tr.Content)
			}
			gotCreated := map[string]any{"slug": tr.Slug, "status": tr.Status, "publishedSet": tr.PublishedAt != nil, "authorSet": tr.Author.Handle != ""}
			wantCreated := map[string]any{"slug": "night-markets-of-taipei", "status": "draft", "publishedSet": false, "authorSet": true}
			if diff := cmp.Diff(wantCreated, gotCreated); diff != "" {
				t.Fatalf("created (-want +got):\n%s", diff)
			}
			slug := tr.Slug
			var stored string
			if err := b.db.QueryRow(`SELECT content FROM travelogues WHERE slug = $1`, slug).Scan(&stored); err != nil || strings.Contains(stored, "script") {
				t.Fatalf("stored content %q %v", stored, err)
			}

			// Bad text, before any query: 400 naming the field.
			for body, field := range map[string]string{
				`{"title":{"en":"A\u0000B"},"content":{"en":"<p>x</p>"},"category":"food"}`:           "title.en",
				"{\"title\":{\"en\":\"ok\"},\"content\":{\"en\":\"\xff\xfe\"},\"category\":\"food\"}": "content.en",
			} {
				if res := b.Do("POST", "/api/v1/travelogues", body, bearer(author.token)...).Expect(400); res.ErrorDetails()[field] == nil {
					t.Errorf("%s not named: %s", field, res.Body)
				}
			}
			if res := b.Do("POST", "/api/v1/travelogues", map[string]any{"title": map[string]any{"en": "x"}, "category": "party"},
				bearer(author.token)...).Expect(400); res.ErrorDetails()["content"] == nil || res.ErrorDetails()["category"] == nil {
				t.Errorf("missing content, bad category: %s", res.Body)
			}

			// A draft: the author's alone.
			b.Get("/api/v1/travelogues/" + slug).Expect(404)
			b.Get("/api/v1/travelogues/"+slug, bearer(other.token)...).Expect(404)
			b.Get("/api/v1/travelogues/"+slug, bearer(b.apiKey(t, author, "travelogues:read"))...).Expect(404)
			b.Get("/api/v1/travelogues/"+slug, bearer("not-a-token")...).Expect(401)
			var draft struct{ Data guide.TravelogueDetail }
			res := b.Get("/api/v1/travelogues/"+slug+"?locale=ja", bearer(author.token)...).Expect(200)
			res.Decode(&draft)
			if draft.Data.Title != "台北の夜市" || res.Header.Get("Cache-Control") != "private, no-store" {
				t.Fatalf("the author's draft: %+v, %q", draft.Data, res.Header.Get("Cache-Control"))
			}
			b.Get("/api/v1/travelogues/" + slug).Expect(404) // the author's read was not cached for all
			if l := newest(); l.Meta.Total != before.Meta.Total || slices.ContainsFunc(l.Data, func(x guide.TravelogueSummary) bool { return x.Slug == slug }) {
				t.Fatal("a draft is in the public list")
			}
			var mine struct {
				Data []guide.AuthorTravelogueSummary
				Meta struct{ Total int }
			}
			b.Get("/api/v1/travelogues/mine", bearer(author.token)...).Expect(200).Decode(&mine)
			if mine.Meta.Total != 1 || mine.Data[0].Slug != slug || mine.Data[0].Status != "draft" {
				t.Fatalf("mine: %+v", mine)
			}
			b.Get("/api/v1/travelogues/mine", bearer(other.token)...).Expect(200).Decode(&mine)
			if mine.Meta.Total != 0 {
				t.Fatalf("another's list: %+v", mine)
			}
			b.Get("/api/v1/travelogues/"+slug+"/edit", bearer(other.token)...).Expect(404)
			b.Do("PATCH", "/api/v1/travelogues/"+slug, map[string]any{"category": "food"}, bearer(other.token)...).Expect(404)
			b.Do("POST", "/api/v1/travelogues/"+slug+"/publish", nil, bearer(other.token)...).Expect(404)

			// Published: in the list at once, newest first, with publishedAt.
			var pub struct{ Data guide.AuthorTravelogue }
			b.Do("POST", "/api/v1/travelogues/"+slug+"/publish", nil, bearer(author.token)...).Expect(200).Decode(&pub)
			if pub.Data.Status != "published" || pub.Data.PublishedAt == nil || !pub.Data.PublishedAt.Equal(b.clock.Now()) {
				t.Fatalf("published: %+v", pub.Data)
			}
			l := newest()
			if l.Meta.Total != before.Meta.Total+1 || l.Data[0].Slug != slug || l.Data[0].PublishedAt == nil {
				t.Fatalf("the list after publishing: total %d (was %d), first %+v", l.Meta.Total, before.Meta.Total, l.Data[0])
			}
			b.Get("/api/v1/travelogues/" + slug).Expect(200)
			b.Do("POST", "/api/v1/travelogues/"+slug+"/publish", nil, bearer(author.token)...).Expect(200) // unchanged

			// Only the author changes it; keys never.
			b.Do("PATCH", "/api/v1/travelogues/"+slug, map[string]any{"category": "food"}, bearer(other.token)...).Expect(403)
			b.Do("POST", "/api/v1/travelogues/"+slug+"/unpublish", nil, bearer(other.token)...).Expect(403)
			b.Do("PATCH", "/api/v1/travelogues/"+slug, map[string]any{"category": "food"}, bearer(b.apiKey(t, author, "profile:write"))...).Expect(403)

			// An upload joins the images; the content and the cover may show it.
			ct, body := upload(t, "file", "stall.png", pngBytes(t, 40, 30))
			up := b.Do("POST", "/api/v1/travelogues/"+slug+"/images", body, append(bearer(author.token), "Content-Type", ct)...).Expect(201)
			loc := up.Header.Get("Location")
			u, err := url.Parse(loc)
			if err != nil || !strings.HasPrefix(loc, publicURL+"/media/travelogues/"+tr.ID+"/") {
				t.Fatalf("Location %q", loc)
			}
			b.Get(u.Path).Expect(200)
			ct, body = upload(t, "file", "stall.png", pngBytes(t, 8, 8))
			b.Do("POST", "/api/v1/travelogues/"+slug+"/images", body, append(bearer(other.token), "Content-Type", ct)...).Expect(403)
			var changed struct{ Data guide.AuthorTravelogue }
			b.Do("PATCH", "/api/v1/travelogues/"+slug, map[string]any{
				"content":    map[string]any{"ko": `<p>야시장 <img src="` + loc + `" alt="stall"></p>`},
				"title":      map[string]any{"ko": "타이베이 야시장", "ja": nil},
				"coverImage": loc,
			}, bearer(author.token)...).Expect(200).Decode(&changed)
			ko := changed.Data.Translations["ko"]
			gotChanged := map[string]any{"koImage": strings.Contains(ko.Content, `<img src="`+u.Path+`" alt="stall">`), "cover": changed.Data.CoverImage,
				"jaTitle": changed.Data.Translations["ja"].Title, "status": changed.Data.Status}
			wantChanged := map[string]any{"koImage": true, "cover": &loc, "jaTitle": "", "status": "published"}
			if diff := cmp.Diff(wantChanged, gotChanged); diff != "" {
				t.Fatalf("changed (-want +got):\n%s", diff)
			}
			var read struct{ Data guide.TravelogueDetail }
			b.Get("/api/v1/travelogues/" + slug + "?locale=ko").Expect(200).Decode(&read)
			if read.Data.Title != "타이베이 야시장" {
				t.Fatalf("ko read: %+v", read.Data)
			}
			// Dropping the image the content shows is refused.
			if res := b.Do("PATCH", "/api/v1/travelogues/"+slug, map[string]any{"images": []string{}, "coverImage": nil},
				bearer(author.token)...).Expect(400); res.ErrorDetails()["content.ko"] == nil {
				t.Errorf("dropping a shown upload: %s", res.Body)
			}

			// Unpublished: out of the lists and reads again.
			b.Do("POST", "/api/v1/travelogues/"+slug+"/unpublish", nil, bearer(author.token)...).Expect(200).Decode(&pub)
			if pub.Data.Status != "draft" || pub.Data.PublishedAt == nil {
				t.Fatalf("unpublished: %+v", pub.Data)
			}
			b.Get("/api/v1/travelogues/" + slug).Expect(404)
			if l := newest(); l.Meta.Total != before.Meta.Total || slices.ContainsFunc(l.Data, func(x guide.TravelogueSummary) bool { return x.Slug == slug }) {
				t.Fatal("an unpublished travelogue is in the public list")
			}

			for typ, want := range map[string]int{"travelogue.updated": 3, "travelogue.published": 1, "travelogue.unpublished": 1} {
				if n := b.count(t, `SELECT COUNT(*) FROM events WHERE type = $1`, typ); n != want {
					t.Errorf("%d %s events, want %d", n, typ, want)
				}
			}
			// The published and unpublished events are everyone's; the
			// draft's creation is the author's alone.
			if n := b.count(t, `SELECT COUNT(*) FROM events e JOIN event_audience a ON a.seq = e.seq
				WHERE e.type LIKE 'travelogue.%' AND a.audience = '*'`); n != 4 {
				t.Errorf("%d public travelogue events, want 4", n)
			}
		})
	}
}

// TestTravelogueCreateLimit: each user has a budget of creates an hour;
// past it, 429 before the body is read.
func TestTravelogueCreateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, options{travelogueLimit: 2})
	u := e.register(t, "writer@example.com", "TOURIST")
	in := map[string]any{"title": map[string]any{"en": "Same"}, "content": map[string]any{"en": "<p>x</p>"}, "category": "city"}
	var slugs []string
	for range 2 {
		var res struct{ Data guide.AuthorTravelogue }
		e.Do("POST", "/api/v1/travelogues", in, bearer(u.token)...).Expect(201).Decode(&res)
		slugs = append(slugs, res.Data.Slug)
	}
	if slugs[0] != "same" || slugs[1] != "same-2" {
		t.Fatalf("slugs %q", slugs)
	}
	res := e.Do("POST", "/api/v1/travelogues", in, bearer(u.token)...).Expect(429)
	if res.Header.Get("Retry-After") == "" || !strings.Contains(res.Header.Get("RateLimit-Policy"), `"travelogue"`) {
		t.Fatalf("429 headers: %v", res.Header)
	}
}
