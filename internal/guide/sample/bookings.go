package sample

import (
	"cmp"
	"slices"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
)

// Booking counts besides the reviewed ones (the demo traveller's come on
// top).
const (
	completedUnreviewed = 29
	cancelledBookings   = 20
	upcomingBookings    = 8 // half PENDING, half CONFIRMED
)

// lastTourDay is the last day a completed sample tour took place.
var lastTourDay = date(2026, 10, 10)

// Upcoming tours take place in this window.
// (Their start may move on by a few days to a day the expert works.)
var upcomingFrom, upcomingTo = date(2026, 12, 1), date(2027, 1, 22)

// addBookings adds the demo traveller's bookings, the reviewed bookings of
// every established expert, and completed, cancelled and upcoming bookings
// without reviews; then it sets every expert's rating.
func (g *generator) addBookings() {
	g.pairs = map[[2]string]bool{}
	g.addDemoBookings()
	for _, e := range g.experts {
		if !e.verified() || e.flags&newcomer != 0 {
			continue
		}
		n := 3 + g.rng.IntN(12)
		if e == g.demoExpert {
			n = 6
		}
		for range n {
			b, t := g.pastBooking(e, nil, StatusCompleted, g.reviewedBefore(e), time.Time{})
			g.addReview(b, e, t)
		}
	}
	established := g.bookableExperts(false)
	for range completedUnreviewed {
		g.pastBooking(pick(g, established), nil, StatusCompleted, nil, time.Time{})
	}
	all := g.bookableExperts(true)
	for range cancelledBookings {
		if g.chance(0.3) {
			g.upcomingBooking(pick(g, all), nil, StatusCancelled, time.Time{})
		} else {
			g.pastBooking(pick(g, established), nil, StatusCancelled, nil, time.Time{})
		}
	}
	for i := range upcomingBookings {
		status := StatusPending
		if i%2 == 1 {
			status = StatusConfirmed
		}
		g.upcomingBooking(pick(g, all), nil, status, time.Time{})
	}
	g.setRatings()
	byCreated := func(a, b time.Time, x, y string) int {
		return cmp.Or(a.Compare(b), cmp.Compare(x, y))
	}
	slices.SortStableFunc(g.ds.Bookings, func(a, b Booking) int { return byCreated(a.CreatedAt, b.CreatedAt, a.ID, b.ID) })
	slices.SortStableFunc(g.ds.Reviews, func(a, b Review) int { return byCreated(a.CreatedAt, b.CreatedAt, a.ID, b.ID) })
}

// addDemoBookings gives the demo traveller a reviewed tour in Kyoto and,
// with the demo expert, a completed tour still to review, a confirmed one
// and a pending one in January 2027.
func (g *generator) addDemoBookings() {
	t, e := g.demoTraveller, g.demoExpert
	kyoto := g.expertByHandle("tanaka-aoi-kyoto")
	b, _ := g.pastBooking(kyoto, t, StatusCompleted, nil, time.Time{})
	g.addReview(b, kyoto, t)
	g.pastBooking(e, t, StatusCompleted, nil, date(2026, 9, 19))
	g.upcomingBooking(e, t, StatusConfirmed, date(2027, 1, 9))
	g.upcomingBooking(e, t, StatusPending, date(2027, 1, 16))
}

func (g *generator) expertByHandle(handle string) *expertInfo {
	for _, e := range g.experts {
		if e.handle == handle {
			return e
		}
	}
	panic("sample: no expert " + handle)
}

// bookableExperts are the verified experts with active packages; with
// newcomers or without.
func (g *generator) bookableExperts(newcomers bool) []*expertInfo {
	var out []*expertInfo
	for _, e := range g.experts {
		if e.verified() && (newcomers || e.flags&newcomer == 0) && len(e.activePackages()) > 0 {
			out = append(out, e)
		}
	}
	return out
}

// reviewedBefore reports whether a traveller already reviewed e, so that
// each review of an expert comes from a different traveller when possible.
func (g *generator) reviewedBefore(e *expertInfo) func(*touristInfo) bool {
	return func(t *touristInfo) bool { return g.pairs[[2]string{t.id, e.id}] }
}

// Requests travellers add to bookings.
var (
	customRequests = []string{
		"We are a family with two kids (6 and 9). Could we keep the walking short?",
		"One of us is vegetarian, please.",
		"Could we start an hour later? Our train arrives at 10.",
		"It's my partner's birthday, any small surprise would be lovely!",
		"My mother uses a walking stick, so fewer stairs please.",
		"We would love to spend more time at the markets.",
		"First time in Asia, we're open to anything!",
	}
	privateRequests = []string{
		"Private half-day tour around {place} with time for photos.",
		"Could you plan a day around {dish} and local markets for the two of us?",
		"We would like a private tour of {place} and {place2} with lunch somewhere local.",
	}
)

// choosePackage picks an active package of e, or nil for a private request
// (about one booking in fourteen).
func (g *generator) choosePackage(e *expertInfo) *packageInfo {
	active := e.activePackages()
	if e != g.demoExpert && g.chance(0.07) {
		return nil
	}
	return pick(g, active)
}

// tourStart is when a tour of p starts on the first day from the date of
// on (a UTC time standing for that local date) that the expert works and
// has not blocked: at the category's usual hour, or when the expert starts
// work if that hour is outside the day's working hours.
func (g *generator) tourStart(e *expertInfo, p *packageInfo, on time.Time) time.Time {
	x := &g.ds.Experts[e.idx]
	hour := 10
	if p != nil {
		hour = p.cat.startHour
	}
	hour += pick(g, []int{0, 0, 0, 1, -1})
	for ; ; on = on.Add(day) {
		slots := x.WeeklySchedule[guide.Weekdays[(on.Weekday()+6)%7]]
		blocked := slices.ContainsFunc(x.BlockedDates, func(b guide.BlockedDate) bool { return b.Date == on.Format(time.DateOnly) })
		if len(slots) == 0 || blocked {
			continue
		}
		h := clockHour(slots[0].Start, true)
		for _, s := range slots {
			if hour >= clockHour(s.Start, true) && hour < clockHour(s.End, false) {
				h = hour
			}
		}
		y, m, d := on.Date()
		return time.Date(y, m, d, h, 0, 0, 0, e.market.zone()).UTC()
	}
}

// clockHour is the hour of an "HH:MM" time, rounded up or down to a whole
// hour.
func clockHour(hhmm string, up bool) int {
	t, err := time.Parse("15:04", hhmm)
	if err != nil {
		panic("sample: bad time " + hhmm)
	}
	if up && t.Minute() > 0 {
		return t.Hour() + 1
	}
	return t.Hour()
}

// newBooking fills the fields of a booking that do not depend on its
// status.
func (g *generator) newBooking(e *expertInfo, t *touristInfo, p *packageInfo, start, created time.Time) Booking {
	b := Booking{
		ID: g.newID(created), TouristID: t.id, ExpertID: ptr(e.id),
		ScheduledDate: start, CreatedAt: created,
	}
	sc := scene{city: e.city, place: g.rng.IntN(3), dish: g.rng.IntN(2)}
	sc.place2, sc.dish2 = (sc.place+1)%3, 1-sc.dish
	hours := g.between(3, 6)
	if p != nil {
		pk := g.pkg(p)
		b.PackageID, b.Price, b.Currency = ptr(pk.ID), ptr(pk.BasePrice), ptr(pk.Currency)
		hours = pk.Duration
		b.Participants = g.between(1, min(6, pk.MaxParticipants))
		if g.chance(0.25) {
			b.CustomRequest = ptr(pick(g, customRequests))
		}
		if pk.MeetingPoint != nil && g.chance(0.5) {
			b.MeetingLocation = ptr(*pk.MeetingPoint)
		}
	} else {
		b.Participants = g.between(1, 4)
		b.CustomRequest = ptr(fill(pick(g, privateRequests), sc.vars(en)))
		b.MeetingLocation = ptr(fill("Lobby of our hotel near {place}", sc.vars(en)))
	}
	b.Duration = ptr(hours)
	b.ScheduledEndDate = ptr(start.Add(time.Duration(hours) * time.Hour))
	return b
}

// pastBooking adds a COMPLETED or CANCELLED booking of e that took (or was
// to take) place by lastTourDay, on the date on when it is set. The traveller is t,
// or one who had an account by then and for whom skip is false.
func (g *generator) pastBooking(e *expertInfo, t *touristInfo, status string, skip func(*touristInfo) bool, on time.Time) (*Booking, *touristInfo) {
	p := g.choosePackage(e)
	earliest := e.verifiedAt
	if p != nil {
		earliest = maxTime(earliest, g.pkg(p).CreatedAt)
	}
	for attempt := 0; ; attempt++ {
		if attempt == 1000 {
			panic("sample: no traveller for a booking of " + e.handle)
		}
		d := on
		if d.IsZero() {
			d = g.timeBetween(earliest.Add(10*day), lastTourDay)
		}
		start := g.tourStart(e, p, d)
		created := start.Add(-g.durationBetween(3*day, 40*day))
		if created.Before(earliest) {
			created = g.timeBetween(earliest, start.Add(-day))
		}
		tourist := t
		if tourist == nil {
			tourist = g.touristCreatedBefore(created, skip)
		}
		if tourist == nil || !tourist.createdAt.Before(created) {
			continue // no account yet: try another day
		}
		b := g.newBooking(e, tourist, p, start, created)
		confirmed := g.timeBetween(created.Add(time.Hour), minTime(created.Add(36*time.Hour), start.Add(-time.Hour)))
		switch status {
		case StatusCompleted:
			done := b.ScheduledEndDate.Add(g.durationBetween(0, 45*time.Minute))
			b.Status, b.ConfirmedAt, b.CompletedAt, b.UpdatedAt = status, ptr(confirmed), ptr(done), done
		case StatusCancelled:
			g.cancel(&b, confirmed, start)
		}
		g.ds.Bookings = append(g.ds.Bookings, b)
		return &g.ds.Bookings[len(g.ds.Bookings)-1], tourist
	}
}

// upcomingBooking adds a PENDING, CONFIRMED or CANCELLED booking of e for a
// tour between upcomingFrom and upcomingTo, on the date on when it is set.
func (g *generator) upcomingBooking(e *expertInfo, t *touristInfo, status string, on time.Time) {
	p := g.choosePackage(e)
	earliest := maxTime(e.verifiedAt, date(2026, 9, 15))
	if p != nil {
		earliest = maxTime(earliest, g.pkg(p).CreatedAt)
	}
	if on.IsZero() {
		on = g.timeBetween(upcomingFrom, upcomingTo)
	}
	start := g.tourStart(e, p, on)
	created := g.timeBetween(earliest.Add(time.Hour), Horizon.Add(-3*day))
	if t == nil {
		t = g.touristCreatedBefore(created, nil)
	}
	b := g.newBooking(e, t, p, start, created)
	confirmed := g.timeBetween(created.Add(time.Hour), minTime(created.Add(72*time.Hour), Horizon.Add(-time.Hour)))
	b.Status, b.UpdatedAt = status, created
	switch status {
	case StatusConfirmed:
		b.ConfirmedAt, b.UpdatedAt = ptr(confirmed), confirmed
	case StatusCancelled:
		g.cancel(&b, confirmed, Horizon)
	}
	g.ds.Bookings = append(g.ds.Bookings, b)
}

// cancel cancels b before the earlier of start and Horizon, by the
// traveller more often than by the expert; half were confirmed first (at
// confirmed).
func (g *generator) cancel(b *Booking, confirmed, start time.Time) {
	b.Status = StatusCancelled
	from := b.CreatedAt
	if g.chance(0.5) {
		b.ConfirmedAt, from = ptr(confirmed), confirmed
	}
	at := g.timeBetween(from.Add(time.Hour), minTime(start, Horizon).Add(-time.Hour))
	b.CancelledAt, b.UpdatedAt = ptr(at), at
	b.CancelledBy = ptr("tourist")
	if g.chance(0.3) {
		b.CancelledBy = ptr("expert")
	}
}

func (g *generator) durationBetween(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(g.rng.Int64N(int64(hi-lo)/int64(time.Second)+1))*time.Second
}

// Reviews.

// ratingWeights skew ratings high: mostly 4 and 5, some 3, rarely 1 or 2.
var ratingWeights = []int{0, 2, 3, 10, 30, 55} // index: rating

// reviewComments are comments by language and tone; {name} is the
// expert's given name and {city} the city in the comment's language.
var reviewComments = []struct {
	locale         string
	high, mid, low []string
}{
	{"en",
		[]string{
			"{name} made {city} come alive for us. We saw so much more than we would have on our own, and the pace was perfect.",
			"Fantastic day! {name} knew every shortcut and every snack stall. Highly recommended.",
			"Our kids loved it, which says a lot. {name} was patient, funny and full of stories.",
			"Best food experience of our whole trip. Come hungry!",
			"Very knowledgeable and easy to talk to. {name} even helped us book a restaurant for the next evening.",
			"We booked on our first day and it set us up for the whole week in {city}. Great tips.",
			"Well organised, on time, and great value. Would book again.",
			"{name} adapted the route when it started raining and we still had a wonderful time.",
			"I travel solo and felt completely at ease. Lovely conversations and beautiful places.",
			"The photos {name} helped me take are the best of my trip.",
			"A real local's view of {city}. The hidden places were the highlight.",
			"Friendly, relaxed and very informative. Thank you, {name}!",
		},
		[]string{
			"Nice tour, but a bit rushed at the end. {name} was friendly though.",
			"Good guide, but the route overlapped with things we had already seen.",
			"Pleasant enough. The food stops were great, the walking part was long.",
			"Decent experience. It started 20 minutes late, but {name} made up for it.",
		},
		[]string{
			"Not what we expected. The tour was much shorter than advertised.",
			"Our guide seemed distracted and we spent a lot of time waiting around.",
			"Too crowded and too rushed for the price.",
		}},
	{"zh",
		[]string{
			"导游非常专业，讲解生动有趣，带我们发现了{city}很多不为人知的地方。",
			"行程安排得很合理，美食也都很地道，强烈推荐！",
			"带着父母一起参加，节奏刚好，老人家也不觉得累。下次还会再约。",
			"非常贴心，还帮我们推荐了之后几天的餐厅，太感谢了！",
			"拍照技术一流，帮我们拍了好多好看的照片。",
		},
		[]string{"整体还不错，就是后半段有点赶。", "讲解很好，不过有些景点我们之前已经去过了。"},
		[]string{"和描述的不太一样，时间比说好的短。"}},
	{"zh-TW",
		[]string{
			"導遊非常專業，講解生動有趣，帶我們發現了{city}許多不為人知的地方。",
			"行程安排得很順，美食也都很道地，大推！",
			"帶爸媽一起參加，步調剛好，長輩也不覺得累。下次還會再約。",
			"非常貼心，還幫我們推薦了接下來幾天的餐廳，太感謝了！",
		},
		[]string{"整體還不錯，只是後半段有點趕。"},
		[]string{"和介紹的不太一樣，時間比說好的短。"}},
	{"ja",
		[]string{
			"とても親切で、{city}の知らなかった魅力をたくさん教えてもらいました。",
			"食べ歩きが最高でした！自分たちだけでは絶対に入れないお店ばかりでした。",
			"英語が苦手でも丁寧に説明してくれて安心でした。またお願いしたいです。",
			"写真のアドバイスがとても分かりやすく、いい思い出になりました。",
			"時間配分が絶妙で、子ども連れでも無理なく楽しめました。",
		},
		[]string{"内容は良かったのですが、最後は少し駆け足でした。", "ガイドさんは親切でしたが、思っていたより歩く距離が長かったです。"},
		[]string{"説明と実際の内容がかなり違っていて残念でした。"}},
	{"ko",
		[]string{
			"가이드님 덕분에 {city}의 숨은 매력을 제대로 느꼈어요. 강력 추천합니다!",
			"맛집 선택이 정말 최고였어요. 혼자서는 절대 못 찾았을 곳들이에요.",
			"부모님과 함께 갔는데 속도도 적당하고 설명도 친절해서 모두 만족했습니다.",
			"사진을 정말 잘 찍어 주셔서 인생샷 많이 건졌어요.",
			"시간 약속도 잘 지키시고 준비를 철저히 해 오셔서 감동받았어요.",
		},
		[]string{"전체적으로 괜찮았지만 마지막에 조금 급하게 끝났어요.", "설명은 좋았는데 이미 가 본 곳이 많아서 조금 아쉬웠어요."},
		[]string{"소개 글과 실제 내용이 많이 달라서 실망했어요."}},
}

// addReview adds the traveller's review of the completed booking b.
func (g *generator) addReview(b *Booking, e *expertInfo, t *touristInfo) {
	g.pairs[[2]string{t.id, e.id}] = true
	rating := g.pickIndex(ratingWeights)
	created := b.CompletedAt.Add(g.durationBetween(3*time.Hour, 9*day))
	g.ds.Reviews = append(g.ds.Reviews, Review{
		ID: g.newID(created), BookingID: b.ID, ExpertID: e.id, AuthorID: t.id,
		Rating: rating, Comment: g.reviewComment(e, t, rating), CreatedAt: created,
	})
}

// reviewComment writes in the traveller's language most of the time and
// in English otherwise; a few reviews have no comment.
func (g *generator) reviewComment(e *expertInfo, t *touristInfo, rating int) *string {
	if g.chance(0.08) {
		return nil
	}
	locale := "en"
	if g.chance(0.85) {
		locale = t.locale
	}
	for _, rc := range reviewComments {
		if rc.locale != locale {
			continue
		}
		bank := rc.high
		switch {
		case rating == 3:
			bank = rc.mid
		case rating < 3:
			bank = rc.low
		}
		l := slices.Index(localeCodes[:], locale)
		return ptr(fill(pick(g, bank), []string{"{name}", e.given, "{city}", e.city.name[l]}))
	}
	panic("sample: no review comments in " + locale)
}

// setRatings stores each expert's review count and average rating, and
// moves updated_at to the newest review.
func (g *generator) setRatings() {
	sums := make([]int, len(g.ds.Experts))
	counts := make([]int, len(g.ds.Experts))
	index := map[string]int{}
	for i, x := range g.ds.Experts {
		index[x.ID] = i
	}
	for _, r := range g.ds.Reviews {
		i := index[r.ExpertID]
		sums[i] += r.Rating
		counts[i]++
		x := &g.ds.Experts[i]
		x.UpdatedAt = maxTime(x.UpdatedAt, r.CreatedAt)
	}
	for i := range g.ds.Experts {
		x := &g.ds.Experts[i]
		x.ReviewCount = counts[i]
		if counts[i] > 0 {
			x.Rating = float64(sums[i]) / float64(counts[i])
		}
	}
}
