package sample

import (
	"slices"
	"strconv"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
)

// seedFlag marks what sets an expert apart.
type seedFlag uint8

const (
	unverified  seedFlag = 1 << iota // verified_at NULL: never shown publicly
	noMessaging                      // messaging_enabled false
	aiReply                          // ai_auto_reply with instructions
	noRate                           // hourly_rate NULL
	newcomer                         // verified recently, no reviews yet
	demo                             // the demo expert account
)

type expertSeed struct {
	name  string // family name first, as on the guide's licence
	city  string
	flags seedFlag
}

// expertSeeds are the guides. Per market: CN 12 verified + 1 unverified,
// JP 11 (with the demo expert) + 1, KR 9 + 1, TW 9 + 1, HK 8, in 19 cities.
var expertSeeds = []expertSeed{
	{"Wang Mei", "Shanghai", aiReply},
	{"Zhang Wei", "Shanghai", 0},
	{"Chen Jing", "Shanghai", newcomer},
	{"Li Na", "Beijing", 0},
	{"Liu Yang", "Beijing", noMessaging},
	{"Zhao Lei", "Beijing", 0},
	{"Yang Xue", "Chengdu", aiReply},
	{"Huang Tao", "Chengdu", 0},
	{"Zhou Min", "Xi'an", 0},
	{"Wu Hao", "Xi'an", noRate},
	{"Xu Lan", "Guilin", 0},
	{"Sun Qian", "Hangzhou", 0},
	{"Ma Jun", "Shanghai", unverified},

	{"Mori Akiko", "Tokyo", demo},
	{"Sato Haruka", "Tokyo", aiReply},
	{"Suzuki Kenta", "Tokyo", 0},
	{"Takahashi Yui", "Tokyo", 0},
	{"Tanaka Aoi", "Kyoto", 0},
	{"Watanabe Sota", "Kyoto", noMessaging},
	{"Ito Sakura", "Kyoto", aiReply},
	{"Yamamoto Ren", "Osaka", 0},
	{"Nakamura Hina", "Osaka", 0},
	{"Kobayashi Daiki", "Sapporo", newcomer},
	{"Kato Misaki", "Fukuoka", 0},
	{"Yoshida Takumi", "Osaka", unverified},

	{"Kim Min-jun", "Seoul", aiReply},
	{"Lee Seo-yeon", "Seoul", 0},
	{"Park Ji-hoon", "Seoul", 0},
	{"Choi Yu-na", "Seoul", 0},
	{"Jung Do-hyun", "Busan", 0},
	{"Kang Ha-eun", "Busan", 0},
	{"Cho Seung-woo", "Busan", noRate},
	{"Yoon Ji-woo", "Jeju", 0},
	{"Jang Soo-min", "Jeju", 0},
	{"Lim Jae-won", "Seoul", unverified},

	{"Lin Yi-ting", "Taipei", aiReply},
	{"Chen Chih-hao", "Taipei", 0},
	{"Huang Pei-shan", "Taipei", 0},
	{"Chang Wei-lun", "Taipei", noMessaging},
	{"Wu Ya-ting", "Tainan", 0},
	{"Tsai Ming-hsuan", "Tainan", 0},
	{"Liu Chia-hui", "Kaohsiung", 0},
	{"Yang Chun-chieh", "Kaohsiung", 0},
	{"Hsu Hsin-yi", "Hualien", newcomer},
	{"Cheng Kuan-yu", "Taipei", unverified},

	{"Chan Ka-wai", "Hong Kong", 0},
	{"Wong Siu-ming", "Hong Kong", aiReply},
	{"Lee Wing-yan", "Hong Kong", 0},
	{"Cheung Chi-keung", "Hong Kong", 0},
	{"Lau Mei-ling", "Hong Kong", 0},
	{"Ng Ka-lok", "Hong Kong", 0},
	{"Leung Hoi-yan", "Hong Kong", 0},
	{"Ho Tsz-kin", "Hong Kong", 0},
}

// expertInfo is what the generator remembers about an expert.
type expertInfo struct {
	idx         int // in Dataset.Experts
	id, userID  string
	handle      string
	name, given string
	city        *city
	market      *market
	flags       seedFlag
	createdAt   time.Time
	verifiedAt  time.Time // zero when unverified
	specialties []string
	languages   []string
	hourlyRate  *float64
	packages    []*packageInfo
}

func (e *expertInfo) verified() bool       { return e.flags&unverified == 0 }
func (e *expertInfo) messaging() bool      { return e.flags&noMessaging == 0 }
func (e *expertInfo) speaks(l string) bool { return slices.Contains(e.languages, l) }

// activePackages are the expert's bookable packages.
func (e *expertInfo) activePackages() []*packageInfo {
	var out []*packageInfo
	for _, p := range e.packages {
		if p.active {
			out = append(out, p)
		}
	}
	return out
}

// addExperts adds every expert with its user, translations, languages and
// specialties.
func (g *generator) addExperts() {
	for _, s := range expertSeeds {
		e := g.addExpert(s)
		g.experts = append(g.experts, e)
		if s.flags&demo != 0 {
			g.demoExpert = e
		}
	}
}

func (g *generator) addExpert(s expertSeed) *expertInfo {
	c := cityNamed(s.city)
	m := marketOf(c.country)
	e := &expertInfo{name: s.name, given: givenName(s.name), city: c, market: m, flags: s.flags}

	handle, email, locale := slugify(s.name+" "+s.city), "", m.locale
	switch {
	case s.flags&demo != 0:
		handle, email, locale = DemoExpertHandle, DemoExpertEmail, "en"
	default:
		email = handle + "@guides.example.com"
	}
	e.handle = g.uniqueHandle(handle)

	switch {
	case s.flags&demo != 0:
		e.createdAt = date(2024, 4, 2).Add(10*time.Hour + 15*time.Minute)
	case s.flags&unverified != 0:
		e.createdAt = g.timeBetween(date(2026, 7, 1), date(2026, 10, 15))
	case s.flags&newcomer != 0:
		e.createdAt = g.timeBetween(date(2026, 8, 1), date(2026, 9, 10))
	default:
		e.createdAt = g.timeBetween(date(2024, 1, 8), date(2025, 12, 31))
	}
	if e.verified() {
		e.verifiedAt = g.after(e.createdAt, 3*day, 21*day)
	}
	e.specialties = g.specialtiesFor(e)
	e.languages = g.languagesFor(e)
	if s.flags&noRate == 0 {
		steps := int((m.rateMax - m.rateMin) / m.rateStep)
		e.hourlyRate = ptr(m.rateMin + float64(g.between(0, steps))*m.rateStep)
	}

	u := g.addUser(User{
		Handle: e.handle, Email: ptr(email), EmailVerified: true,
		Name: ptr(s.name), Nickname: optional(g.chance(0.5), e.given),
		Avatar: optional(s.flags&demo != 0 || g.chance(0.85), avatarPath(e.handle)),
		Role:   RoleExpert, Locale: locale, CreatedAt: e.createdAt, UpdatedAt: e.createdAt,
	})
	e.userID = u.ID

	sc := scene{city: c, place: g.rng.IntN(3), dish: g.rng.IntN(2)}
	bio := g.bio(e)
	x := Expert{
		ID: g.newID(e.createdAt), UserID: u.ID,
		Bio: ptr(bio[en]), Location: ptr(c.en()), CountryCode: m.country, Currency: m.currency,
		ProfileImage:     optional(s.flags&demo != 0 || g.chance(0.9), "/media/sample/experts/"+e.handle+".jpg"),
		CoverImage:       optional(s.flags&demo != 0 || g.chance(0.8), "/media/sample/covers/"+e.handle+".jpg"),
		HourlyRate:       e.hourlyRate,
		SocialLinks:      g.socialLinks(e),
		MessagingEnabled: e.messaging(),
		WeeklySchedule:   g.weeklySchedule(e),
		BlockedDates:     g.blockedDates(),
		Timezone:         m.timezone,
		AIAutoReply:      s.flags&aiReply != 0,
		VerifiedAt:       optional(e.verified(), e.verifiedAt),
		CreatedAt:        e.createdAt,
		UpdatedAt:        maxTime(e.createdAt, e.verifiedAt), // moved on by reviews
	}
	if x.AIAutoReply {
		x.AIInstructions = ptr(g.aiInstructions(e, sc))
	}
	e.id, e.idx = x.ID, len(g.ds.Experts)
	g.ds.Experts = append(g.ds.Experts, x)

	for _, l := range translatedLocales {
		g.ds.ExpertTranslations = append(g.ds.ExpertTranslations,
			ExpertTranslation{ExpertID: x.ID, Locale: localeCodes[l], Bio: ptr(bio[l])})
	}
	for i, lang := range e.languages {
		g.ds.ExpertLanguages = append(g.ds.ExpertLanguages, ExpertLanguage{ExpertID: x.ID, Language: lang, Position: i})
	}
	for i, tag := range e.specialties {
		g.ds.ExpertSpecialties = append(g.ds.ExpertSpecialties, ExpertSpecialty{ExpertID: x.ID, Specialty: tag, Position: i})
	}
	return e
}

// specialtiesFor picks 2 to 4 tags, mostly from the city's typical ones.
func (g *generator) specialtiesFor(e *expertInfo) []string {
	if e.flags&demo != 0 {
		return []string{"food", "nightlife", "culture", "photography"}
	}
	pool := e.city.tags
	n := g.between(2, min(4, len(pool)))
	tags := make([]string, 0, n)
	for _, i := range g.rng.Perm(len(pool))[:n] {
		tags = append(tags, pool[i])
	}
	if n < 4 && g.chance(0.2) {
		if t := pick(g, Specialties()); !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return tags
}

// marketLanguages are each market's native language and the others its
// guides often speak besides English.
var marketLanguages = []struct {
	country string
	native  string
	extras  []string
}{
	{"CN", "zh", []string{"ja", "fr", "de", "es", "ko"}},
	{"JP", "ja", []string{"zh", "ko", "fr", "es"}},
	{"KR", "ko", []string{"ja", "zh", "es"}},
	{"TW", "zh-TW", []string{"ja", "ko", "th"}},
	{"HK", "yue", []string{"zh", "fr", "de", "ja"}},
}

// languagesFor returns 2 to 4 codes: the native language, English, and up
// to two more.
func (g *generator) languagesFor(e *expertInfo) []string {
	if e.flags&demo != 0 {
		return []string{"ja", "en", "zh"}
	}
	for _, ml := range marketLanguages {
		if ml.country != e.market.country {
			continue
		}
		langs := []string{ml.native, "en"}
		if ml.country == "HK" && g.chance(0.7) {
			langs = append(langs, "zh")
		}
		for n := g.pickIndex([]int{5, 4, 1}); n > 0 && len(langs) < 4; n-- {
			if l := pick(g, ml.extras); !slices.Contains(langs, l) {
				langs = append(langs, l)
			}
		}
		return langs
	}
	panic("sample: no languages for " + e.market.country)
}

// Bios are composed sentence by sentence; the banks are parallel across
// locales, so each translation says what the English says.
var (
	bioIntros = []tr{
		{
			"Born and raised in {city}, I have been showing visitors around my hometown for {years} years.",
			"我是土生土长的{city}人，带游客游览家乡已经{years}年了。",
			"我是土生土長的{city}人，帶旅客認識家鄉已經{years}年了。",
			"{city}で生まれ育ち、地元を案内するガイドとして{years}年活動しています。",
			"{city}에서 나고 자랐으며, 고향을 여행자들에게 소개한 지 {years}년이 되었습니다.",
		},
		{
			"I moved to {city} {years} years ago and never left; now I share the city I call home with travellers from all over the world.",
			"{years}年前我搬到{city}，从此再也没有离开；如今我把这座我称之为家的城市介绍给来自世界各地的旅行者。",
			"{years}年前我搬到{city}，從此就沒有離開過；如今我把這座我稱為家的城市介紹給來自世界各地的旅人。",
			"{years}年前に{city}へ移り住み、そのまますっかり根を下ろしました。今では、我が家と呼べるこの街を世界中の旅行者にご紹介しています。",
			"{years}년 전 {city}에 이사 온 뒤로 한 번도 떠나지 않았고, 지금은 제 집이 된 이 도시를 전 세계 여행자들에게 소개하고 있습니다.",
		},
		{
			"I have been a licensed guide in {city} for {years} years, and I still find new corners every month.",
			"我在{city}做持证导游已经{years}年了，至今每个月都还能发现新的角落。",
			"我在{city}擔任持證導遊已經{years}年，到現在每個月都還會發現新的角落。",
			"{city}で公認ガイドとして{years}年活動していますが、今でも毎月のように新しい発見があります。",
			"{city}에서 공인 가이드로 활동한 지 {years}년이 되었지만, 지금도 매달 새로운 골목을 발견합니다.",
		},
	}
	bioFocus = []tr{
		{"My tours focus on {specs}.", "我的行程以{specs}为主。", "我的行程以{specs}為主。", "ツアーのテーマは{specs}です。", "제 투어는 {specs}에 초점을 맞추고 있습니다."},
		{"I am happiest when I can talk about {specs}.", "只要聊起{specs}，我就停不下来。", "只要聊到{specs}，我就停不下來。", "{specs}の話になると、つい夢中になってしまいます。", "{specs} 이야기라면 시간 가는 줄 모릅니다."},
	}
	bioStyles = []tr{
		{
			"I keep groups small so everyone can ask questions and nobody gets left behind.",
			"我坚持小团出行，这样每个人都能随时提问，也不会有人掉队。",
			"我堅持小團出遊，讓每個人都能隨時發問，也不會有人落隊。",
			"少人数制にこだわっているので、誰でも気軽に質問でき、置いていかれる人もいません。",
			"소규모로 진행하기 때문에 누구나 편하게 질문할 수 있고 뒤처지는 사람도 없습니다.",
		},
		{
			"Every route is flexible: tell me what you love and I will shape the day around it.",
			"每条路线都很灵活：告诉我你喜欢什么，我就围绕它来安排这一天。",
			"每條路線都很彈性：告訴我你喜歡什麼，我就以它為主來安排這一天。",
			"ルートはいつでも柔軟に変えられます。お好きなものを教えていただければ、それに合わせて一日を組み立てます。",
			"모든 코스는 유연하게 바꿀 수 있어요. 좋아하는 것을 알려 주시면 그에 맞춰 하루를 꾸며 드립니다.",
		},
		{
			"Before guiding I worked as a journalist, so expect plenty of stories.",
			"做导游之前我当过记者，所以一路上少不了各种故事。",
			"當導遊之前我做過記者，所以一路上少不了各種故事。",
			"ガイドになる前は記者をしていたので、道中のエピソードには事欠きません。",
			"가이드가 되기 전에는 기자로 일했기 때문에 들려드릴 이야기가 정말 많습니다.",
		},
		{
			"I love introducing travellers to the small family businesses that make my city special.",
			"我很喜欢带旅行者认识那些让这座城市与众不同的家庭小店。",
			"我很喜歡帶旅人認識那些讓這座城市與眾不同的家庭小店。",
			"この街を特別なものにしている家族経営の小さなお店を紹介するのが大好きです。",
			"이 도시를 특별하게 만드는 작은 가족 가게들을 소개하는 것을 정말 좋아합니다.",
		},
		{
			"Families are always welcome; I have two children and know how to keep little ones interested.",
			"非常欢迎家庭出游；我自己有两个孩子，很懂得怎么让小朋友保持兴趣。",
			"非常歡迎全家一起來；我自己有兩個孩子，很懂得怎麼讓小朋友保持興趣。",
			"ご家族連れも大歓迎です。私自身2人の子どもがいるので、小さなお子様を飽きさせないコツを心得ています。",
			"가족 여행객도 언제나 환영합니다. 저도 두 아이의 부모라서 아이들이 지루해하지 않게 하는 방법을 잘 알아요.",
		},
		{
			"I studied art history, and I enjoy showing how the past is still visible in everyday streets.",
			"我学的是艺术史，很喜欢带大家看看历史如何仍然留在日常的街道上。",
			"我念的是藝術史，很喜歡帶大家看看歷史如何仍然留在日常的街道上。",
			"大学では美術史を学びました。日常の街並みに今も残る歴史の面影をお見せするのが楽しみです。",
			"대학에서 미술사를 공부했고, 일상의 거리 곳곳에 남아 있는 과거의 흔적을 보여 드리는 것을 좋아합니다.",
		},
	}
	bioLanguages = tr{"I guide in {langs}.", "我可以用{langs}讲解。", "我可以用{langs}導覽。", "{langs}でご案内できます。", "{langs}로 안내해 드립니다."}
	bioClosings  = []tr{
		{"See you in {city}!", "期待在{city}与你相见！", "期待在{city}與你相見！", "{city}でお会いできるのを楽しみにしています！", "{city}에서 만나요!"},
		{"Message me any time; I usually answer within a few hours.", "欢迎随时给我发消息，我通常几个小时内就会回复。", "歡迎隨時傳訊息給我，我通常幾個小時內就會回覆。", "いつでもお気軽にメッセージをどうぞ。たいてい数時間以内にお返事します。", "언제든 메시지 주세요. 보통 몇 시간 안에 답장드립니다."},
		{"Come hungry and curious.", "请带着好胃口和好奇心来吧。", "請帶著好胃口和好奇心來吧。", "お腹を空かせて、好奇心を持っていらしてください。", "배는 비우고 호기심은 가득 채워서 오세요."},
		{"Let me show you the {city} I love.", "让我带你看看我所热爱的{city}。", "讓我帶你看看我所熱愛的{city}。", "私の大好きな{city}をご案内させてください。", "제가 사랑하는 {city}의 모습을 보여 드릴게요."},
	}
)

// bio composes the expert's bio in every locale.
func (g *generator) bio(e *expertInfo) tr {
	years := strconv.Itoa(g.between(2, 15))
	intro, focus := pick(g, bioIntros), pick(g, bioFocus)
	style, closing := pick(g, bioStyles), pick(g, bioClosings)
	var out tr
	for l := range nLocales {
		var specs, langs []string
		for _, t := range e.specialties {
			specs = append(specs, specialtyName(t)[l])
		}
		for _, code := range e.languages {
			if n := languageName(code)[l]; !slices.Contains(langs, n) {
				langs = append(langs, n)
			}
		}
		vars := []string{"{city}", e.city.name[l], "{years}", years,
			"{specs}", joinList(l, specs), "{langs}", joinList(l, langs)}
		out[l] = joinSentences(l,
			fill(intro[l], vars), fill(focus[l], vars), fill(style[l], vars),
			fill(bioLanguages[l], vars), fill(closing[l], vars))
	}
	return out
}

// aiInstructions are what an expert tells the reply assistant; the first
// line is always given, then a few of the others.
var aiInstructions = []string{
	"Answer in the traveller's language, warmly and in no more than four sentences.",
	"Never confirm a booking or a date yourself; say that I confirm every request personally within 24 hours.",
	"Only quote prices from my packages. For custom tours, say I will prepare a quote myself.",
	"If someone asks where to eat, recommend {dish} near {place}.",
	"When people ask about the weather, mention that every tour has a rain plan.",
	"Sign off as “{given}'s assistant” so nobody thinks it is me typing.",
	"For anything about safety, health or an emergency, tell them to call the local emergency number first and that I will reply as soon as I can.",
}

func (g *generator) aiInstructions(e *expertInfo, sc scene) string {
	lines := append([]string{aiInstructions[0]}, subset(g, aiInstructions[1:], g.between(2, 4))...)
	vars := append(sc.vars(en), "{given}", e.given)
	for i, line := range lines {
		lines[i] = fill(line, vars)
	}
	return joinSentences(en, lines...)
}

// socialLinks returns the expert's profiles; about one in four lists none.
func (g *generator) socialLinks(e *expertInfo) map[string]string {
	links := map[string]string{}
	if e.flags&demo == 0 && g.chance(0.25) {
		return links
	}
	links["instagram"] = "https://instagram.com/" + e.handle
	if g.chance(0.5) {
		links["website"] = "https://" + e.handle + ".example.com"
	}
	if g.chance(0.3) {
		links["youtube"] = "https://youtube.com/@" + e.handle
	}
	if e.market.country == "CN" && g.chance(0.5) {
		links["weibo"] = "https://weibo.com/" + e.handle
	}
	return links
}

// Working-hour patterns of weekly schedules.
var (
	dayHours     = []guide.TimeSlot{{Start: "09:00", End: "17:00"}}
	splitHours   = []guide.TimeSlot{{Start: "09:00", End: "12:00"}, {Start: "14:00", End: "18:00"}}
	longHours    = []guide.TimeSlot{{Start: "08:30", End: "12:30"}, {Start: "13:30", End: "19:30"}}
	morningHours = []guide.TimeSlot{{Start: "06:30", End: "13:00"}}
	eveningHours = []guide.TimeSlot{{Start: "17:00", End: "23:30"}}
	lateHours    = []guide.TimeSlot{{Start: "12:00", End: "22:00"}}
	weekendHours = []guide.TimeSlot{{Start: "10:00", End: "16:00"}}
)

// weeklySchedule gives the expert one to three days off and working hours
// that suit the specialties; every weekday key is present.
func (g *generator) weeklySchedule(e *expertInfo) guide.WeeklySchedule {
	hours := pick(g, [][]guide.TimeSlot{dayHours, splitHours, longHours})
	switch {
	case e.specialties[0] == "nightlife":
		hours = eveningHours
	case slices.Contains(e.specialties, "nightlife"):
		hours = lateHours
	case (slices.Contains(e.specialties, "photography") || slices.Contains(e.specialties, "hiking")) && g.chance(0.5):
		hours = morningHours
	}
	off := map[int]bool{}
	for _, d := range g.rng.Perm(7)[:g.pickIndex([]int{0, 5, 4, 1})] {
		off[d] = true
	}
	weekend := g.chance(0.4)
	s := guide.WeeklySchedule{}
	for d, key := range guide.Weekdays {
		switch {
		case off[d]:
			s[key] = []guide.TimeSlot{}
		case d >= 5 && weekend:
			s[key] = slices.Clone(weekendHours)
		default:
			s[key] = slices.Clone(hours)
		}
	}
	return s
}

var blockedReasons = []*string{ptr("Family visit"), ptr("Guide training"), ptr("Year-end holidays"), ptr("Private event"), nil}

// blockedDates returns one to three days off in December 2026 or January
// 2027, in date order.
func (g *generator) blockedDates() []guide.BlockedDate {
	start := date(2026, 12, 1)
	days := g.rng.Perm(62)[:g.between(1, 3)]
	slices.Sort(days)
	out := make([]guide.BlockedDate, len(days))
	for i, d := range days {
		out[i] = guide.BlockedDate{Date: start.Add(time.Duration(d) * day).Format(time.DateOnly), Reason: pick(g, blockedReasons)}
	}
	return out
}
