package sample

import (
	"slices"
	"strconv"
	"time"
)

// script is a conversation a traveller starts with an expert: lines
// alternate, the traveller's first. Placeholders: {name} the expert's
// given name, {tname} the traveller's, {city}, {place} and {dish} of the
// expert's city, {pkg} a package title, {max} its group size and {meeting}
// its meeting point, all in the script's language.
type script struct {
	locale string
	lines  []string
	image  int // index of the line sent as a photo with that caption, or -1
}

var scripts = []script{
	{"en", []string{
		"Hi {name}! We're visiting {city} in December. Is “{pkg}” suitable for two kids aged 7 and 10?",
		"Hello {tname}, thanks for your message! Yes, children are very welcome. I can shorten the walking parts and add a snack break.",
		"That sounds perfect. Do we need to bring anything?",
		"Just comfortable shoes and a water bottle. Evenings can be chilly in December, so a light jacket is a good idea.",
		"Great. How do we pay, by the way?",
		"We agree on the price directly; nothing is paid through the platform. Most guests pay on the day.",
		"Understood. We'll send a booking request for the morning slot.",
		"Wonderful, I'll confirm it as soon as it comes in. See you in {city}!",
		"Thank you so much!",
		"My pleasure. Let me know if anything changes.",
	}, -1},
	{"en", []string{
		"Hello! I'm vegetarian. Will I still be able to enjoy the food on your tour?",
		"Of course! Most stops have excellent vegetarian options, and I'll ask the others to prepare something special.",
		"Amazing. Is {dish} something I could try?",
		"There is a vegetarian version near {place} that even my meat-loving friends prefer.",
		"Ha, sold! Is it OK if my friend joins? She eats everything.",
		"Absolutely, the tour takes up to {max} people. Just set two participants in your request.",
		"Done. Thanks {name}!",
		"See you soon. I'll send the exact meeting point the day before.",
	}, -1},
	{"en", []string{
		"Hi {name}, we're booked for tomorrow. Where exactly do we meet?",
		"Hi {tname}! We meet at: {meeting}. Here is a photo so you can spot it easily.",
		"Perfect, thanks. We might be five minutes late because of the train.",
		"No problem at all, I'll wait for you. Have a safe trip!",
		"We're here! I'm wearing a red jacket.",
		"I see you, coming over now.",
	}, 1},
	{"en", []string{
		"Hello! The forecast says rain for Saturday. Will the tour still go ahead?",
		"Hi! Yes, light rain is no problem. I have a rainy-day route with more covered markets and a long tea break.",
		"Great, I'd rather not cancel.",
		"You won't regret it. {city} is beautiful in the rain, and there are fewer crowds.",
		"Should we bring umbrellas?",
		"I'll bring spare umbrellas for everyone.",
		"You're the best. See you Saturday.",
		"See you then!",
	}, -1},
	{"en", []string{
		"Thank you again for yesterday, {name}! The kids haven't stopped talking about {place}.",
		"That makes me so happy! It was a pleasure to show you around.",
		"Could you send the name of the restaurant we passed at the end?",
		"Of course, it's a small family place two streets behind {place}. Tell them I sent you!",
		"Will do. We'd love to book another tour next year.",
		"Anytime. Safe travels home!",
	}, -1},
	{"ja", []string{
		"はじめまして。来月{city}に行く予定です。「{pkg}」は一人でも参加できますか？",
		"はじめまして、ご連絡ありがとうございます！もちろんお一人でも大歓迎です。",
		"よかったです。英語があまり得意ではないのですが、大丈夫でしょうか。",
		"ご安心ください。日本語でご案内しますし、ゆっくりお話ししますね。",
		"ありがとうございます。集合場所はどこになりますか？",
		"集合場所は「{meeting}」です。前日にもう一度ご連絡しますね。",
		"承知しました。それでは予約リクエストを送ります。",
		"お待ちしております。当日お会いできるのを楽しみにしています！",
	}, -1},
	{"zh", []string{
		"你好！我们下个月去{city}玩，想问一下「{pkg}」适合带老人参加吗？",
		"你好，谢谢你的咨询！当然可以，我会放慢节奏，中途也会安排休息。",
		"太好了。请问集合地点在哪里？",
		"我们在「{meeting}」集合，出发前一天我会再发一次具体位置给你。",
		"好的，那我先提交预订申请。",
		"收到后我会尽快确认，期待和你们见面！",
	}, -1},
	{"ko", []string{
		"안녕하세요! 다음 달에 {city}에 가는데, 「{pkg}」 투어에 사진 찍을 시간도 있나요?",
		"안녕하세요, 문의 감사합니다! 네, 중간중간 사진 찍을 시간을 충분히 드려요.",
		"좋네요. 비가 오면 어떻게 되나요?",
		"비가 와도 진행하며, 실내 위주의 대체 코스가 준비되어 있습니다.",
		"감사합니다. 그럼 예약 요청 보낼게요.",
		"확인하는 대로 바로 답장드릴게요. 곧 만나요!",
	}, -1},
}

// conversationLocales are the languages of the sample conversations besides
// the demo one.
var conversationLocales = []string{"en", "ja", "en", "zh", "en", "ko", "en", "en", "ja", "en", "zh", "en", "ko", "en"}

// addConversations adds the demo traveller's conversation with the demo
// expert and one per entry of conversationLocales, each between a traveller
// and an expert with messaging enabled who speaks the language.
func (g *generator) addConversations() {
	g.addConversation(g.demoTraveller, g.demoExpert, &scripts[0], 6, true)
	taken := map[[2]string]bool{{g.demoTraveller.id, g.demoExpert.id}: true}
	for i, locale := range conversationLocales {
		var experts []*expertInfo
		for _, e := range g.bookableExperts(true) {
			if e.messaging() && e != g.demoExpert && e.speaks(locale) {
				experts = append(experts, e)
			}
		}
		var tourists []*touristInfo
		for _, t := range g.tourists {
			if t.locale == locale && t.given != "" {
				tourists = append(tourists, t)
			}
		}
		e, t := pick(g, experts), pick(g, tourists)
		for taken[[2]string{t.id, e.id}] {
			e, t = pick(g, experts), pick(g, tourists)
		}
		taken[[2]string{t.id, e.id}] = true
		var candidates []*script
		for j := range scripts {
			if scripts[j].locale == locale {
				candidates = append(candidates, &scripts[j])
			}
		}
		s := pick(g, candidates)
		g.addConversation(t, e, s, g.between(2, len(s.lines)), i%3 == 0)
	}
}

// addConversation adds the first n lines of s as messages between t and e.
// When unread, the newest messages from whoever wrote last are unread; all
// others are read. An expert with auto-reply had its first answer written
// by the assistant.
func (g *generator) addConversation(t *touristInfo, e *expertInfo, s *script, n int, unread bool) {
	l := slices.Index(localeCodes[:], s.locale)
	p := pick(g, e.activePackages())
	pk := g.pkg(p)
	meeting := p.scene.fill(meetingPoints[0])[l]
	for _, pt := range g.ds.PackageTranslations {
		if pt.PackageID == p.id && pt.Locale == s.locale && pt.MeetingPoint != nil {
			meeting = *pt.MeetingPoint
		}
	}
	if l == en && pk.MeetingPoint != nil {
		meeting = *pk.MeetingPoint
	}
	tname := t.given
	if tname == "" {
		tname = "there"
	}
	vars := append(p.scene.vars(l), "{name}", e.given, "{tname}", tname,
		"{pkg}", p.title[l], "{max}", strconv.Itoa(pk.MaxParticipants), "{meeting}", meeting)

	since := maxTime(maxTime(t.createdAt, e.verifiedAt), date(2026, 3, 1))
	at := g.timeBetween(since.Add(day), date(2026, 10, 15))
	c := Conversation{ID: g.newID(at), TouristID: t.id, ExpertID: e.id, CreatedAt: at}
	first := len(g.ds.Messages)
	for i, line := range s.lines[:n] {
		if i > 0 {
			at = g.after(at, 4*time.Minute, 20*time.Hour)
		}
		fromExpert := i%2 == 1
		m := Message{
			ID: g.newID(at), ConversationID: c.ID, SenderID: t.id, MessageType: "TEXT",
			Content: ptr(fill(line, vars)), IsRead: true, CreatedAt: at,
		}
		if fromExpert {
			m.SenderID = e.userID
			m.IsAIGenerated = i == 1 && e.flags&aiReply != 0
		}
		if i == s.image {
			m.MessageType = "IMAGE"
			m.ImageURL = ptr("/media/sample/messages/" + e.handle + "-meeting-point.jpg")
			m.ImageWidth, m.ImageHeight = ptr(1200), ptr(900)
		}
		g.ds.Messages = append(g.ds.Messages, m)
	}
	msgs := g.ds.Messages[first:]
	last := msgs[len(msgs)-1]
	if unread {
		for i := len(msgs) - 1; i >= 0 && msgs[i].SenderID == last.SenderID; i-- {
			msgs[i].IsRead = false
		}
	}
	c.LastMessage, c.LastMessageAt, c.UpdatedAt = last.Content, ptr(last.CreatedAt), last.CreatedAt
	g.ds.Conversations = append(g.ds.Conversations, c)
}
