package sample

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// packageInfo is what the generator remembers about a package.
type packageInfo struct {
	idx    int // in Dataset.Packages
	id     string
	expert *expertInfo
	cat    *category
	scene  scene
	title  tr
	active bool
}

func (g *generator) pkg(p *packageInfo) *Package { return &g.ds.Packages[p.idx] }

// category is a kind of package and the texts its packages are made of.
// Templates take the placeholders of a scene and {hours}.
type category struct {
	key         string
	titles      []tr
	description tr
	highlights  []tr
	included    []string // keys of packageItems; the first is always kept
	excluded    []string
	hours       [2]int // duration range
	group       [2]int // max_participants range
	startHour   int    // local hour bookings start
	lively      bool   // set at the city's lively landmark first
}

var categories = []category{
	{
		key: "city_tour",
		titles: []tr{
			{"{City} in a Day: From {Place} to {Place2}", "{city}一日漫游：从{place}到{place2}", "{city}一日漫遊：從{place}到{place2}", "1日で巡る{city}：{place}から{place2}へ", "하루 만에 만나는 {city}: {place}에서 {place2}까지"},
			{"Hidden Corners of {City}", "{city}的隐秘角落", "{city}的隱秘角落", "{city}の知られざる路地裏", "{city}의 숨은 골목 산책"},
		},
		description: tr{
			"Walk with a local through {city}, from {place} to {place2}, and hear the stories that guidebooks leave out. We take side streets, stop for snacks and plan the route around what you want to see. The tour lasts about {hours} hours at a relaxed pace.",
			"跟着本地人走进{city}，从{place}一路走到{place2}，听听旅游指南里没有写的故事。我们会穿过小巷、停下来吃点小吃，并根据你的兴趣调整路线。全程约{hours}小时，节奏轻松。",
			"跟著在地人走進{city}，從{place}一路走到{place2}，聽聽旅遊書裡沒寫的故事。我們會穿過小巷、停下來吃點小吃，並依照你的興趣調整路線。全程約{hours}小時，步調輕鬆。",
			"地元ガイドと一緒に{place}から{place2}まで{city}の街を歩き、ガイドブックには載っていない話をお届けします。裏道を抜け、軽食をつまみながら、見たい場所に合わせてルートを組み立てます。所要時間は約{hours}時間、のんびりしたペースです。",
			"현지인과 함께 {place}에서 {place2}까지 {city}의 거리를 걸으며 가이드북에 없는 이야기를 들어 보세요. 골목길을 지나고 간식도 즐기며, 보고 싶은 곳에 맞춰 코스를 조정합니다. 소요 시간은 약 {hours}시간이며 여유로운 속도로 진행됩니다.",
		},
		highlights: []tr{
			{"Stories behind {place}", "{place}背后的故事", "{place}背後的故事", "{place}にまつわる物語", "{place}에 얽힌 이야기"},
			{"Quiet back streets most visitors miss", "游客很少走的安静小巷", "遊客很少走的安靜小巷", "観光客があまり通らない静かな裏道", "관광객이 잘 모르는 조용한 골목"},
			{"A snack stop for {dish}", "品尝{dish}的小吃时间", "品嚐{dish}的小吃時間", "{dish}でひと休み", "{dish} 맛보기"},
			{"Photo spots at {place2}", "{place2}的拍照点", "{place2}的拍照點", "{place2}のフォトスポット", "{place2}의 사진 명소"},
			{"Tips for the rest of your stay", "接下来几天的实用建议", "接下來幾天的實用建議", "滞在中に役立つアドバイス", "남은 여행을 위한 꿀팁"},
		},
		included: []string{"guide", "water", "transit", "map"},
		excluded: []string{"pickup", "tickets", "meals", "tips"},
		hours:    [2]int{3, 4}, group: [2]int{1, 12}, startHour: 9,
	},
	{
		key: "food_tour",
		titles: []tr{
			{"{City} Food Walk: {Dish} and Beyond", "{city}美食漫步：从{dish}开始", "{city}美食漫步：從{dish}開始", "{city}食べ歩き：{dish}から始まる味の旅", "{city} 미식 산책: {dish}부터 시작하는 맛 여행"},
			{"Eat Like a Local Around {Place}", "在{place}周边像本地人一样吃", "在{place}周邊像在地人一樣吃", "{place}周辺で地元流グルメ体験", "{place} 주변에서 현지인처럼 먹기"},
		},
		description: tr{
			"Taste your way through {city} with someone who grew up eating here. We start near {place}, try {dish} at a place the neighbours swear by, and finish with {dish2}. Expect six to eight tastings over {hours} hours; tell me about allergies and I will adapt the menu.",
			"和从小在这里吃到大的本地人一起品尝{city}。我们从{place}附近出发，在街坊们最爱的小店吃{dish}，最后以{dish2}收尾。{hours}小时内大约品尝六到八样美食；如有过敏请提前告诉我，我会调整菜单。",
			"和從小在這裡吃到大的在地人一起品嚐{city}。我們從{place}附近出發，在街坊最愛的小店吃{dish}，最後以{dish2}收尾。{hours}小時內大約品嚐六到八樣美食；如有過敏請事先告訴我，我會調整菜單。",
			"{city}で育った地元ガイドと一緒に食べ歩きを楽しみましょう。{place}の近くから出発し、近所の人が太鼓判を押す店で{dish}を味わい、最後は{dish2}で締めくくります。{hours}時間で6〜8品ほど試食します。アレルギーがあれば事前にお知らせください。メニューを調整します。",
			"{city}에서 나고 자란 현지인과 함께 골목골목 맛집을 찾아 떠나 보세요. {place} 근처에서 출발해 동네 사람들이 인정하는 가게에서 {dish} 맛보기부터 시작하고, 마지막 코스는 {dish2}입니다. {hours}시간 동안 6~8가지 음식을 맛보게 되며, 알레르기가 있다면 미리 알려 주세요. 메뉴를 조정해 드립니다.",
		},
		highlights: []tr{
			{"A neighbourhood favourite for {dish}", "街坊最爱的{dish}", "街坊最愛的{dish}", "地元で愛される店の{dish}", "동네 단골집의 {dish}"},
			{"Six to eight tastings", "六到八样试吃", "六到八樣試吃", "6〜8品の試食", "6~8가지 시식"},
			{"A wet market visit", "逛一逛菜市场", "逛逛傳統市場", "市場散策", "재래시장 구경"},
			{"How to order like a local", "学会像本地人一样点菜", "學會像在地人一樣點菜", "地元流の注文のコツ", "현지인처럼 주문하는 법"},
			{"Finishing with {dish2}", "以{dish2}完美收尾", "以{dish2}完美收尾", "締めは{dish2}", "마무리는 {dish2}"},
		},
		included: []string{"guide", "tastings", "water", "map"},
		excluded: []string{"drinks", "pickup", "tips"},
		hours:    [2]int{3, 4}, group: [2]int{2, 10}, startHour: 11, lively: true,
	},
	{
		key: "shopping",
		titles: []tr{
			{"{City} Shopping with a Local Insider", "跟着本地达人逛{city}", "跟著在地達人逛{city}", "地元の達人と巡る{city}ショッピング", "현지 전문가와 함께하는 {city} 쇼핑"},
			{"Markets and Makers of {Place}", "{place}的市集与手艺人", "{place}的市集與職人", "{place}の市場と職人たち", "{place}의 시장과 장인들"},
		},
		description: tr{
			"Skip the souvenir traps and shop where locals do. Around {place} and {place2} I will introduce you to small makers, family-run shops and markets where bargaining is part of the fun. In {hours} hours you will leave with things you cannot find at the airport.",
			"避开游客纪念品店，去本地人真正购物的地方。在{place}和{place2}一带，我会带你认识小手艺人、家族老店和可以讨价还价的市集。{hours}小时后，你带走的会是机场买不到的东西。",
			"避開觀光客紀念品店，去在地人真正購物的地方。在{place}和{place2}一帶，我會帶你認識小職人、家族老店和可以殺價的市集。{hours}小時後，你帶走的會是機場買不到的東西。",
			"観光客向けのお土産店ではなく、地元の人が通うお店へご案内します。{place}や{place2}の周辺で、小さな工房や家族経営の老舗、値段交渉も楽しい市場を巡ります。{hours}時間後には、空港では買えない品物が手元に残るはずです。",
			"관광객용 기념품 가게 대신 현지인이 실제로 찾는 곳에서 쇼핑해 보세요. {place}, {place2} 일대에서 작은 공방, 대대로 운영해 온 가게, 흥정이 즐거운 시장을 소개해 드립니다. {hours}시간 후에는 공항에서는 살 수 없는 물건을 손에 들고 계실 거예요.",
		},
		highlights: []tr{
			{"Independent shops around {place}", "{place}周边的独立小店", "{place}周邊的獨立小店", "{place}周辺の個性的なお店", "{place} 주변의 개성 있는 가게들"},
			{"Meet local makers", "认识本地手艺人", "認識在地職人", "地元の職人との出会い", "현지 장인과의 만남"},
			{"Bargaining tips that actually work", "真正管用的砍价技巧", "真正有用的殺價技巧", "使える値切りのコツ", "실전 흥정 요령"},
			{"Tax-free shopping advice", "退税购物建议", "退稅購物建議", "免税手続きのアドバイス", "면세 쇼핑 안내"},
			{"A tea break between shops", "逛累了喝杯茶歇歇脚", "逛累了喝杯茶歇歇腳", "お店巡りの合間にティーブレイク", "쇼핑 중 잠깐의 티타임"},
		},
		included: []string{"guide", "tea", "map", "transit"},
		excluded: []string{"purchases", "pickup", "meals"},
		hours:    [2]int{2, 4}, group: [2]int{1, 8}, startHour: 13, lively: true,
	},
	{
		key: "culture",
		titles: []tr{
			{"Living Traditions of {City}", "{city}：活着的传统", "{city}：活著的傳統", "{city}に息づく伝統文化", "{city}에 살아 숨 쉬는 전통"},
			{"{Place} and the Stories of Old {City}", "{place}与老{city}的故事", "{place}與老{city}的故事", "{place}と昔の{city}の物語", "{place}, 그리고 옛 {city} 이야기"},
		},
		description: tr{
			"Discover the traditions that still shape daily life in {city}. We visit {place}, talk about the beliefs and customs behind what you see, and meet people who keep old crafts alive. Over {hours} hours you will understand the city, not just look at it.",
			"探索至今仍影响着{city}日常生活的传统。我们会参观{place}，聊聊你眼前所见背后的信仰与习俗，还会拜访仍在坚守老手艺的人。在{hours}小时里，你不只是看风景，而是真正读懂这座城市。",
			"探索至今仍影響{city}日常生活的傳統。我們會參觀{place}，聊聊眼前所見背後的信仰與習俗，也會拜訪仍堅守老手藝的人。在{hours}小時裡，你不只是看風景，而是真正讀懂這座城市。",
			"今も{city}の暮らしに息づく伝統を発見しましょう。{place}を訪ね、目の前の風景の背景にある信仰や習慣についてお話しし、昔ながらの手仕事を守る人々にも会いに行きます。{hours}時間で、ただ眺めるだけでなく街を深く理解できるはずです。",
			"지금도 {city} 사람들의 일상을 만들어 가는 전통을 만나 보세요. {place}에 들러 눈앞의 풍경 뒤에 숨은 믿음과 풍습을 이야기하고, 옛 기술을 지켜 가는 사람들도 만나 봅니다. {hours}시간 동안 도시를 그저 구경하는 것이 아니라 깊이 이해하게 될 거예요.",
		},
		highlights: []tr{
			{"Visit {place} with context", "带着背景知识参观{place}", "帶著背景知識參觀{place}", "背景を知って訪れる{place}", "배경 지식과 함께 둘러보는 {place}"},
			{"Meet a traditional craftsperson", "拜访传统手艺人", "拜訪傳統職人", "伝統工芸の職人を訪問", "전통 장인 방문"},
			{"Etiquette explained simply", "简单易懂的礼仪讲解", "簡單易懂的禮儀說明", "分かりやすいマナー解説", "알기 쉬운 예절 안내"},
			{"A hands-on cultural activity", "亲手体验传统文化活动", "親手體驗傳統文化活動", "文化体験アクティビティ", "직접 해 보는 문화 체험"},
			{"Stories from {place2}", "{place2}的故事", "{place2}的故事", "{place2}の物語", "{place2} 이야기"},
		},
		included: []string{"guide", "tickets", "tea", "water"},
		excluded: []string{"pickup", "meals", "personal"},
		hours:    [2]int{2, 4}, group: [2]int{1, 10}, startHour: 10,
	},
	{
		key: "nightlife",
		titles: []tr{
			{"{City} After Dark", "夜色中的{city}", "夜色中的{city}", "夜の{city}を歩く", "밤의 {city}"},
			{"Night Bites and Bars Around {Place}", "{place}夜宵与小酒馆", "{place}宵夜與小酒館", "{place}で夜の食べ飲み歩き", "{place} 야식과 술집 탐방"},
		},
		description: tr{
			"See {city} when the lights come on. We meet near {place}, hop between a few bars and late-night food spots that locals love, and end with a view over the city. The {hours}-hour evening is relaxed, and non-drinkers are just as welcome.",
			"在华灯初上时认识{city}。我们在{place}附近集合，穿梭于本地人喜爱的小酒馆和夜宵店，最后欣赏城市夜景。{hours}小时的夜晚轻松愉快，不喝酒的朋友也同样欢迎。",
			"在華燈初上時認識{city}。我們在{place}附近集合，穿梭於在地人喜愛的小酒館和宵夜店，最後欣賞城市夜景。{hours}小時的夜晚輕鬆愉快，不喝酒的朋友也同樣歡迎。",
			"街に明かりが灯る頃の{city}を体験しましょう。{place}の近くで集合し、地元の人に人気のバーや夜食の店をはしごして、最後は夜景を眺めます。{hours}時間の夜はリラックスした雰囲気で、お酒を飲まない方も大歓迎です。",
			"불빛이 켜진 {city}의 밤을 만나 보세요. {place} 근처에서 만나 현지인이 즐겨 찾는 바와 야식집 몇 곳을 돌고, 마지막에는 도시 야경을 감상합니다. {hours}시간의 밤 일정은 편안한 분위기이며, 술을 마시지 않는 분도 환영합니다.",
		},
		highlights: []tr{
			{"Two or three local bars", "两三家本地小酒吧", "兩三家在地小酒吧", "地元のバーを2〜3軒", "현지 바 두세 곳"},
			{"Late-night {dish}", "宵夜{dish}", "宵夜{dish}", "深夜の{dish}", "늦은 밤의 {dish}"},
			{"Night views near {place2}", "{place2}附近的夜景", "{place2}附近的夜景", "{place2}周辺の夜景", "{place2} 근처 야경"},
			{"Safe ways home explained", "告诉你安全回酒店的方法", "告訴你安全回飯店的方法", "安全な帰り方のアドバイス", "안전하게 숙소로 돌아가는 방법 안내"},
			{"Non-alcoholic options everywhere", "每站都有无酒精选择", "每站都有無酒精選擇", "どのお店にもノンアルコールあり", "모든 곳에 무알코올 메뉴 준비"},
		},
		included: []string{"guide", "drink", "tastings", "map"},
		excluded: []string{"pickup", "personal", "tips"},
		hours:    [2]int{3, 4}, group: [2]int{2, 8}, startHour: 19, lively: true,
	},
	{
		key: "day_trip",
		titles: []tr{
			{"Day Trip from {City} to {Near}", "从{city}出发的{near}一日游", "從{city}出發的{near}一日遊", "{city}発・{near}日帰りツアー", "{city}에서 떠나는 {near} 당일치기"},
			{"Escape to {Near}", "暂别都市：{near}一日行", "暫別都市：{near}一日行", "都会を離れて{near}へ", "도시 탈출: {near} 하루 여행"},
		},
		description: tr{
			"Leave the city behind for a day. We travel together from {city} to {near}, where I show you the highlights and the quieter places around them. Transport is arranged, the pace is easy, and we are back in {city} in time for dinner after about {hours} hours.",
			"给自己放一天假，暂别城市的喧嚣。我们从{city}一同前往{near}，我会带你看主要景点，也会去周边更安静的地方。交通已安排好，节奏轻松，大约{hours}小时后回到{city}，正好赶上晚餐。",
			"給自己放一天假，暫別城市的喧囂。我們從{city}一同前往{near}，我會帶你看主要景點，也會去周邊更安靜的地方。交通已安排好，步調輕鬆，大約{hours}小時後回到{city}，剛好趕上晚餐。",
			"1日だけ都会を離れてみませんか。{city}から一緒に{near}へ向かい、定番の見どころと、その周りの静かな場所をご案内します。移動の手配は済んでおり、ペースはゆったり。約{hours}時間後、夕食に間に合うように{city}へ戻ります。",
			"하루쯤 도시를 떠나 보세요. {city}에서 함께 출발해 {near}에 도착하면 대표 명소와 그 주변의 한적한 곳을 안내해 드립니다. 교통편은 미리 준비되어 있고 일정도 여유로워서, 약 {hours}시간 뒤 저녁 식사 시간에 맞춰 {city}에 돌아옵니다.",
		},
		highlights: []tr{
			{"Round-trip transport from {city}", "{city}往返交通", "{city}往返交通", "{city}からの往復交通", "{city} 왕복 교통"},
			{"The best viewpoints of {near}", "{near}的最佳观景点", "{near}的最佳觀景點", "{near}の絶景ポイント", "{near}의 최고 전망 포인트"},
			{"Lunch at a local restaurant", "在当地餐馆吃午饭", "在當地餐館吃午餐", "地元の食堂でランチ", "현지 식당에서 점심"},
			{"Time to explore on your own", "留有自由活动时间", "保留自由活動時間", "自由散策の時間あり", "자유 시간 포함"},
			{"A schedule that avoids the crowds", "巧妙安排行程避开人潮", "巧妙安排行程避開人潮", "混雑を避ける工夫した行程", "붐비는 시간을 피하는 일정"},
		},
		included: []string{"guide", "transport", "lunch", "tickets", "insurance"},
		excluded: []string{"personal", "drinks", "tips"},
		hours:    [2]int{8, 10}, group: [2]int{2, 10}, startHour: 8,
	},
	{
		key: "hiking",
		titles: []tr{
			{"Trails and Views near {City}", "{city}周边的山径与风景", "{city}周邊的步道與風景", "{city}近郊のトレイルと絶景", "{city} 근교 트레일과 풍경"},
			{"Green {City}: A Guided Hike", "绿色{city}：向导带你徒步", "綠色{city}：嚮導帶你健行", "緑の{city}：ガイド付きハイキング", "초록빛 {city}: 가이드와 함께하는 하이킹"},
			{"{City} Hills at Sunrise", "{city}山间日出徒步", "{city}山間日出健行", "日の出の{city}の山を歩く", "일출과 함께 걷는 {city}의 산"},
		},
		description: tr{
			"Put on comfortable shoes and discover the green side of {city}. The route is moderate, with a few steep sections, and I adjust it to the group's fitness and the weather. We stop for snacks with a view and talk about the plants, animals and local legends along the way. Allow about {hours} hours.",
			"穿上舒适的鞋子，来发现{city}绿意盎然的一面。路线难度适中，有几段陡坡，我会根据大家的体能和天气调整。途中我们会在风景好的地方停下来吃点东西，聊聊沿途的植物、动物和当地传说。全程约{hours}小时。",
			"穿上舒適的鞋子，來發現{city}綠意盎然的一面。路線難度適中，有幾段陡坡，我會依照大家的體能和天氣調整。途中我們會在景色好的地方停下來吃點東西，聊聊沿途的植物、動物和在地傳說。全程約{hours}小時。",
			"歩きやすい靴で、{city}の緑豊かな一面を発見しましょう。コースは中級程度で急な区間もありますが、参加者の体力や天候に合わせて調整します。景色のよい場所で軽食をとりながら、道中の植物や動物、地元の伝説についてお話しします。所要時間は約{hours}時間です。",
			"편한 신발을 신고 {city}의 초록빛 매력을 발견해 보세요. 코스는 중급 수준으로 가파른 구간이 조금 있으며, 참가자의 체력과 날씨에 맞춰 조정합니다. 전망 좋은 곳에서 간식을 먹으며 길가의 식물과 동물, 지역 전설에 관한 이야기를 나눕니다. 약 {hours}시간이 소요됩니다.",
		},
		highlights: []tr{
			{"Panoramic views over {city}", "俯瞰{city}全景", "俯瞰{city}全景", "{city}を見渡すパノラマ", "{city} 전경 감상"},
			{"A route matched to your fitness", "根据体能量身定制路线", "依體能量身安排路線", "体力に合わせたルート", "체력에 맞춘 코스"},
			{"Snacks with a view", "在美景前享用小食", "在美景前享用點心", "絶景を眺めながら軽食", "풍경과 함께하는 간식"},
			{"Local plants and wildlife explained", "讲解当地动植物", "解說在地動植物", "地元の動植物の解説", "현지 동식물 해설"},
			{"Small group, unhurried pace", "小团出行，不赶时间", "小團出發，不趕時間", "少人数でゆったりペース", "소규모 그룹, 여유로운 속도"},
		},
		included: []string{"guide", "water", "poles", "insurance"},
		excluded: []string{"pickup", "meals", "personal"},
		hours:    [2]int{4, 7}, group: [2]int{2, 12}, startHour: 8,
	},
	{
		key: "photography",
		titles: []tr{
			{"{City} Photo Walk: {Place} and {Place2}", "{city}摄影漫步：{place}与{place2}", "{city}攝影漫步：{place}與{place2}", "{city}フォトウォーク：{place}と{place2}", "{city} 포토 워크: {place}, {place2}"},
			{"Golden Hour at {Place}", "{place}的黄金时刻", "{place}的魔幻時刻", "{place}のゴールデンアワー", "{place}의 골든아워"},
		},
		description: tr{
			"Bring any camera, even a phone. We shoot around {place} and {place2} in the best light of the day, and I share tips on composition, etiquette for photographing people and the angles that make {city} look its best. Suitable for all levels; the walk takes about {hours} hours.",
			"任何相机都可以，手机也没问题。我们会在一天中光线最好的时候，在{place}和{place2}一带拍摄，我会分享构图技巧、拍人时的礼仪，以及最能展现{city}之美的角度。适合所有水平，全程约{hours}小时。",
			"任何相機都可以，手機也沒問題。我們會在一天中光線最好的時候，在{place}和{place2}一帶拍攝，我會分享構圖技巧、拍人時的禮儀，以及最能展現{city}之美的角度。適合各種程度，全程約{hours}小時。",
			"カメラの種類は問いません。スマートフォンでも大丈夫です。一日で最も光がきれいな時間帯に{place}や{place2}の周辺で撮影し、構図のコツや人を撮るときのマナー、{city}を一番美しく見せるアングルをお伝えします。初心者から上級者まで参加でき、所要時間は約{hours}時間です。",
			"어떤 카메라든, 휴대폰이라도 괜찮습니다. 하루 중 빛이 가장 좋은 시간에 {place}, {place2} 일대를 촬영하며 구도 잡는 법, 인물 촬영 예절, 그리고 {city}의 매력을 가장 잘 담는 각도를 알려 드립니다. 누구나 참여할 수 있으며 약 {hours}시간이 소요됩니다.",
		},
		highlights: []tr{
			{"The best light at {place}", "{place}的最佳光线", "{place}的最佳光線", "{place}のベストな光", "{place}의 가장 아름다운 빛"},
			{"Composition tips for any camera", "适用于任何相机的构图技巧", "適用任何相機的構圖技巧", "どんなカメラでも使える構図のコツ", "어떤 카메라에도 통하는 구도 팁"},
			{"Street portrait etiquette", "街头人像拍摄礼仪", "街頭人像拍攝禮儀", "ストリートポートレートのマナー", "거리 인물 사진 예절"},
			{"Hidden angles of {place2}", "{place2}的隐藏机位", "{place2}的隱藏機位", "{place2}の隠れた撮影スポット", "{place2}의 숨은 촬영 포인트"},
			{"A short editing session on your phone", "手机修图小课堂", "手機修圖小教室", "スマホでの簡単な写真編集講座", "휴대폰 간단 보정 강의"},
		},
		included: []string{"guide", "photos", "water", "transit"},
		excluded: []string{"camera", "pickup", "tickets"},
		hours:    [2]int{2, 3}, group: [2]int{1, 6}, startHour: 16,
	},
}

func categoryNamed(key string) *category {
	for i := range categories {
		if categories[i].key == key {
			return &categories[i]
		}
	}
	panic("sample: no category " + key)
}

// Categories lists the package categories.
func Categories() []string {
	keys := make([]string, len(categories))
	for i, c := range categories {
		keys[i] = c.key
	}
	return keys
}

// specialtyCategories are the package categories an expert with the
// specialty is likely to offer.
var specialtyCategories = []struct {
	tag  string
	cats []string
}{
	{"food", []string{"food_tour"}},
	{"street-food", []string{"food_tour", "nightlife"}},
	{"history", []string{"city_tour", "culture"}},
	{"culture", []string{"culture"}},
	{"photography", []string{"photography"}},
	{"nightlife", []string{"nightlife"}},
	{"shopping", []string{"shopping"}},
	{"hiking", []string{"hiking"}},
	{"architecture", []string{"city_tour"}},
	{"temples", []string{"culture"}},
	{"art", []string{"city_tour", "culture"}},
	{"tea", []string{"culture", "food_tour"}},
	{"family", []string{"city_tour", "day_trip"}},
	{"nature", []string{"day_trip", "hiking"}},
}

// packageItems are the entries of included and excluded lists.
var packageItems = []struct {
	key  string
	text tr
}{
	{"guide", tr{"Licensed local guide", "持证本地导游", "持證在地導遊", "資格を持つ地元ガイド", "자격증을 갖춘 현지 가이드"}},
	{"water", tr{"Bottled water", "瓶装水", "瓶裝水", "ミネラルウォーター", "생수"}},
	{"tastings", tr{"All food tastings", "所有试吃美食", "所有試吃美食", "すべての試食代", "모든 시식 비용"}},
	{"tickets", tr{"Entrance tickets", "景点门票", "景點門票", "入場料", "입장권"}},
	{"transit", tr{"Public transport during the tour", "行程中的公共交通费", "行程中的大眾運輸費用", "ツアー中の公共交通費", "투어 중 대중교통비"}},
	{"transport", tr{"Round-trip private transport", "往返专车接送", "往返專車接送", "往復の専用車", "왕복 전용 차량"}},
	{"lunch", tr{"Lunch", "午餐", "午餐", "昼食", "점심 식사"}},
	{"drink", tr{"One drink at each stop", "每站一杯饮品", "每站一杯飲料", "各店でドリンク1杯", "방문지마다 음료 한 잔"}},
	{"photos", tr{"Edited photos sent after the tour", "行程结束后发送精修照片", "行程結束後傳送精修照片", "ツアー後に編集済み写真をお送りします", "투어 후 보정 사진 전송"}},
	{"tea", tr{"Tea and snacks", "茶水和点心", "茶水與點心", "お茶とお菓子", "차와 다과"}},
	{"insurance", tr{"Travel insurance", "旅游保险", "旅遊保險", "旅行保険", "여행자 보험"}},
	{"poles", tr{"Trekking poles on request", "可借用登山杖", "可借用登山杖", "トレッキングポールの貸し出し", "등산 스틱 대여"}},
	{"map", tr{"A map with my recommendations", "附推荐清单的地图", "附推薦清單的地圖", "おすすめ情報入りの地図", "추천 장소가 표시된 지도"}},
	{"pickup", tr{"Hotel pick-up and drop-off", "酒店接送", "飯店接送", "ホテル送迎", "호텔 픽업 및 샌딩"}},
	{"personal", tr{"Personal expenses", "个人消费", "個人消費", "個人的な出費", "개인 경비"}},
	{"tips", tr{"Tips (optional)", "小费（自愿）", "小費（自由給付）", "チップ（任意）", "팁(선택 사항)"}},
	{"meals", tr{"Meals not listed", "未列明的餐食", "未列出的餐食", "記載のない食事", "명시되지 않은 식사"}},
	{"drinks", tr{"Alcoholic drinks", "酒精饮料", "酒精飲料", "アルコール飲料", "주류"}},
	{"camera", tr{"Camera equipment", "摄影器材", "攝影器材", "カメラ機材", "카메라 장비"}},
	{"purchases", tr{"Your purchases", "购物费用", "購物費用", "お買い物代", "쇼핑 비용"}},
}

func packageItem(key string) tr {
	for _, it := range packageItems {
		if it.key == key {
			return it.text
		}
	}
	panic("sample: no package item " + key)
}

var (
	// descriptionClosings end a package description.
	descriptionClosings = []tr{
		{"Private tours are available on request.", "可应要求安排私人团。", "可依需求安排私人團。", "ご希望に応じてプライベートツアーも承ります。", "요청 시 프라이빗 투어도 가능합니다."},
		{"Children are welcome, and the route can be shortened.", "欢迎带孩子参加，路线也可以缩短。", "歡迎帶小朋友參加，路線也可以縮短。", "お子様連れも歓迎です。ルートの短縮も可能です。", "아이와 함께 참여할 수 있으며 코스 단축도 가능합니다."},
		{"Rain or shine: I always have a plan B.", "风雨无阻：我总会准备好备用方案。", "風雨無阻：我一定會準備好備案。", "雨の日も安心、必ず代わりのプランを用意しています。", "비가 와도 걱정 마세요. 언제나 플랜 B가 있습니다."},
		{"Send me a message before booking if you have questions.", "预订前如有疑问，欢迎给我留言。", "預訂前如有疑問，歡迎傳訊息給我。", "ご予約前にご質問があればお気軽にメッセージをどうぞ。", "예약 전에 궁금한 점이 있으면 편하게 메시지 주세요."},
	}
	// meetingPoints are where tours start, near the scene's first place;
	// the second suits cities without stations.
	meetingPoints = []tr{
		{"Main exit of the station nearest {place}", "离{place}最近的车站主出口", "離{place}最近的車站主要出口", "{place}最寄り駅の中央出口", "{place}에서 가장 가까운 역 주 출구"},
		{"By the information board at {place}", "{place}的信息指示牌旁", "{place}的資訊看板旁", "{place}の案内板の前", "{place} 안내판 앞"},
	}
)

// koreanGapHandles are the experts whose first package has no Korean
// translation, so that the English fallback of package texts is exercised:
// the first package of xu-lan-guilin, cho-seung-woo-busan,
// ng-ka-lok-hong-kong and tsai-ming-hsuan-tainan. Dataset.TranslationGaps
// lists their ids.
var koreanGapHandles = []string{"xu-lan-guilin", "cho-seung-woo-busan", "ng-ka-lok-hong-kong", "tsai-ming-hsuan-tainan"}

// addPackages gives the demo expert four packages, unverified experts two
// and every other expert two or three, plus an older, deactivated one for
// every fourth of them.
func (g *generator) addPackages() {
	titles := map[string]bool{}
	n := 0
	for _, e := range g.experts {
		count, retired := 2+g.rng.IntN(2), false
		switch {
		case e.flags&demo != 0:
			count = 4
		case !e.verified():
			count = 2
		default:
			retired = n%4 == 1
			n++
		}
		cats := g.categoriesFor(e, count+1)
		if retired {
			g.addPackage(e, cats[count], false, titles)
		}
		for _, c := range cats[:count] {
			g.addPackage(e, c, true, titles)
		}
	}
}

// categoriesFor returns n categories for the expert, from the specialties
// first, without repeats.
func (g *generator) categoriesFor(e *expertInfo, n int) []*category {
	var keys []string
	for _, tag := range e.specialties {
		for _, sc := range specialtyCategories {
			if sc.tag == tag {
				keys = append(keys, sc.cats[g.rng.IntN(len(sc.cats))])
			}
		}
	}
	keys = append(keys, "city_tour", "day_trip", "food_tour", "culture")
	var out []*category
	for _, k := range keys {
		if c := categoryNamed(k); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out[:n]
}

func (g *generator) addPackage(e *expertInfo, c *category, active bool, titles map[string]bool) {
	m := e.market
	sc, title := g.packageScene(e.city, c, titles)
	hours := g.between(c.hours[0], c.hours[1])
	vars := func(l int) []string { return append(sc.vars(l), "{hours}", strconv.Itoa(hours)) }

	description := fillAll(c.description, vars)
	closing := pick(g, descriptionClosings)
	for l := range nLocales {
		description[l] = joinSentences(l, description[l], closing[l])
	}
	highlights := subset(g, c.highlights, g.between(3, 5))
	included := append([]string{c.included[0]}, subset(g, c.included[1:], g.between(1, min(3, len(c.included)-1)))...)
	excluded := subset(g, c.excluded, g.between(1, min(3, len(c.excluded))))
	var meeting *tr
	if g.chance(0.85) {
		m := pick(g, meetingPoints)
		if e.city.noRail {
			m = meetingPoints[1]
		}
		meeting = ptr(sc.fill(m))
	}

	// Price: the expert's rate (or the market's middle) per hour, give or
	// take; hours beyond six at half rate, and transport on day trips.
	rate := (m.rateMin + m.rateMax) / 2
	if e.hourlyRate != nil {
		rate = *e.hourlyRate
	}
	billed := float64(min(hours, 6)) + 0.5*float64(max(hours-6, 0))
	price := rate * billed * (0.8 + 0.3*g.rng.Float64())
	if c.key == "day_trip" {
		price *= 1.2
	}
	price = math.Round(price/m.priceStep) * m.priceStep

	created := g.packageCreated(e, active)
	updated := g.after(created, 0, 90*day)
	if !active {
		updated = g.after(created, 60*day, 300*day)
	}
	updated = minTime(updated, Horizon.Add(-2*day))

	num := len(g.ds.Packages) + 1
	images := make([]string, g.between(2, 4))
	for i := range images {
		images[i] = "/media/sample/packages/" + strconv.Itoa(num) + "-" + strconv.Itoa(i+1) + ".jpg"
	}
	p := Package{
		ID: g.newID(created), ExpertID: e.id,
		Title: title[en], Description: description[en], Category: c.key, CountryCode: m.country,
		BasePrice: price, Currency: m.currency, Duration: hours,
		MaxParticipants: g.between(c.group[0], c.group[1]),
		Images:          images,
		Highlights:      localize(en, highlights, vars),
		Included:        itemTexts(en, included),
		Excluded:        itemTexts(en, excluded),
		IsActive:        active,
		CreatedAt:       created, UpdatedAt: updated,
	}
	if meeting != nil {
		p.MeetingPoint = ptr(meeting[en])
	}
	info := &packageInfo{idx: len(g.ds.Packages), id: p.ID, expert: e, cat: c, scene: sc, title: title, active: active}
	g.ds.Packages = append(g.ds.Packages, p)
	e.packages = append(e.packages, info)

	gap := active && len(e.activePackages()) == 1 && slices.Contains(koreanGapHandles, e.handle)
	for _, l := range translatedLocales {
		if gap && l == ko {
			g.ds.TranslationGaps = append(g.ds.TranslationGaps, TranslationGap{Table: "package_translations", ID: p.ID, Locale: localeCodes[l]})
			continue
		}
		t := PackageTranslation{
			PackageID: p.ID, Locale: localeCodes[l],
			Title: ptr(title[l]), Description: ptr(description[l]),
			Highlights: localize(l, highlights, vars),
			Included:   itemTexts(l, included),
			Excluded:   itemTexts(l, excluded),
		}
		if meeting != nil {
			t.MeetingPoint = ptr(meeting[l])
		}
		g.ds.PackageTranslations = append(g.ds.PackageTranslations, t)
	}
}

// packageScene picks the places of a package so that its English title is
// not yet taken in the city, trying every title at each place in turn;
// food, nightlife and shopping start at the city's lively landmark.
func (g *generator) packageScene(c *city, cat *category, titles map[string]bool) (scene, tr) {
	t0, d0 := g.rng.IntN(len(cat.titles)), g.rng.IntN(2)
	places := placeOrder(c, cat.lively, g.rng.IntN(3))
	var sc scene
	var title tr
	for i := range len(cat.titles) * len(places) {
		p, d := places[i/len(cat.titles)], (d0+i/len(cat.titles))%2
		sc = scene{city: c, place: p, place2: (p + 1 + d0) % 3, dish: d, dish2: 1 - d}
		title = sc.title(cat.titles[(t0+i)%len(cat.titles)])
		if !titles[title[en]] {
			break
		}
	}
	titles[title[en]] = true
	return sc, title
}

// placeOrder lists the city's landmarks from start, or from its lively one.
func placeOrder(c *city, lively bool, start int) []int {
	if lively {
		start = c.lively
	}
	return []int{start, (start + 1) % 3, (start + 2) % 3}
}

// packageCreated is when the expert listed the package: soon after
// verification; deactivated packages are among the first.
func (g *generator) packageCreated(e *expertInfo, active bool) time.Time {
	switch {
	case !e.verified():
		return g.after(e.createdAt, day, 10*day)
	case !active:
		return g.after(e.verifiedAt, day, 20*day)
	default:
		return minTime(g.after(e.verifiedAt, day, 60*day), Horizon.Add(-20*day))
	}
}

// localize fills templates in locale l.
func localize(l int, ts []tr, vars func(int) []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fill(t[l], vars(l))
	}
	return out
}

func itemTexts(l int, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = packageItem(k)[l]
	}
	return out
}
