package guide_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/sample"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// travelogueFields decodes a JSON body as a door does.
func travelogueFields(t *testing.T, body string) guide.TravelogueFields {
	t.Helper()
	var in guide.TravelogueFields
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

func TestTravelogueSlug(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Three Days of Kyoto Street Food": "three-days-of-kyoto-street-food",
		"  Café crème in Xi'an!  ":        "cafe-creme-in-xian",
		"京都の朝":                            "travelogue",
		"Mine":                            "mine", // the store skips reserved slugs
		strings.Repeat("word ", 40):       strings.TrimSuffix(strings.Repeat("word-", 16), "-"),
	} {
		if got := guide.TravelogueSlug(title); got != want {
			t.Errorf("TravelogueSlug(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestTravelogueAuthoring: content is sanitised (scripts, handlers,
// javascript: links, frames, styles and foreign images go; this API's
// images stay, as paths); slugs are unique, even for concurrent creates
// of one title, and skip reserved names; rights and bounds are the
// service's.
func TestTravelogueAuthoring(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := newService(t, engine)
			s.Authoring = s.Supply.(guide.TravelogueStore)
			s.Catalog = s.Supply.(guide.CatalogStore)
			ctx := t.Context()
			author := callerOf(t, s, sample.DemoExpertEmail)
			other := callerOf(t, s, sample.DemoTravellerEmail)

			hostile := `<p onclick="steal()">Hello <script>alert(1)</script><b>there</b></p>` +
				`<style>body{display:none}</style><iframe src="https://evil.example/"></iframe>` +
				`<a href="javascript:alert(1)">bad</a> <a href="https://good.example/x">good</a>` +
				`<img src="https://evil.example/p.gif" onerror="alert(1)"><img src="https://guide.api.test/media/sample/travelogues/a.jpg" alt="A">` +
				`<p style="color:red">styled</p><object data="x"></object><svg><script>alert(2)</script></svg>`
			body, _ := json.Marshal(map[string]any{
				"title":   map[string]any{"en": "Mine", "ja": "私の旅"},
				"content": map[string]any{"en": hostile, "ja": "<p>本文</p>"},
				"excerpt": map[string]any{"en": "A short trip."}, "category": "food", "locationTags": []string{"Kyoto", "Japan"},
			})
			tr, err := s.CreateTravelogue(ctx, author, travelogueFields(t, string(body)))
			if err != nil {
				t.Fatal(err)
			}
			c := tr.Content
			for _, bad := range []string{"<script", "alert", "onclick", "onerror", "<style", "display:none", "<iframe", "evil.example",
				"javascript:", "style=", "<object", "<svg"} {
				if strings.Contains(c, bad) {
					t.Errorf("content keeps %q: %s", bad, c)
				}
			}
			for _, good := range []string{"<b>there</b>", `href="https://good.example/x"`, `rel="nofollow noreferrer noopener"`,
				`<img src="/media/sample/travelogues/a.jpg" alt="A"`, "styled"} {
				if !strings.Contains(c, good) {
					t.Errorf("content lost %q: %s", good, c)
				}
			}
			got := map[string]any{
				"slug": tr.Slug, "status": tr.Status, "publishedSet": tr.PublishedAt != nil, "jaTitle": tr.Translations["ja"].Title,
			}
			want := map[string]any{"slug": "mine-2", "status": guide.TravelogueDraft, "publishedSet": false, "jaTitle": "私の旅"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("created (-want +got):\n%s", diff)
			}

			// Concurrent creates of one title: every one gets a slug of its own.
			in := travelogueFields(t, `{"title":{"en":"Same Title"},"content":{"en":"<p>x</p>"},"category":"city"}`)
			var wg sync.WaitGroup
			slugs := make([]string, 4)
			for i := range slugs {
				wg.Go(func() {
					if tr, err := s.CreateTravelogue(ctx, author, in); err != nil {
						t.Error(err)
					} else {
						slugs[i] = tr.Slug
					}
				})
			}
			wg.Wait()
			seen := map[string]bool{}
			for _, sl := range slugs {
				if seen[sl] || !strings.HasPrefix(sl, "same-title") {
					t.Fatalf("slugs %q", slugs)
				}
				seen[sl] = true
			}

			// Only the author; another's draft is not found, a published
			// one is forbidden; keys never write.
			patch := travelogueFields(t, `{"category":"nature"}`)
			if _, err := s.UpdateTravelogue(ctx, other, tr.Slug, patch); apperr.Code(err) != apperr.NotFound {
				t.Fatalf("another's draft: %v", err)
			}
			if _, err := s.Travelogue(ctx, other, guide.TravelogueLookup{Slug: tr.Slug}); apperr.Code(err) != apperr.NotFound {
				t.Fatalf("another reads the draft: %v", err)
			}
			if d, err := s.Travelogue(ctx, author, guide.TravelogueLookup{Slug: tr.Slug, Locale: "ja"}); err != nil || d.Title != "私の旅" {
				t.Fatalf("the author reads the draft: %+v %v", d, err)
			}
			if _, err := s.PublishTravelogue(ctx, author, tr.Slug); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UpdateTravelogue(ctx, other, tr.Slug, patch); apperr.Code(err) != apperr.Forbidden {
				t.Fatalf("another's published travelogue: %v", err)
			}
			key := &guide.Caller{User: author.User, APIKey: &guide.APIKey{ID: "k"}}
			if _, err := s.UpdateTravelogue(ctx, key, tr.Slug, patch); apperr.Code(err) != apperr.Forbidden {
				t.Fatalf("an API key: %v", err)
			}

			// Bounds and fields, named.
			bad := travelogueFields(t, `{"title":{"en":null,"xx":"t"},"content":{"en":"<script>only()</script>"},"category":"party",
				"locationTags":["Kyoto","kyoto",""],"coverImage":"https://evil.example/c.jpg","images":["/media/travelogues/x/y.jpg"]}`)
			_, err = s.UpdateTravelogue(ctx, author, tr.Slug, bad)
			details := fieldErrors(t, err)
			for _, f := range []string{"title.en", "title.xx", "content.en", "category", "locationTags[1]", "locationTags[2]", "coverImage[0]", "images"} {
				if details[f] == nil {
					t.Errorf("%s not named: %v", f, details)
				}
			}
			if _, err := s.UpdateTravelogue(ctx, author, "No Such!", patch); apperr.Code(err) != apperr.NotFound {
				t.Fatalf("a bad slug: %v", err)
			}
		})
	}
}
