package guidedb

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/apperr"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// publicExpert is the condition for an expert to be seen by the public:
// experts.listed is kept by triggers (guide migrations 00012, 00023) as
// verified, not suspended by an admin and the user not deleted.
const publicExpert = "e.listed = TRUE"

// publicPackage is the condition for a package to be seen by the public:
// packages.listed is kept as active, not hidden by an admin and the expert
// listed.
const publicPackage = "p.listed = TRUE"

// publicTravelogue is the condition for a travelogue to be seen by the
// public: published and not hidden by an admin, the condition of the
// travelogues' partial indexes and counts (guide migration 00023).
const publicTravelogue = "tr.status = 'published' AND tr.hidden_at IS NULL"

// publicReview is the condition for a review to be shown and counted in
// its expert's rating: not hidden by an admin.
const publicReview = "r.hidden_at IS NULL"

const expertColumns = `e.id, u.handle, u.name, u.avatar, COALESCE(t.bio, e.bio), e.location,
	e.country_code, e.currency, e.profile_image, e.hourly_rate, e.rating, e.review_count`

func scanExpert(s store.Scanner, x *guide.ExpertSummary, extra ...any) error {
	var name, avatar, bio, location, profileImage sql.NullString
	var rate sql.NullFloat64
	dest := append([]any{&x.ID, &x.Handle, &name, &avatar, &bio, &location,
		&x.CountryCode, &x.Currency, &profileImage, &rate, &x.Rating, &x.ReviewCount}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	x.Name, x.Avatar, x.Bio, x.Location = store.NullString(name), store.NullString(avatar), store.NullString(bio), store.NullString(location)
	x.ProfileImage, x.HourlyRate = store.NullString(profileImage), store.NullFloat(rate)
	x.Languages, x.Specialties = []string{}, []string{}
	return nil
}

var expertSorts = map[string]string{"rating": "rating", "reviewCount": "review_count", "createdAt": "created_at"}

// FindExperts returns a page of verified experts and the total.
//
// Plan (both engines): the inner query walks one partial index of listed
// experts in the sort's direction (backwards for DESC) and stops after
// offset+limit rows, with no sort and no temporary B-tree:
//   - under a specialty (or else a language) filter, that tag's entries in
//     expert_specialties_listed_<sort> (expert_languages_listed_<sort>),
//     whose rows carry their expert's sort columns, checking the other
//     filters on the way;
//   - under a city filter, experts_listed_city_<sort>: of the one city it
//     matches, or of each of several, each walk stopped after offset+limit
//     entries and their union sorted;
//   - under the country filter, experts_listed_country_<sort>;
//   - otherwise experts_listed_<sort>.
//
// The outer query joins only the page's ids to users and the translation.
func (g *Guide) FindExperts(ctx context.Context, f guide.ExpertFilter) (_ []guide.ExpertSummary, _ int, err error) {
	defer store.Wrap(&err, "find experts")
	q, err := g.expertsQuery(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	experts, total, err := catalogPage(ctx, g, q, f.Page, func(s store.Scanner, version *int64) (guide.ExpertSummary, error) {
		var x guide.ExpertSummary
		err := scanExpert(s, &x, version)
		return x, err
	})
	if err != nil {
		return nil, 0, err
	}
	if err := g.loadExpertTags(ctx, experts); err != nil {
		return nil, 0, err
	}
	return experts, total, nil
}

// expertsQuery is the list query of FindExperts.
func (g *Guide) expertsQuery(ctx context.Context, f guide.ExpertFilter) (catalogQuery, error) {
	w := &store.Where{}
	// The walk starts from the most selective filter's table: a, with a
	// copy of the expert's listed flag and sort columns.
	a, id, from := "e", "e.id", " FROM experts e"
	set := map[string][]string{} // the filters set, for counted
	if f.Specialty != "" {
		set["specialty"] = []string{strings.ToLower(f.Specialty)}
	}
	if f.Language != "" {
		set["language"] = []string{strings.ToLower(f.Language)}
	}
	switch {
	case f.Specialty != "":
		a, id, from = "s", "s.expert_id", " FROM expert_specialties s"
		w.And("s.listed = TRUE AND lower(s.specialty) = " + w.Arg(strings.ToLower(f.Specialty)))
	case f.Language != "":
		a, id, from = "l", "l.expert_id", " FROM expert_languages l"
		w.And("l.listed = TRUE AND lower(l.language) = " + w.Arg(strings.ToLower(f.Language)))
	default:
		w.And(publicExpert)
	}
	if f.Specialty != "" && f.Language != "" {
		w.And(`EXISTS (SELECT 1 FROM expert_languages l WHERE l.expert_id = s.expert_id AND lower(l.language) = ` + w.Arg(strings.ToLower(f.Language)) + `)`)
	}
	var places []string // the placeholders of the cities the city filter matches
	if f.City != "" || f.Country != "" {
		if a != "e" {
			from += " JOIN experts e ON e.id = " + id
		}
		if f.City != "" {
			cities, err := g.matchingCities(ctx, f.City)
			if err != nil {
				return catalogQuery{}, err
			}
			for _, c := range cities {
				places = append(places, w.Arg(c))
			}
			set["city"] = cities
		}
		if f.Country != "" {
			w.And("e.country_code = " + w.Arg(f.Country))
			set["country"] = []string{f.Country}
		}
	}
	// Every condition but the city's, which the walks of several cities
	// each add for their one city.
	others := w.String()
	if f.City != "" {
		w.And(cityCondition(places))
	}
	filterArgs := len(w.Args)
	col, dir := expertSorts[f.Sort], store.Direction(f.Order)
	if col == "" {
		col = expertSorts["rating"]
	}
	q := catalogQuery{
		list: "experts", id: id, where: w, filterArgs: filterArgs,
		counted: counted(set),
		filter:  from + w.String(),
		columns: expertColumns,
		details: `JOIN experts e ON e.id = pg.id JOIN users u ON u.id = e.user_id
			LEFT JOIN expert_translations t ON t.expert_id = e.id AND t.locale = ` + w.Arg(f.Locale),
		pageOrderBy: a + "." + col + " " + dir + ", " + id + " " + dir,
		orderBy:     "e." + col + " " + dir + ", e.id " + dir,
	}
	if len(places) > 1 {
		// Several cities: each city's walk of its own index stops after
		// offset+limit entries, and the page is the first of their union,
		// so it sorts at most that many per city instead of every expert
		// of every city. Each walk has the filter's conditions with the
		// one city for the list of them (the same placeholders).
		n := strconv.Itoa(f.Page.Offset() + f.Page.PageSize)
		arms := make([]string, len(places))
		for i, p := range places {
			arms[i] = `SELECT * FROM (SELECT ` + id + ` AS id, ` + a + `.` + col + ` AS k` + from + others + ` AND lower(e.location) = ` + p +
				` ORDER BY ` + q.pageOrderBy + ` LIMIT ` + n + `) c` + strconv.Itoa(i)
		}
		q.walk = ` FROM (` + strings.Join(arms, " UNION ALL ") + `) m`
		q.id, q.pageOrderBy = "m.id", "m.k "+dir+", m.id "+dir
	}
	return q, nil
}

// matchingCities returns the distinct lowercased cities of listed experts
// that contain city. The city filter is a partial match, which no index
// looks up, but there are few distinct cities: this skips through
// experts_listed_city_rating from one city to the next (one probe each,
// however many experts a city has) and matches each, so the page can walk
// the index of the one city a full name matches.
func (g *Guide) matchingCities(ctx context.Context, city string) ([]string, error) {
	rows, err := g.db.QueryContext(ctx, `
		WITH RECURSIVE c(city) AS (
			SELECT (SELECT lower(location) FROM experts WHERE listed = TRUE AND lower(location) > ''
				ORDER BY lower(location) LIMIT 1)
			UNION ALL
			SELECT (SELECT lower(location) FROM experts WHERE listed = TRUE AND lower(location) > c.city
				ORDER BY lower(location) LIMIT 1)
			FROM c WHERE c.city IS NOT NULL
		)
		SELECT city FROM c WHERE city LIKE $1 ESCAPE '\'`, store.LikePattern(city))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// cityCondition is the condition that an expert is in one of the cities
// whose placeholders are given.
func cityCondition(places []string) string {
	if len(places) == 0 {
		return "FALSE"
	}
	return "lower(e.location) IN (" + strings.Join(places, ", ") + ")"
}

// counted returns the catalog_counts rows whose sum is the total of a
// list under the filters set (filter name → values): the list's row under
// none, the filter's rows under one that has rows, nil (count the
// matching rows instead) otherwise.
func counted(set map[string][]string) *countedFilter {
	switch len(set) {
	case 0:
		return &countedFilter{filter: "", values: []string{""}}
	case 1:
		for f, values := range set {
			if countedFilters[f] {
				return &countedFilter{filter: f, values: values}
			}
		}
	}
	return nil
}

// countedFilters are the filters with rows in catalog_counts.
var countedFilters = map[string]bool{"country": true, "city": true, "language": true, "specialty": true, "category": true}

// loadExpertTags fills in the languages and specialties of experts.
func (g *Guide) loadExpertTags(ctx context.Context, experts []guide.ExpertSummary) error {
	return loadExpertTags(ctx, g.db, experts)
}

// loadExpertTags fills in the languages and specialties of experts, in q.
func loadExpertTags(ctx context.Context, q store.Querier, experts []guide.ExpertSummary) error {
	if len(experts) == 0 {
		return nil
	}
	ids := make([]any, len(experts))
	index := make(map[string]*guide.ExpertSummary, len(experts))
	for i := range experts {
		ids[i] = experts[i].ID
		index[experts[i].ID] = &experts[i]
	}
	rows, err := q.QueryContext(ctx, expertTagsSQL(len(ids)), ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, kind, tag string
		var pos int
		if err := rows.Scan(&id, &kind, &tag, &pos); err != nil {
			return err
		}
		x := index[id]
		if kind == "l" {
			x.Languages = append(x.Languages, tag)
		} else {
			x.Specialties = append(x.Specialties, tag)
		}
	}
	return rows.Err()
}

// expertTagsSQL is the query of loadExpertTags for n experts.
//
// Plan: each expert's tags are read from expert_languages_by_expert and
// expert_specialties_by_expert (migration 00015), one descent per
// expert, without the table (on PostgreSQL once autovacuum has marked
// the pages all-visible), in the order of the index: SQLite merges the
// two without a sort. The order only needs each kind's positions
// ascending.
func expertTagsSQL(n int) string {
	in := store.Placeholders(1, n)
	return `SELECT expert_id, 'l', language, position FROM expert_languages WHERE expert_id IN (` + in + `)
		UNION ALL
		SELECT expert_id, 's', specialty, position FROM expert_specialties WHERE expert_id IN (` + in + `)
		ORDER BY 1, 4`
}

// publicExpertID returns the id and review count of the verified expert
// with the handle. Errors: apperr.NotFound.
func (g *Guide) publicExpertID(ctx context.Context, handle string) (id string, reviews int, err error) {
	err = g.db.QueryRowContext(ctx, `SELECT e.id, e.review_count FROM experts e JOIN users u ON u.id = e.user_id
		WHERE u.handle = $1 AND `+publicExpert, strings.ToLower(handle)).Scan(&id, &reviews)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, apperr.Errorf(apperr.NotFound, "No expert with handle %q.", handle)
	}
	return id, reviews, err
}

// FindExpertByHandle returns a verified expert.
// Errors: apperr.NotFound.
func (g *Guide) FindExpertByHandle(ctx context.Context, handle, locale string) (_ *guide.ExpertDetail, err error) {
	defer store.Wrap(&err, "find expert %s", handle)
	return expertDetail(ctx, g.db, "u.handle = $2", strings.ToLower(handle), locale)
}

// expertDetail reads in q the listed expert that cond (on $2, arg)
// selects, in locale. Errors: apperr.NotFound.
func expertDetail(ctx context.Context, q store.Querier, cond, arg, locale string) (*guide.ExpertDetail, error) {
	var x guide.ExpertDetail
	var cover sql.NullString
	var social, schedule []byte
	var verified sql.NullTime
	err := scanExpert(q.QueryRowContext(ctx, `
		SELECT `+expertColumns+`, e.cover_image, e.social_links, e.messaging_enabled, e.weekly_schedule, e.timezone, e.verified_at
		FROM experts e JOIN users u ON u.id = e.user_id
		LEFT JOIN expert_translations t ON t.expert_id = e.id AND t.locale = $1
		WHERE `+cond+` AND `+publicExpert, locale, arg),
		&x.ExpertSummary, &cover, &social, &x.MessagingEnabled, &schedule, &x.Timezone, &verified)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No expert with handle %q.", arg)
	} else if err != nil {
		return nil, err
	}
	x.CoverImage, x.VerifiedAt = store.NullString(cover), store.NullTime(verified)
	x.SocialLinks, x.WeeklySchedule = store.RawJSON(social, "{}"), store.RawJSON(schedule, "{}")
	experts := []guide.ExpertSummary{x.ExpertSummary}
	if err := loadExpertTags(ctx, q, experts); err != nil {
		return nil, err
	}
	x.ExpertSummary = experts[0]
	return &x, nil
}

const packageColumns = `p.id, COALESCE(t.title, p.title), COALESCE(t.description, p.description), p.category,
	p.country_code, p.base_price, p.currency, p.duration, p.max_participants, p.images,
	COALESCE(t.highlights, p.highlights), COALESCE(t.included, p.included),
	COALESCE(t.meeting_point, p.meeting_point), u.handle`

const packageFrom = ` FROM packages p JOIN experts e ON e.id = p.expert_id JOIN users u ON u.id = e.user_id
	LEFT JOIN package_translations t ON t.package_id = p.id AND t.locale = `

func scanPackage(s store.Scanner, p *guide.PackageSummary, extra ...any) error {
	var images, highlights, included []byte
	var meeting sql.NullString
	dest := append([]any{&p.ID, &p.Title, &p.Description, &p.Category, &p.CountryCode, &p.BasePrice,
		&p.Currency, &p.Duration, &p.MaxParticipants, &images, &highlights, &included, &meeting, &p.ExpertHandle}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	p.Images, p.Highlights, p.Included = store.StringList(images), store.StringList(highlights), store.StringList(included)
	p.MeetingPoint = store.NullString(meeting)
	return nil
}

// packageSorts are the ORDER BY expressions of sort. basePrice orders by
// the field as answered, whatever its currency, as the specification
// says; price compares prices in US dollars, converted with currency_rates
// (SetCurrencyRates) into usd_price by triggers (migration 00010), so that
// CNY, HKD and JPY prices sort together; a currency without a rate counts
// as dollars.
var packageSorts = map[string]string{
	"basePrice": "p.base_price", "price": "p.usd_price",
	"duration": "p.duration", "createdAt": "p.created_at",
}

// FindPackages returns a page of active packages of verified experts.
//
// Plan (both engines): the inner query walks packages_listed_<sort> (or
// packages_listed_category_<sort>, packages_listed_country_<sort>) alone,
// in the sort's direction, and stops after offset+limit rows. With an
// expert handle it reads that expert's packages by packages_expert and
// sorts those few. The outer query joins the page's ids to their details.
func (g *Guide) FindPackages(ctx context.Context, f guide.PackageFilter) (_ []guide.PackageSummary, _ int, err error) {
	defer store.Wrap(&err, "find packages")
	q, err := g.packagesQuery(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	return catalogPage(ctx, g, q, f.Page, func(s store.Scanner, version *int64) (guide.PackageSummary, error) {
		var p guide.PackageSummary
		err := scanPackage(s, &p, version)
		return p, err
	})
}

// packagesQuery is the list query of FindPackages.
// Errors: apperr.NotFound (no such expert).
func (g *Guide) packagesQuery(ctx context.Context, f guide.PackageFilter) (catalogQuery, error) {
	w := &store.Where{}
	w.And(publicPackage)
	set := map[string][]string{} // the filters set, for counted
	if f.Category != "" {
		w.And("lower(p.category) = " + w.Arg(strings.ToLower(f.Category)))
		set["category"] = []string{strings.ToLower(f.Category)}
	}
	if f.Country != "" {
		w.And("p.country_code = " + w.Arg(f.Country))
		set["country"] = []string{f.Country}
	}
	if f.ExpertHandle != "" {
		id, _, err := g.publicExpertID(ctx, f.ExpertHandle)
		if err != nil {
			return catalogQuery{}, err
		}
		w.And("p.expert_id = " + w.Arg(id))
		set["expert"] = []string{id}
	}
	filterArgs := len(w.Args)
	col, dir := packageSorts[f.Sort], store.Direction(f.Order)
	if col == "" {
		col = packageSorts["createdAt"]
	}
	return catalogQuery{
		list: "packages", id: "p.id", where: w, filterArgs: filterArgs, counted: counted(set),
		filter:  ` FROM packages p` + w.String(),
		columns: packageColumns,
		details: `JOIN packages p ON p.id = pg.id JOIN experts e ON e.id = p.expert_id JOIN users u ON u.id = e.user_id
			LEFT JOIN package_translations t ON t.package_id = p.id AND t.locale = ` + w.Arg(f.Locale),
		orderBy: col + ` ` + dir + `, p.id ` + dir,
	}, nil
}

// FindPackageByID returns an active package of a verified expert.
// Errors: apperr.NotFound.
func (g *Guide) FindPackageByID(ctx context.Context, id, locale string) (_ *guide.PackageDetail, err error) {
	defer store.Wrap(&err, "find package %s", id)
	var p guide.PackageDetail
	var excluded []byte
	err = scanPackage(g.db.QueryRowContext(ctx, `SELECT `+packageColumns+`, COALESCE(t.excluded, p.excluded)`+
		packageFrom+`$1 WHERE p.id = $2 AND `+publicPackage, locale, id),
		&p.PackageSummary, &excluded)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No package with id %q.", id)
	} else if err != nil {
		return nil, err
	}
	p.Excluded = store.StringList(excluded)
	return &p, nil
}

var reviewSorts = map[string]string{"createdAt": "r.created_at", "rating": "r.rating"}

// FindReviews returns a page of the reviews of a verified expert and the
// total.
// Errors: apperr.NotFound.
func (g *Guide) FindReviews(ctx context.Context, handle string, f guide.ReviewFilter) (_ []guide.Review, _ int, err error) {
	defer store.Wrap(&err, "find reviews of expert %s", handle)
	expertID, total, err := g.publicExpertID(ctx, handle)
	if err != nil {
		return nil, 0, err
	}
	col, dir := reviewSorts[f.Sort], store.Direction(f.Order)
	if col == "" {
		col = reviewSorts["createdAt"]
	}
	rows, err := g.db.QueryContext(ctx, `
		SELECT r.id, r.rating, r.comment, r.created_at, u.name, u.avatar, u.deleted_at IS NOT NULL
		FROM reviews r JOIN users u ON u.id = r.author_id
		WHERE r.expert_id = $1 AND `+publicReview+`
		ORDER BY `+col+` `+dir+`, r.created_at `+dir+`, r.id `+dir+`
		LIMIT $2 OFFSET $3`, expertID, f.PageSize, f.Offset())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []guide.Review{}
	for rows.Next() {
		var rv guide.Review
		var comment, name, avatar sql.NullString
		var deleted bool
		if err := rows.Scan(&rv.ID, &rv.Rating, &comment, &rv.CreatedAt, &name, &avatar, &deleted); err != nil {
			return nil, 0, err
		}
		rv.CreatedAt = rv.CreatedAt.UTC()
		rv.Comment = store.NullString(comment)
		rv.Author = guide.ReviewAuthor{Name: store.NullString(name), Avatar: store.NullString(avatar)}
		if deleted {
			rv.Author = guide.ReviewAuthor{Name: ptr(guide.DeletedUserName)}
		}
		out = append(out, rv)
	}
	return out, total, rows.Err()
}

const travelogueColumns = `tr.slug, COALESCE(t.title, tr.title), COALESCE(t.excerpt, tr.excerpt), tr.cover_image,
	tr.category, tr.location_tags, tr.score, tr.view_count, tr.comment_count, tr.published_at,
	u.handle, u.name, u.avatar, u.deleted_at IS NOT NULL`

const travelogueFrom = ` FROM travelogues tr JOIN users u ON u.id = tr.author_id
	LEFT JOIN travelogue_translations t ON t.travelogue_id = tr.id AND t.locale = `

func scanTravelogue(s store.Scanner, x *guide.TravelogueSummary, extra ...any) error {
	var excerpt, cover, name, avatar sql.NullString
	var tags []byte
	var published sql.NullTime
	var deleted bool
	dest := append([]any{&x.Slug, &x.Title, &excerpt, &cover, &x.Category, &tags, &x.Score, &x.ViewCount,
		&x.CommentCount, &published, &x.Author.Handle, &name, &avatar, &deleted}, extra...)
	if err := s.Scan(dest...); err != nil {
		return err
	}
	x.Excerpt, x.CoverImage, x.PublishedAt = store.NullString(excerpt), store.NullString(cover), store.NullTime(published)
	x.LocationTags = store.StringList(tags)
	x.Author.Name, x.Author.Avatar = store.NullString(name), store.NullString(avatar)
	if deleted {
		x.Author.Name, x.Author.Avatar = ptr(guide.DeletedUserName), nil
	}
	return nil
}

var travelogueSorts = map[string]string{
	"hotScore": "tr.hot_score", "score": "tr.score", "viewCount": "tr.view_count",
	"createdAt": "tr.created_at", "publishedAt": "tr.published_at",
}

// FindTravelogues returns a page of published travelogues and the total.
//
// Plan (both engines): the inner query reads travelogues_published_<sort>
// (or travelogues_published_category_<sort>) alone, in the sort's
// direction, offset+limit entries; the outer query joins the page's ids to
// the travelogue, its author and the translation.
func (g *Guide) FindTravelogues(ctx context.Context, f guide.TravelogueFilter) (_ []guide.TravelogueSummary, _ int, err error) {
	defer store.Wrap(&err, "find travelogues")
	return catalogPage(ctx, g, traveloguesQuery(f), f.Page, func(s store.Scanner, version *int64) (guide.TravelogueSummary, error) {
		var x guide.TravelogueSummary
		err := scanTravelogue(s, &x, version)
		return x, err
	})
}

// traveloguesQuery is the list query of FindTravelogues.
func traveloguesQuery(f guide.TravelogueFilter) catalogQuery {
	w := &store.Where{}
	w.And(publicTravelogue)
	set := map[string][]string{} // the filters set, for counted
	if f.Category != "" {
		w.And("lower(tr.category) = " + w.Arg(strings.ToLower(f.Category)))
		set["category"] = []string{strings.ToLower(f.Category)}
	}
	filterArgs := len(w.Args)
	col, dir := travelogueSorts[f.Sort], store.Direction(f.Order)
	if col == "" {
		col = travelogueSorts["hotScore"]
	}
	return catalogQuery{
		list: "travelogues", id: "tr.id", where: w, filterArgs: filterArgs,
		counted: counted(set),
		filter:  ` FROM travelogues tr` + w.String(),
		columns: travelogueColumns,
		details: `JOIN travelogues tr ON tr.id = pg.id JOIN users u ON u.id = tr.author_id
			LEFT JOIN travelogue_translations t ON t.travelogue_id = tr.id AND t.locale = ` + w.Arg(f.Locale),
		orderBy: col + ` ` + dir + `, tr.id ` + dir,
	}
}

// FindTravelogueBySlug returns a published travelogue.
// Errors: apperr.NotFound.
func (g *Guide) FindTravelogueBySlug(ctx context.Context, slug, locale string) (_ *guide.TravelogueDetail, err error) {
	defer store.Wrap(&err, "find travelogue %s", slug)
	return findTravelogue(ctx, g.db, slug, locale, "")
}

// findTravelogue returns a published travelogue, or a draft of the
// reader's when readerID is not "".
func findTravelogue(ctx context.Context, q store.Querier, slug, locale, readerID string) (*guide.TravelogueDetail, error) {
	var x guide.TravelogueDetail
	var images []byte
	err := scanTravelogue(q.QueryRowContext(ctx, `SELECT `+travelogueColumns+`,
		COALESCE(t.content, tr.content), tr.images, tr.created_at, tr.updated_at`+
		travelogueFrom+`$1 WHERE tr.slug = $2 AND (`+publicTravelogue+` OR tr.author_id = $3)`, locale, strings.ToLower(slug), readerID),
		&x.TravelogueSummary, &x.Content, &images, &x.CreatedAt, &x.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.Errorf(apperr.NotFound, "No travelogue with slug %q.", slug)
	} else if err != nil {
		return nil, err
	}
	x.Images = store.StringList(images)
	x.CreatedAt, x.UpdatedAt = x.CreatedAt.UTC(), x.UpdatedAt.UTC()
	return &x, nil
}

// FindCities lists the cities that have verified experts.
func (g *Guide) FindCities(ctx context.Context) (_ []guide.City, err error) {
	defer store.Wrap(&err, "find cities")
	rows, err := g.db.QueryContext(ctx, `
		SELECT DISTINCT e.location, e.country_code FROM experts e JOIN users u ON u.id = e.user_id
		WHERE `+publicExpert+` AND e.location IS NOT NULL AND e.country_code IS NOT NULL
		ORDER BY e.country_code, e.location`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []guide.City{}
	for rows.Next() {
		var c guide.City
		if err := rows.Scan(&c.Name, &c.CountryCode); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// FindSpecialties lists the specialties of verified experts.
func (g *Guide) FindSpecialties(ctx context.Context) (_ []string, err error) {
	defer store.Wrap(&err, "find specialties")
	rows, err := g.db.QueryContext(ctx, `
		SELECT DISTINCT specialty FROM expert_specialties WHERE listed = TRUE ORDER BY specialty`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func ptr[T any](v T) *T { return &v }
