package sample

import "time"

// market is what a country fixes for its experts and packages.
type market struct {
	country  string
	currency string
	timezone string
	offset   int // UTC offset of timezone in hours; none of them has DST
	locale   string
	// Hourly rates run from rateMin to rateMax in steps of rateStep; package
	// prices are rounded to priceStep.
	rateMin, rateMax, rateStep, priceStep float64
}

var markets = []market{
	{"CN", "CNY", "Asia/Shanghai", 8, "zh", 150, 450, 10, 10},
	{"JP", "JPY", "Asia/Tokyo", 9, "ja", 4000, 9000, 500, 500},
	{"KR", "KRW", "Asia/Seoul", 9, "ko", 40000, 90000, 5000, 5000},
	{"TW", "TWD", "Asia/Taipei", 8, "zh-TW", 800, 2000, 100, 100},
	{"HK", "HKD", "Asia/Hong_Kong", 8, "zh-TW", 250, 600, 50, 50},
}

func marketOf(country string) *market {
	for i := range markets {
		if markets[i].country == country {
			return &markets[i]
		}
	}
	panic("sample: no market " + country)
}

// zone is the market's time zone as a fixed offset, so that generating the
// data does not depend on the system's zone database.
func (m *market) zone() *time.Location {
	return time.FixedZone(m.timezone, m.offset*3600)
}

// city is a city where experts live, with the places and dishes that the
// generated texts talk about, in every locale.
type city struct {
	name      tr
	country   string
	landmarks [3]tr
	dishes    [2]tr
	lively    int      // the landmark where people eat, shop and go out
	nearby    tr       // a day-trip destination
	tags      []string // the specialties its experts tend to have
	noRail    bool     // no train or metro stations to meet at
}

func (c *city) en() string { return c.name[en] }

var cities = []city{
	{
		name: tr{"Shanghai", "上海", "上海", "上海", "상하이"}, country: "CN",
		landmarks: [3]tr{
			{"the Bund", "外滩", "外灘", "外灘", "와이탄"},
			{"Yu Garden", "豫园", "豫園", "豫園", "예원"},
			{"the former French Concession", "法租界", "法租界", "旧フランス租界", "옛 프랑스 조계지"},
		},
		dishes: [2]tr{
			{"xiaolongbao", "小笼包", "小籠包", "小籠包", "샤오룽바오"},
			{"scallion oil noodles", "葱油拌面", "蔥油拌麵", "葱油拌麺", "파기름 비빔면"},
		},
		lively: 2,
		nearby: tr{"Zhujiajiao water town", "朱家角古镇", "朱家角古鎮", "朱家角", "주자자오 수향마을"},
		tags:   []string{"food", "architecture", "history", "nightlife", "shopping", "art", "street-food", "photography"},
	},
	{
		name: tr{"Beijing", "北京", "北京", "北京", "베이징"}, country: "CN",
		landmarks: [3]tr{
			{"the Forbidden City", "故宫", "故宮", "故宮", "자금성"},
			{"the Temple of Heaven", "天坛", "天壇", "天壇", "천단"},
			{"the hutongs of Shichahai", "什刹海胡同", "什剎海胡同", "什刹海の胡同", "스차하이 후퉁"},
		},
		dishes: [2]tr{
			{"Peking duck", "北京烤鸭", "北京烤鴨", "北京ダック", "베이징 카오야"},
			{"zhajiangmian", "炸酱面", "炸醬麵", "炸醤麺", "자장몐"},
		},
		lively: 2,
		nearby: tr{"the Mutianyu Great Wall", "慕田峪长城", "慕田峪長城", "慕田峪長城", "무톈위 만리장성"},
		tags:   []string{"history", "culture", "architecture", "food", "temples", "photography", "hiking"},
	},
	{
		name: tr{"Chengdu", "成都", "成都", "成都", "청두"}, country: "CN",
		landmarks: [3]tr{
			{"Kuanzhai Alley", "宽窄巷子", "寬窄巷子", "寛窄巷子", "콴자이샹쯔"},
			{"Wenshu Monastery", "文殊院", "文殊院", "文殊院", "문수원"},
			{"People's Park", "人民公园", "人民公園", "人民公園", "인민공원"},
		},
		dishes: [2]tr{
			{"hotpot", "火锅", "火鍋", "火鍋", "훠궈"},
			{"mapo tofu", "麻婆豆腐", "麻婆豆腐", "麻婆豆腐", "마파두부"},
		},
		lively: 0,
		nearby: tr{"the Leshan Giant Buddha", "乐山大佛", "樂山大佛", "楽山大仏", "러산 대불"},
		tags:   []string{"food", "street-food", "tea", "culture", "nature", "family"},
	},
	{
		name: tr{"Xi'an", "西安", "西安", "西安", "시안"}, country: "CN",
		landmarks: [3]tr{
			{"the City Wall", "西安城墙", "西安城牆", "西安城壁", "시안 성벽"},
			{"the Muslim Quarter", "回民街", "回民街", "回民街", "회족 거리"},
			{"the Big Wild Goose Pagoda", "大雁塔", "大雁塔", "大雁塔", "대안탑"},
		},
		dishes: [2]tr{
			{"biangbiang noodles", "biangbiang面", "biangbiang麵", "ビャンビャン麺", "뺭뺭면"},
			{"roujiamo", "肉夹馍", "肉夾饃", "肉夾饃", "러우자모"},
		},
		lively: 1,
		nearby: tr{"the Terracotta Army", "兵马俑", "兵馬俑", "兵馬俑", "병마용"},
		tags:   []string{"history", "food", "street-food", "culture", "architecture", "photography"},
	},
	{
		name: tr{"Guilin", "桂林", "桂林", "桂林", "구이린"}, country: "CN",
		landmarks: [3]tr{
			{"the Li River", "漓江", "灕江", "漓江", "리강"},
			{"Elephant Trunk Hill", "象鼻山", "象鼻山", "象鼻山", "상비산"},
			{"Zhengyang Pedestrian Street", "正阳步行街", "正陽步行街", "正陽歩行街", "정양 보행가"},
		},
		dishes: [2]tr{
			{"Guilin rice noodles", "桂林米粉", "桂林米粉", "桂林米粉", "구이린 쌀국수"},
			{"beer fish", "啤酒鱼", "啤酒魚", "ビール魚", "맥주 생선찜"},
		},
		lively: 2,
		nearby: tr{"Yangshuo", "阳朔", "陽朔", "陽朔", "양숴"},
		tags:   []string{"nature", "hiking", "photography", "family", "culture"},
	},
	{
		name: tr{"Hangzhou", "杭州", "杭州", "杭州", "항저우"}, country: "CN",
		landmarks: [3]tr{
			{"West Lake", "西湖", "西湖", "西湖", "서호"},
			{"Lingyin Temple", "灵隐寺", "靈隱寺", "霊隠寺", "영은사"},
			{"Hefang Street", "河坊街", "河坊街", "河坊街", "허팡제"},
		},
		dishes: [2]tr{
			{"Longjing shrimp", "龙井虾仁", "龍井蝦仁", "龍井蝦仁", "룽징 새우볶음"},
			{"Dongpo pork", "东坡肉", "東坡肉", "東坡肉", "동파육"},
		},
		lively: 2,
		nearby: tr{"Wuzhen water town", "乌镇", "烏鎮", "烏鎮", "우전 수향마을"},
		tags:   []string{"tea", "nature", "temples", "history", "photography", "hiking"},
	},
	{
		name: tr{"Tokyo", "东京", "東京", "東京", "도쿄"}, country: "JP",
		landmarks: [3]tr{
			{"Asakusa", "浅草", "淺草", "浅草", "아사쿠사"},
			{"Shibuya", "涩谷", "澀谷", "渋谷", "시부야"},
			{"Yanaka", "谷中", "谷中", "谷中", "야나카"},
		},
		dishes: [2]tr{
			{"sushi", "寿司", "壽司", "寿司", "스시"},
			{"monjayaki", "文字烧", "文字燒", "もんじゃ焼き", "몬자야키"},
		},
		lively: 1,
		nearby: tr{"Kamakura", "镰仓", "鎌倉", "鎌倉", "가마쿠라"},
		tags:   []string{"food", "nightlife", "shopping", "art", "architecture", "culture", "street-food", "photography"},
	},
	{
		name: tr{"Kyoto", "京都", "京都", "京都", "교토"}, country: "JP",
		landmarks: [3]tr{
			{"Fushimi Inari Shrine", "伏见稻荷大社", "伏見稻荷大社", "伏見稲荷大社", "후시미 이나리 신사"},
			{"Gion", "祇园", "祇園", "祇園", "기온"},
			{"Arashiyama", "岚山", "嵐山", "嵐山", "아라시야마"},
		},
		dishes: [2]tr{
			{"yudofu", "汤豆腐", "湯豆腐", "湯豆腐", "유도후"},
			{"matcha sweets", "抹茶甜点", "抹茶甜點", "抹茶スイーツ", "말차 디저트"},
		},
		lively: 1,
		nearby: tr{"Nara", "奈良", "奈良", "奈良", "나라"},
		tags:   []string{"temples", "tea", "culture", "history", "architecture", "art", "photography"},
	},
	{
		name: tr{"Osaka", "大阪", "大阪", "大阪", "오사카"}, country: "JP",
		landmarks: [3]tr{
			{"Dotonbori", "道顿堀", "道頓堀", "道頓堀", "도톤보리"},
			{"Kuromon Market", "黑门市场", "黑門市場", "黒門市場", "구로몬 시장"},
			{"Shinsekai", "新世界", "新世界", "新世界", "신세카이"},
		},
		dishes: [2]tr{
			{"takoyaki", "章鱼烧", "章魚燒", "たこ焼き", "다코야키"},
			{"kushikatsu", "炸串", "炸串", "串カツ", "구시카쓰"},
		},
		lively: 0,
		nearby: tr{"Himeji Castle", "姬路城", "姬路城", "姫路城", "히메지성"},
		tags:   []string{"food", "street-food", "nightlife", "shopping", "family", "culture"},
	},
	{
		name: tr{"Sapporo", "札幌", "札幌", "札幌", "삿포로"}, country: "JP",
		landmarks: [3]tr{
			{"Odori Park", "大通公园", "大通公園", "大通公園", "오도리 공원"},
			{"Nijo Market", "二条市场", "二條市場", "二条市場", "니조 시장"},
			{"Mount Moiwa", "藻岩山", "藻岩山", "藻岩山", "모이와산"},
		},
		dishes: [2]tr{
			{"miso ramen", "味噌拉面", "味噌拉麵", "味噌ラーメン", "미소 라멘"},
			{"soup curry", "汤咖喱", "湯咖哩", "スープカレー", "수프 카레"},
		},
		lively: 1,
		nearby: tr{"Otaru", "小樽", "小樽", "小樽", "오타루"},
		tags:   []string{"food", "nature", "hiking", "family", "photography"},
	},
	{
		name: tr{"Fukuoka", "福冈", "福岡", "福岡", "후쿠오카"}, country: "JP",
		landmarks: [3]tr{
			{"Nakasu", "中洲", "中洲", "中洲", "나카스"},
			{"Dazaifu Tenmangu", "太宰府天满宫", "太宰府天滿宮", "太宰府天満宮", "다자이후 텐만구"},
			{"Ohori Park", "大濠公园", "大濠公園", "大濠公園", "오호리 공원"},
		},
		dishes: [2]tr{
			{"Hakata tonkotsu ramen", "博多豚骨拉面", "博多豚骨拉麵", "博多豚骨ラーメン", "하카타 돈코쓰 라멘"},
			{"mentaiko", "明太子", "明太子", "明太子", "명란젓"},
		},
		lively: 0,
		nearby: tr{"Itoshima", "糸岛", "絲島", "糸島", "이토시마"},
		tags:   []string{"food", "street-food", "nightlife", "temples", "history"},
	},
	{
		name: tr{"Seoul", "首尔", "首爾", "ソウル", "서울"}, country: "KR",
		landmarks: [3]tr{
			{"Gyeongbokgung Palace", "景福宫", "景福宮", "景福宮", "경복궁"},
			{"Bukchon Hanok Village", "北村韩屋村", "北村韓屋村", "北村韓屋村", "북촌 한옥마을"},
			{"Gwangjang Market", "广藏市场", "廣藏市場", "広蔵市場", "광장시장"},
		},
		dishes: [2]tr{
			{"bibimbap", "拌饭", "拌飯", "ビビンバ", "비빔밥"},
			{"bindaetteok", "绿豆煎饼", "綠豆煎餅", "ピンデトック", "빈대떡"},
		},
		lively: 2,
		nearby: tr{"Suwon Hwaseong Fortress", "水原华城", "水原華城", "水原華城", "수원 화성"},
		tags:   []string{"food", "shopping", "history", "culture", "nightlife", "art", "architecture"},
	},
	{
		name: tr{"Busan", "釜山", "釜山", "釜山", "부산"}, country: "KR",
		landmarks: [3]tr{
			{"Gamcheon Culture Village", "甘川文化村", "甘川文化村", "甘川文化村", "감천문화마을"},
			{"Jagalchi Fish Market", "札嘎其市场", "札嘎其市場", "チャガルチ市場", "자갈치시장"},
			{"Haeundae Beach", "海云台海滩", "海雲台海灘", "海雲台ビーチ", "해운대 해수욕장"},
		},
		dishes: [2]tr{
			{"dwaeji gukbap", "猪肉汤饭", "豬肉湯飯", "テジクッパ", "돼지국밥"},
			{"milmyeon", "小麦冷面", "小麥冷麵", "ミルミョン", "밀면"},
		},
		lively: 1,
		nearby: tr{"Gyeongju", "庆州", "慶州", "慶州", "경주"},
		tags:   []string{"food", "street-food", "nature", "photography", "art", "family"},
	},
	{
		name: tr{"Jeju", "济州", "濟州", "済州", "제주"}, country: "KR",
		landmarks: [3]tr{
			{"Seongsan Ilchulbong", "城山日出峰", "城山日出峰", "城山日出峰", "성산일출봉"},
			{"Hallasan", "汉拿山", "漢拏山", "漢拏山", "한라산"},
			{"Dongmun Market", "东门市场", "東門市場", "東門市場", "동문시장"},
		},
		dishes: [2]tr{
			{"black pork barbecue", "黑猪肉烤肉", "黑豬肉燒肉", "黒豚焼肉", "흑돼지 구이"},
			{"abalone porridge", "鲍鱼粥", "鮑魚粥", "アワビ粥", "전복죽"},
		},
		lively: 2,
		nearby: tr{"Udo Island", "牛岛", "牛島", "牛島", "우도"},
		tags:   []string{"nature", "hiking", "food", "family", "photography"},
		noRail: true,
	},
	{
		name: tr{"Taipei", "台北", "台北", "台北", "타이베이"}, country: "TW",
		landmarks: [3]tr{
			{"Dadaocheng", "大稻埕", "大稻埕", "大稲埕", "다다오청"},
			{"Raohe Night Market", "饶河夜市", "饒河夜市", "饒河夜市", "라오허 야시장"},
			{"Elephant Mountain", "象山", "象山", "象山", "샹산"},
		},
		dishes: [2]tr{
			{"beef noodle soup", "牛肉面", "牛肉麵", "牛肉麺", "우육면"},
			{"braised pork rice", "卤肉饭", "滷肉飯", "魯肉飯", "루러우판"},
		},
		lively: 1,
		nearby: tr{"Jiufen", "九份", "九份", "九份", "지우펀"},
		tags:   []string{"street-food", "food", "tea", "temples", "hiking", "culture", "nightlife"},
	},
	{
		name: tr{"Tainan", "台南", "台南", "台南", "타이난"}, country: "TW",
		landmarks: [3]tr{
			{"Anping Old Fort", "安平古堡", "安平古堡", "安平古堡", "안핑 고성"},
			{"Chihkan Tower", "赤崁楼", "赤崁樓", "赤崁楼", "츠칸러우"},
			{"Shennong Street", "神农街", "神農街", "神農街", "선눙제"},
		},
		dishes: [2]tr{
			{"danzai noodles", "担仔面", "擔仔麵", "担仔麺", "단짜이면"},
			{"milkfish congee", "虱目鱼粥", "虱目魚粥", "サバヒー粥", "밀크피시 죽"},
		},
		lively: 2,
		nearby: tr{"the Qigu salt fields", "七股盐山", "七股鹽山", "七股塩山", "치구 염전"},
		tags:   []string{"history", "street-food", "temples", "food", "architecture"},
	},
	{
		name: tr{"Kaohsiung", "高雄", "高雄", "高雄", "가오슝"}, country: "TW",
		landmarks: [3]tr{
			{"the Pier-2 Art Center", "驳二艺术特区", "駁二藝術特區", "駁二芸術特区", "보얼 예술특구"},
			{"Lotus Pond", "莲池潭", "蓮池潭", "蓮池潭", "롄츠탄"},
			{"Cijin Island", "旗津", "旗津", "旗津", "치진"},
		},
		dishes: [2]tr{
			{"oyster omelette", "蚵仔煎", "蚵仔煎", "牡蠣オムレツ", "굴전"},
			{"papaya milk", "木瓜牛奶", "木瓜牛奶", "パパイヤミルク", "파파야 우유"},
		},
		lively: 0,
		nearby: tr{"Kenting", "垦丁", "墾丁", "墾丁", "컨딩"},
		tags:   []string{"art", "food", "nature", "family", "photography", "street-food"},
	},
	{
		name: tr{"Hualien", "花莲", "花蓮", "花蓮", "화롄"}, country: "TW",
		landmarks: [3]tr{
			{"Qixingtan Beach", "七星潭", "七星潭", "七星潭", "치싱탄 해변"},
			{"Dongdamen Night Market", "东大门夜市", "東大門夜市", "東大門夜市", "둥다먼 야시장"},
			{"the Pine Garden", "松园别馆", "松園別館", "松園別館", "쑹위안 별관"},
		},
		dishes: [2]tr{
			{"wontons", "扁食", "扁食", "ワンタン", "완탕"},
			{"mochi", "麻糬", "麻糬", "お餅", "찹쌀떡"},
		},
		lively: 1,
		nearby: tr{"Taroko Gorge", "太鲁阁峡谷", "太魯閣峽谷", "タロコ峡谷", "타이루거 협곡"},
		tags:   []string{"nature", "hiking", "photography", "culture", "family"},
	},
	{
		name: tr{"Hong Kong", "香港", "香港", "香港", "홍콩"}, country: "HK",
		landmarks: [3]tr{
			{"Victoria Peak", "太平山顶", "太平山頂", "ヴィクトリア・ピーク", "빅토리아 피크"},
			{"Sham Shui Po", "深水埗", "深水埗", "深水埗", "삼수이포"},
			{"Temple Street Night Market", "庙街夜市", "廟街夜市", "廟街ナイトマーケット", "템플 스트리트 야시장"},
		},
		dishes: [2]tr{
			{"dim sum", "点心", "點心", "点心", "딤섬"},
			{"egg tarts", "蛋挞", "蛋撻", "エッグタルト", "에그타르트"},
		},
		lively: 1,
		nearby: tr{"Tai O fishing village", "大澳渔村", "大澳漁村", "大澳の漁村", "타이오 어촌"},
		tags:   []string{"food", "street-food", "hiking", "nightlife", "shopping", "architecture", "photography", "temples"},
	},
}

func cityNamed(name string) *city {
	for i := range cities {
		if cities[i].en() == name {
			return &cities[i]
		}
	}
	panic("sample: no city " + name)
}

// scene is a city with the places and dishes a text picks from it.
type scene struct {
	city          *city
	place, place2 int // landmarks
	dish, dish2   int
}

// vars are the placeholder values of the scene in locale l.
func (s scene) vars(l int) []string {
	c := s.city
	return []string{
		"{city}", c.name[l], "{City}", titleCase(c.name[l]),
		"{place}", c.landmarks[s.place][l], "{Place}", titleCase(c.landmarks[s.place][l]),
		"{place2}", c.landmarks[s.place2][l], "{Place2}", titleCase(c.landmarks[s.place2][l]),
		"{dish}", c.dishes[s.dish][l], "{Dish}", titleCase(c.dishes[s.dish][l]),
		"{dish2}", c.dishes[s.dish2][l], "{Dish2}", titleCase(c.dishes[s.dish2][l]),
		"{near}", c.nearby[l], "{Near}", titleCase(c.nearby[l]),
	}
}

// fill fills a template in every locale with the scene's values.
func (s scene) fill(t tr) tr {
	return fillAll(t, s.vars)
}

// title fills a title template: as fill, with the English title's first
// letter capitalised.
func (s scene) title(t tr) tr {
	out := s.fill(t)
	out[en] = capFirst(out[en])
	return out
}

// Vocabularies.
var (
	// specialtyNames are the specialty tags and their names in every locale.
	specialtyNames = []struct {
		tag  string
		name tr
	}{
		{"food", tr{"food", "美食", "美食", "グルメ", "미식"}},
		{"history", tr{"history", "历史", "歷史", "歴史", "역사"}},
		{"culture", tr{"culture", "文化", "文化", "文化", "문화"}},
		{"photography", tr{"photography", "摄影", "攝影", "写真", "사진"}},
		{"nightlife", tr{"nightlife", "夜生活", "夜生活", "ナイトライフ", "나이트라이프"}},
		{"shopping", tr{"shopping", "购物", "購物", "ショッピング", "쇼핑"}},
		{"hiking", tr{"hiking", "徒步", "健行", "ハイキング", "하이킹"}},
		{"architecture", tr{"architecture", "建筑", "建築", "建築", "건축"}},
		{"temples", tr{"temples", "寺庙", "寺廟", "寺社巡り", "사찰"}},
		{"art", tr{"art", "艺术", "藝術", "アート", "예술"}},
		{"tea", tr{"tea", "茶文化", "茶文化", "お茶", "차 문화"}},
		{"street-food", tr{"street food", "街头小吃", "街頭小吃", "屋台グルメ", "길거리 음식"}},
		{"family", tr{"family trips", "亲子游", "親子遊", "家族旅行", "가족 여행"}},
		{"nature", tr{"nature", "自然", "自然", "自然", "자연"}},
	}

	// languageNames are the language codes experts speak and their names in
	// every locale. Every Korean name ends in 어, so "…로" always reads right.
	languageNames = []struct {
		code string
		name tr
	}{
		{"en", tr{"English", "英语", "英語", "英語", "영어"}},
		{"zh", tr{"Mandarin", "普通话", "中文", "中国語", "중국어"}},
		{"zh-TW", tr{"Mandarin", "普通话", "中文", "中国語", "중국어"}},
		{"ja", tr{"Japanese", "日语", "日語", "日本語", "일본어"}},
		{"ko", tr{"Korean", "韩语", "韓語", "韓国語", "한국어"}},
		{"yue", tr{"Cantonese", "粤语", "粵語", "広東語", "광둥어"}},
		{"fr", tr{"French", "法语", "法語", "フランス語", "프랑스어"}},
		{"de", tr{"German", "德语", "德語", "ドイツ語", "독일어"}},
		{"es", tr{"Spanish", "西班牙语", "西班牙語", "スペイン語", "스페인어"}},
		{"th", tr{"Thai", "泰语", "泰語", "タイ語", "태국어"}},
	}
)

// Specialties lists the specialty tags, the vocabulary of
// expert_specialties.
func Specialties() []string {
	tags := make([]string, len(specialtyNames))
	for i, s := range specialtyNames {
		tags[i] = s.tag
	}
	return tags
}

// Languages lists the language codes of expert_languages.
func Languages() []string {
	codes := make([]string, len(languageNames))
	for i, s := range languageNames {
		codes[i] = s.code
	}
	return codes
}

// Cities lists the English names of the sample cities.
func Cities() []string {
	names := make([]string, len(cities))
	for i := range cities {
		names[i] = cities[i].en()
	}
	return names
}

func specialtyName(tag string) tr {
	for _, s := range specialtyNames {
		if s.tag == tag {
			return s.name
		}
	}
	panic("sample: no specialty " + tag)
}

func languageName(code string) tr {
	for _, s := range languageNames {
		if s.code == code {
			return s.name
		}
	}
	panic("sample: no language " + code)
}
