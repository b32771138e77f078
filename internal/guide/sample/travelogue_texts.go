package sample

// The texts travelogues are written from. Every entry is one passage in all
// five locales, translated rather than templated, so each translation reads
// as if written in its language; placeholders are those of a scene.

// opener is the first paragraph of a travelogue; its lead is the excerpt.
type opener struct{ lead, rest tr }

// travelogueKind is a travelogue category with its own titles, openers,
// section heading and body paragraphs.
type travelogueKind struct {
	key     string
	titles  []tr
	openers []opener
	heading tr
	bodies  []tr
}

var travelogueKinds = []travelogueKind{
	{
		key: "food",
		titles: []tr{
			{"Eating My Way Through {City}", "一路吃遍{city}", "一路吃遍{city}", "{city}食べ歩き紀行", "{city} 먹방 여행기"},
			{"In Search of the Perfect {Dish} in {City}", "在{city}寻找完美的{dish}", "在{city}尋找完美的{dish}", "{city}で究極の{dish}を探して", "{city}에서 찾은 최고의 {dish}"},
			{"A Morning Market and a Long Lunch in {City}", "{city}：早市与一顿悠长的午餐", "{city}：早市與一頓悠長的午餐", "{city}の朝市と長いランチ", "{city}의 아침 시장과 느긋한 점심"},
		},
		openers: []opener{
			{
				lead: tr{
					"I arrived in {city} with one plan: to eat as much {dish} as humanly possible. By the end of the week I had found far more than that.",
					"我来{city}只有一个计划：尽可能多地吃{dish}。一周下来，我收获的远不止这些。",
					"我來{city}只有一個計畫：盡可能多吃{dish}。一週下來，我的收穫遠不只如此。",
					"{city}に来た目的はただ一つ、{dish}をとことん食べることでした。ところが一週間が終わる頃には、それ以上のものを見つけていました。",
					"{city}에 온 목적은 단 하나, {dish} 실컷 먹기였습니다. 그런데 일주일이 지나고 보니 그보다 훨씬 많은 것을 얻었더라고요.",
				},
				rest: tr{
					"Food here is not just something you grab between sights; it is how people meet, celebrate and argue about which stall is best. Every neighbourhood has its own favourites, and everyone is happy to tell you theirs.",
					"在这里，吃饭不只是景点之间的填肚子，而是人们相聚、庆祝，甚至争论哪家小摊最好吃的方式。每个街区都有自己的心头好，大家也都乐意告诉你他们的私房推荐。",
					"在這裡，吃飯不只是景點之間的填肚子，而是人們相聚、慶祝，甚至爭論哪一攤最好吃的方式。每個街區都有自己的心頭好，大家也都樂意分享口袋名單。",
					"ここでの食事は観光の合間の腹ごしらえではありません。人が集い、祝い、どの屋台が一番かを語り合うための大切な時間です。どの街にもお気に入りの店があり、誰もが喜んで教えてくれます。",
					"이곳에서 음식은 관광 사이에 배를 채우는 수단이 아니라, 사람들이 모이고 축하하고 어느 가게가 제일인지 열띤 토론을 벌이는 방식입니다. 동네마다 단골집이 있고, 다들 기꺼이 자기만의 맛집을 알려 줍니다.",
				},
			},
			{
				lead: tr{
					"The best meal I had in {city} cost less than a cup of coffee back home. It was served on a plastic stool, a few streets away from {place}.",
					"我在{city}吃过最好吃的一顿饭，比家乡的一杯咖啡还便宜。那是在离{place}几条街的地方，坐在塑料小板凳上吃的。",
					"我在{city}吃過最好吃的一餐，比家鄉的一杯咖啡還便宜。那是在離{place}幾條街的地方，坐在塑膠小板凳上吃的。",
					"{city}で食べた最高の食事は、地元で飲むコーヒー一杯より安いものでした。{place}から数本離れた路地で、プラスチックの椅子に座って食べた一皿です。",
					"{city}에서 먹은 최고의 한 끼는 우리 동네 커피 한 잔 값보다 쌌습니다. {place}에서 몇 블록 떨어진 골목, 플라스틱 의자에 앉아 먹은 음식이었죠.",
				},
				rest: tr{
					"That lunch changed the way I planned the rest of the trip. Instead of chasing famous restaurants, I started following the queues of office workers and the smell of frying garlic, and I was never disappointed.",
					"那顿午饭改变了我接下来的旅行计划。我不再追逐名气大的餐厅，而是跟着上班族排的长队和炸蒜的香味走，结果从来没有失望过。",
					"那頓午餐改變了我接下來的旅行計畫。我不再追逐有名的餐廳，而是跟著上班族排的長隊和爆香蒜頭的味道走，結果從來沒有失望過。",
					"あのランチが、その後の旅の計画をすっかり変えてしまいました。有名店を追いかけるのをやめ、会社員の行列やにんにくを炒める香りを頼りに歩くようにしたのですが、一度もハズレはありませんでした。",
					"그 점심 한 끼가 남은 여행 계획을 완전히 바꿔 놓았습니다. 유명한 식당을 쫓는 대신 직장인들의 긴 줄과 마늘 볶는 냄새를 따라다니기 시작했는데, 한 번도 실망한 적이 없었어요.",
				},
			},
		},
		heading: tr{"Where the Locals Eat", "本地人吃饭的地方", "在地人吃飯的地方", "地元の人が通う店", "현지인이 가는 맛집"},
		bodies: []tr{
			{
				"My first stop was a market near {place}, where the day starts long before the shops open. Vendors stack vegetables into neat towers, butchers call out prices, and tiny breakfast counters serve steaming bowls to people on their way to work. I pointed at whatever looked popular and was rewarded every single time.",
				"我的第一站是{place}附近的一个市场，这里的一天在商店开门之前很久就开始了。摊贩把蔬菜码成整齐的小塔，肉贩高声报价，小小的早餐摊给赶着上班的人端上热气腾腾的一碗。我看哪样人多就指哪样，每一次都没有让我失望。",
				"我的第一站是{place}附近的一座市場，這裡的一天在店家開門前很久就開始了。攤販把蔬菜疊成整齊的小塔，肉販大聲喊價，小小的早餐攤為趕著上班的人端上熱騰騰的一碗。我看哪樣人多就指哪樣，每一次都沒有讓我失望。",
				"最初に訪れたのは{place}の近くにある市場です。ここでは店が開くずっと前から一日が始まります。野菜はきれいに積み上げられ、肉屋は威勢よく値段を叫び、小さな朝食屋台では通勤途中の人たちに湯気の立つ一杯が手渡されていきます。人気のありそうなものを指さして注文すると、どれも当たりでした。",
				"첫 번째로 찾은 곳은 {place} 근처의 시장이었습니다. 이곳의 하루는 가게들이 문을 열기 훨씬 전에 시작됩니다. 상인들은 채소를 가지런히 쌓아 올리고, 정육점 주인은 큰 소리로 가격을 외치며, 작은 아침 식사 노점에서는 출근길 사람들에게 김이 모락모락 나는 한 그릇을 건넵니다. 사람들이 많이 먹는 것을 가리켜 주문했는데, 매번 대성공이었어요.",
			},
			{
				"Of course I had to try {dish}. A friend of a friend took me to a place with no sign and a queue around the corner, and explained that the owner has made it the same way for thirty years. The first bite was worth the wait, and the second made me understand why people argue about this dish so passionately.",
				"当然，{dish}是一定要尝的。朋友的朋友带我去了一家没有招牌、却排队排到街角的小店，说老板三十年来一直用同样的方法做。第一口就值得排那么久的队，第二口让我明白了为什么大家会为这道菜争得面红耳赤。",
				"當然，{dish}是一定要嚐的。朋友的朋友帶我去一家沒有招牌、卻排隊排到街角的小店，說老闆三十年來都用同樣的方法做。第一口就值得排那麼久的隊，第二口讓我明白為什麼大家會為這道菜爭得面紅耳赤。",
				"もちろん{dish}は外せません。友人の友人が、看板もないのに角を曲がるほどの行列ができている店に連れて行ってくれました。店主は30年間ずっと同じ作り方を守っているそうです。一口目で並んだ甲斐があったと思い、二口目で、なぜ皆がこの料理についてあれほど熱く語るのかが分かりました。",
				"물론 {dish}도 빼놓을 수 없었습니다. 친구의 친구가 간판도 없는데 모퉁이까지 줄이 늘어선 가게로 데려가 주었는데, 주인이 30년 동안 같은 방식으로 만들어 왔다고 하더군요. 첫입에 기다린 보람을 느꼈고, 두 번째 입에서는 왜 사람들이 이 음식을 두고 그토록 열띤 논쟁을 벌이는지 이해하게 되었습니다.",
			},
			{
				"In the evening the streets around {place2} fill with smoke and laughter. I shared a table with a family celebrating a birthday, who insisted I try everything they had ordered, including {dish2}. We had no language in common beyond smiles and thumbs-up, and it did not matter at all.",
				"傍晚时分，{place2}周围的街道飘满了烟火气和笑声。我和一家正在庆祝生日的人拼了桌，他们坚持要我尝尝点的每一道菜，包括{dish2}。我们之间除了微笑和竖起的大拇指，几乎没有共同语言，但这一点也不重要。",
				"傍晚時分，{place2}周圍的街道充滿了煙火氣和笑聲。我和一家正在慶生的人併桌，他們堅持要我嚐嚐點的每一道菜，包括{dish2}。我們之間除了微笑和比讚，幾乎沒有共同語言，但這一點也不重要。",
				"夕方になると、{place2}周辺の通りは煙と笑い声に包まれます。誕生日を祝っていた家族と相席になり、注文した料理を全部食べてみてと勧められました。その中には{dish2}もありました。笑顔と親指を立てる以外に共通の言葉はありませんでしたが、まったく問題ありませんでした。",
				"저녁이 되면 {place2} 주변 거리는 연기와 웃음소리로 가득 찹니다. 생일 파티를 하던 가족과 합석하게 되었는데, 그분들은 주문한 음식을 전부 맛보라며 권했고 그중에는 {dish2}도 있었습니다. 미소와 엄지척 말고는 통하는 말이 없었지만 전혀 문제가 되지 않았어요.",
			},
			{
				"What surprised me most was how seasonal everything is. The menu at my favourite noodle shop changed twice in one week, and the owner explained that she only cooks what the farmers bring in that morning. It is a simple idea, but you can taste the difference.",
				"最让我惊讶的是这里的食物有多讲究时令。我最喜欢的那家面馆一周之内换了两次菜单，老板娘解释说她只做当天早上农民送来的食材。道理很简单，但吃得出差别。",
				"最讓我驚訝的是這裡的食物有多講究時令。我最喜歡的那家麵店一週內換了兩次菜單，老闆娘解釋說她只煮當天早上農民送來的食材。道理很簡單，但吃得出差別。",
				"一番驚いたのは、何もかもが季節に合わせていることです。お気に入りの麺屋のメニューは一週間で二度も変わり、女将さんは「その朝に農家さんが持ってきたものしか作らない」と教えてくれました。シンプルな考え方ですが、味の違いははっきり分かります。",
				"가장 놀라웠던 것은 모든 음식이 얼마나 제철을 따르는가였습니다. 제가 제일 좋아하던 국숫집은 일주일에 두 번이나 메뉴를 바꿨는데, 사장님은 그날 아침 농부들이 가져온 재료로만 요리한다고 하셨어요. 단순한 원칙이지만 맛의 차이가 확실히 느껴집니다.",
			},
		},
	},
	{
		key: "adventure",
		titles: []tr{
			{"A Long Day on Foot around {Near}", "徒步{near}的漫长一天", "徒步{near}的漫長一天", "{near}を歩き倒した長い一日", "{near}에서 보낸 길고 긴 하루"},
			{"Getting Lost (on Purpose) in {City}", "在{city}故意迷路", "在{city}故意迷路", "{city}でわざと迷子になる", "{city}에서 일부러 길을 잃다"},
			{"Sunrise, Blisters and Noodles: Three Days around {City}", "日出、水泡和一碗面：{city}三日记", "日出、水泡和一碗麵：{city}三日記", "日の出と靴擦れと麺：{city}周辺の3日間", "일출, 물집, 그리고 국수: {city} 3일 여행"},
		},
		openers: []opener{
			{
				lead: tr{
					"At five in the morning the path to {near} was dark, cold and completely empty. Two hours later I understood why my guide had insisted on the early start.",
					"清晨五点，通往{near}的小路又黑又冷，空无一人。两个小时后，我才明白向导为什么坚持要那么早出发。",
					"清晨五點，通往{near}的小路又黑又冷，空無一人。兩個小時後，我才明白嚮導為什麼堅持要那麼早出發。",
					"朝5時、{near}へ向かう道は暗く、寒く、人影ひとつありませんでした。2時間後、ガイドがなぜ早朝出発にこだわったのかがようやく分かりました。",
					"새벽 다섯 시, {near} 가는 길은 어둡고 춥고 인적 하나 없었습니다. 두 시간 뒤에야 가이드가 왜 그렇게 이른 출발을 고집했는지 알게 되었죠.",
				},
				rest: tr{
					"The light came over the hills slowly, turning everything from grey to gold, and for a while nobody in our little group said a word. It was the first of many moments on this trip when I was glad I had said yes to something slightly uncomfortable.",
					"光线慢慢越过山头，把一切从灰色染成金色，我们这个小队伍好一阵子都没人说话。在这趟旅行中，这样的时刻还有很多，而这是第一个：我很庆幸自己答应了一件有点辛苦的事。",
					"光線慢慢越過山頭，把一切從灰色染成金色，我們這個小隊伍好一陣子都沒人說話。在這趟旅程中，這樣的時刻還有很多，而這是第一個：我很慶幸自己答應了一件有點辛苦的事。",
					"光がゆっくりと山の向こうから差し込み、あたりを灰色から金色へと染めていきます。小さなグループの誰もがしばらく言葉を失っていました。少し大変なことに「はい」と言ってよかった、と思える瞬間は、この旅でこれが最初でした。",
					"빛이 천천히 언덕을 넘어오며 모든 것을 회색에서 금빛으로 물들였고, 우리 작은 일행은 한동안 아무 말도 하지 못했습니다. 조금 힘든 일에 '예'라고 대답하길 잘했다고 느낀 순간은 이번 여행에서 그때가 처음이었습니다.",
				},
			},
			{
				lead: tr{
					"I am not a natural adventurer. I like maps, plans and knowing where the next bathroom is, which is exactly why I decided to spend a week in {city} saying yes to everything.",
					"我天生不是爱冒险的人。我喜欢地图、计划，喜欢知道下一个洗手间在哪里——正因为如此，我决定在{city}待一周，对一切都说“好”。",
					"我天生不是愛冒險的人。我喜歡地圖、計畫，喜歡知道下一間廁所在哪裡——正因為如此，我決定在{city}待一週，對一切都說「好」。",
					"私は根っからの冒険家ではありません。地図や計画が好きで、次のトイレの場所を把握しておきたいタイプです。だからこそ、{city}で一週間、何にでも「イエス」と言ってみることにしました。",
					"저는 타고난 모험가가 아닙니다. 지도와 계획을 좋아하고, 다음 화장실이 어디 있는지 알아야 마음이 놓이는 사람이죠. 그래서 오히려 {city}에서 일주일 동안 모든 제안에 '예스'라고 답해 보기로 했습니다.",
				},
				rest: tr{
					"The rule was simple: if a local suggested something, I would try it. That rule took me up hills, down alleys, onto a rented bicycle with questionable brakes and, eventually, to some of the best days I have had anywhere.",
					"规则很简单：只要本地人提议，我就去试。这条规则带我爬上山坡、钻进小巷、骑上一辆刹车不太灵的租来的自行车，最后，让我度过了人生中最棒的几天。",
					"規則很簡單：只要在地人提議，我就去試。這條規則帶我爬上山坡、鑽進小巷、騎上一台煞車不太靈的租來的腳踏車，最後，讓我度過了人生中最棒的幾天。",
					"ルールは簡単で、地元の人に勧められたら必ず試すこと。このルールのおかげで丘を登り、路地に迷い込み、ブレーキの怪しいレンタル自転車にまたがり、最終的にはこれまでで最高の日々を過ごすことになりました。",
					"규칙은 간단했습니다. 현지인이 권하면 무조건 해 본다. 이 규칙 덕분에 언덕을 오르고, 골목을 헤매고, 브레이크가 미심쩍은 대여 자전거에 올라탔으며, 결국 그 어느 곳에서보다 멋진 날들을 보냈습니다.",
				},
			},
		},
		heading: tr{"Off the Beaten Path", "走一条少有人走的路", "走一條少有人走的路", "定番ルートを外れて", "남들이 가지 않는 길"},
		bodies: []tr{
			{
				"The trail started behind a small temple near {place} and climbed steadily through bamboo and pine. Every so often the trees opened up and the whole of {city} appeared below us, smaller and quieter than it feels at street level. We met only a handful of hikers, most of them retirees who were much faster than me.",
				"步道从{place}附近的一座小庙后面开始，穿过竹林和松林一路向上。每隔一段，树林豁然开朗，整个{city}就出现在脚下，比走在街上时感觉更小、也更安静。一路上只遇到几位登山客，大多是退休老人，走得比我快多了。",
				"步道從{place}附近一座小廟後方開始，穿過竹林和松林一路往上。每隔一段，樹林豁然開朗，整個{city}就出現在腳下，比走在街上時感覺更小、也更安靜。一路上只遇到幾位山友，大多是退休長輩，腳程比我快多了。",
				"登山道は{place}近くの小さなお寺の裏から始まり、竹林と松林の中をひたすら登っていきます。ときどき木々が途切れると、眼下に{city}の街全体が現れます。通りを歩いているときよりずっと小さく、静かに見えました。すれ違ったのは数人だけで、そのほとんどが私よりずっと健脚な年配の方々でした。",
				"산책로는 {place} 근처 작은 절 뒤편에서 시작해 대나무 숲과 소나무 숲을 지나 꾸준히 올라갑니다. 이따금 나무 사이가 트이면 {city} 전체가 발아래 펼쳐지는데, 거리에서 느낄 때보다 훨씬 작고 조용해 보였습니다. 마주친 등산객은 몇 명뿐이었고, 대부분 저보다 훨씬 빠른 어르신들이었어요.",
			},
			{
				"On the second day we rented bicycles and followed the river out of town. The road was flat, the breeze was cool and the villages we passed seemed to run on a completely different clock. An old man selling fruit by the roadside waved us over, cut a melon in half and refused to take any money.",
				"第二天我们租了自行车，沿着河出了城。路很平，风很凉，经过的村庄仿佛按着完全不同的时钟在运转。一位在路边卖水果的老爷爷招手叫我们过去，把一个瓜切成两半递给我们，怎么也不肯收钱。",
				"第二天我們租了腳踏車，沿著河騎出城。路很平，風很涼，經過的村子彷彿照著完全不同的時鐘在運轉。一位在路邊賣水果的阿伯招手叫我們過去，把一顆瓜切成兩半給我們，怎麼也不肯收錢。",
				"2日目は自転車を借りて、川沿いに町の外へ出ました。道は平坦で風は涼しく、通り過ぎる村々はまるで別の時計で動いているようでした。道端で果物を売っていたおじいさんが手招きしてメロンを半分に切ってくれ、お金は頑として受け取ってくれませんでした。",
				"둘째 날에는 자전거를 빌려 강을 따라 시내를 벗어났습니다. 길은 평탄하고 바람은 시원했으며, 지나가는 마을들은 전혀 다른 시계에 맞춰 돌아가는 듯했습니다. 길가에서 과일을 팔던 할아버지가 손짓해 우리를 부르더니 멜론을 반으로 잘라 주시고는 끝내 돈을 받지 않으셨어요.",
			},
			{
				"Not everything went to plan. A sudden storm sent us running for shelter under the roof of a tiny noodle shop, where we waited out the rain with bowls of soup and a very patient owner. Looking back, that hour was one of the highlights of the trip.",
				"并不是每件事都按计划进行。一场突如其来的暴雨让我们狂奔着躲进一家小面馆的屋檐下，就着热汤面和一位很有耐心的老板等雨停。回想起来，那一个小时反而是整趟旅行的亮点之一。",
				"並不是每件事都照計畫走。一場突如其來的大雨讓我們狂奔躲進一家小麵店的屋簷下，配著熱湯麵和一位很有耐心的老闆等雨停。回想起來，那一個小時反而是整趟旅程的亮點之一。",
				"すべてが計画通りに進んだわけではありません。突然の嵐に見舞われ、小さな麺屋の軒下に駆け込みました。温かいスープと、とても辛抱強い店主さんと一緒に雨が止むのを待ったあの1時間は、振り返ってみると旅のハイライトのひとつです。",
				"모든 것이 계획대로 되지는 않았습니다. 갑작스러운 폭우에 작은 국숫집 처마 밑으로 뛰어들었고, 따뜻한 국물 한 그릇과 참을성 많은 사장님과 함께 비가 그치기를 기다렸습니다. 돌이켜 보면 그 한 시간이 여행의 하이라이트 중 하나였어요.",
			},
		},
	},
	{
		key: "culture",
		titles: []tr{
			{"The Quiet Rituals of {City}", "{city}的日常仪式", "{city}的日常儀式", "{city}の静かな日常の儀式", "{city}의 조용한 일상 의식"},
			{"An Afternoon at {Place}", "在{place}的一个下午", "在{place}的一個下午", "{place}で過ごした午後", "{place}에서 보낸 오후"},
			{"Old Crafts, New Hands: The Makers of {City}", "老手艺，新传人：{city}的匠人们", "老手藝，新傳人：{city}的職人們", "受け継がれる手仕事：{city}の職人たち", "옛 기술, 새로운 손: {city}의 장인들"},
		},
		openers: []opener{
			{
				lead: tr{
					"Most visitors see {place} in twenty minutes, take a photo and move on. I spent a whole afternoon there, and I still feel I only scratched the surface.",
					"大多数游客二十分钟就逛完{place}，拍张照就走了。我在那里待了整整一个下午，仍觉得自己只看到了皮毛。",
					"大多數遊客二十分鐘就逛完{place}，拍張照就離開了。我在那裡待了整整一個下午，仍覺得自己只看到皮毛。",
					"多くの観光客は{place}を20分ほどで見て回り、写真を撮って次へ向かいます。私は午後いっぱいをそこで過ごしましたが、それでもほんの表面をなぞっただけのように感じています。",
					"대부분의 방문객은 {place}에서 20분쯤 둘러보고 사진을 찍은 뒤 떠납니다. 저는 그곳에서 오후 내내 머물렀는데도 여전히 겉핥기만 한 기분이에요.",
				},
				rest: tr{
					"My guide, who has been visiting since childhood, showed me how to read the place: the symbols carved above the doors, the order in which people pray, the small offerings left by regulars. Once you know what to look for, a famous sight becomes a living neighbourhood.",
					"我的向导从小就常来这里，他教我如何“读懂”这个地方：门楣上雕刻的图案、人们祈福的先后顺序、熟客留下的小小供品。一旦知道该看什么，一处著名景点就变成了一个鲜活的街区。",
					"我的嚮導從小就常來這裡，他教我如何「讀懂」這個地方：門楣上雕刻的圖案、人們參拜的先後順序、熟客留下的小小供品。一旦知道該看什麼，一處知名景點就變成了一個鮮活的街區。",
					"子どもの頃からここに通っているというガイドさんが、この場所の「読み方」を教えてくれました。扉の上に彫られた文様、人々がお参りする順番、常連さんが置いていく小さなお供え物。何を見ればいいかが分かると、有名な観光地が生きた街並みに変わります。",
					"어릴 때부터 이곳을 드나들었다는 가이드가 이 장소를 '읽는 법'을 알려 주었습니다. 문 위에 새겨진 문양, 사람들이 기도하는 순서, 단골들이 두고 가는 작은 공물까지요. 무엇을 봐야 하는지 알고 나면 유명 관광지가 살아 숨 쉬는 동네로 바뀝니다.",
				},
			},
			{
				lead: tr{
					"In a narrow workshop in {city}, a woman in her seventies is teaching her grandson the craft her family has practised for four generations. I was lucky enough to spend a morning watching them.",
					"在{city}一间狭窄的作坊里，一位七十多岁的老奶奶正把家族传承了四代的手艺教给孙子。我有幸在那里看了一整个上午。",
					"在{city}一間狹窄的工作室裡，一位七十多歲的阿嬤正把家族傳承四代的手藝教給孫子。我有幸在那裡看了一整個上午。",
					"{city}の小さな工房で、70代の女性が4代続く家業の技を孫に教えています。幸運にも、その様子をひと朝じっくり見学させてもらうことができました。",
					"{city}의 좁은 공방에서 일흔이 넘은 할머니가 4대째 이어 온 가업의 기술을 손자에게 가르치고 있습니다. 운 좋게도 그 모습을 오전 내내 지켜볼 수 있었어요.",
				},
				rest: tr{
					"Their hands moved in the same rhythm, one confident and one still careful, and the conversation switched between technique and family gossip without a pause. It was the most honest introduction to the culture of {city} that I could have asked for.",
					"两双手以同样的节奏移动，一双娴熟自信，一双仍小心翼翼；他们的谈话在技法和家常之间自然切换。这是我能想象到的、认识{city}文化最真诚的方式。",
					"兩雙手以同樣的節奏移動，一雙熟練自信，一雙仍小心翼翼；他們的對話在技法和家常之間自然切換。這是我能想像到、認識{city}文化最真誠的方式。",
					"二人の手は同じリズムで動きます。一方は自信に満ち、もう一方はまだ慎重に。会話は技術の話から家族の噂話へと途切れることなく行き来していました。{city}の文化に触れるうえで、これ以上に誠実な入り口はなかったと思います。",
					"두 사람의 손은 같은 리듬으로 움직였습니다. 한 손은 자신감이 넘쳤고, 다른 한 손은 아직 조심스러웠죠. 대화는 기술 이야기와 집안 이야기 사이를 쉼 없이 오갔습니다. {city}의 문화를 알아 가는 데 이보다 진솔한 시작은 없었을 거예요.",
				},
			},
		},
		heading: tr{"Reading the Details", "读懂细节", "讀懂細節", "細部を読み解く", "디테일 읽기"},
		bodies: []tr{
			{
				"At {place2} I learned that many customs are about timing. Locals come early in the morning, before work, and the whole visit takes five minutes: a bow, a small donation, a quiet wish. Watching them made me slow down and pay attention to my own habits as a traveller.",
				"在{place2}，我了解到许多习俗都与时间有关。本地人会在上班前的清晨过来，整个过程只要五分钟：一次鞠躬、一点香火钱、一个安静的心愿。看着他们，我也放慢脚步，开始留意自己作为旅行者的习惯。",
				"在{place2}，我了解到許多習俗都和時間有關。在地人會在上班前的清晨過來，整個過程只要五分鐘：一次鞠躬、一點香油錢、一個安靜的心願。看著他們，我也放慢腳步，開始留意自己身為旅人的習慣。",
				"{place2}では、多くの習わしが「時間」と深く結びついていることを知りました。地元の人は出勤前の早朝にやって来て、お辞儀をし、少しのお賽銭を納め、静かに願いごとをする。すべて5分ほどで終わります。その姿を見ていると、旅人としての自分の振る舞いも見つめ直したくなりました。",
				"{place2}에서는 많은 풍습이 '시간'과 관련되어 있다는 것을 배웠습니다. 현지인들은 출근 전 이른 아침에 찾아와 절을 하고, 작은 시주를 하고, 조용히 소원을 빕니다. 전부 5분이면 끝나죠. 그 모습을 보며 저도 속도를 늦추고 여행자로서의 제 습관을 돌아보게 되었습니다.",
			},
			{
				"The best conversations happened over tea. A shop owner near {place} explained why the same leaves taste different in spring and autumn, then moved on to local politics, his daughter's wedding and the best time to visit {near}. An hour passed before I noticed.",
				"最好的聊天总是在喝茶时发生的。{place}附近一家店的老板跟我解释，为什么同一种茶叶春天和秋天喝起来味道不同，接着又聊到本地的时事、他女儿的婚礼，以及去{near}的最佳时节。不知不觉就过了一个小时。",
				"最好的聊天總是在喝茶時發生的。{place}附近一家店的老闆跟我解釋，為什麼同一種茶葉春天和秋天喝起來味道不同，接著又聊到在地時事、他女兒的婚禮，以及去{near}的最佳時節。不知不覺就過了一個小時。",
				"いちばん楽しい会話は、お茶を飲みながら生まれました。{place}近くのお店のご主人が、同じ茶葉でも春と秋で味が違う理由を説明してくれたかと思えば、地元の政治の話、娘さんの結婚式、{near}を訪れるのにいちばんいい季節へと話が広がり、気づけば1時間が過ぎていました。",
				"가장 좋은 대화는 차를 마시며 이루어졌습니다. {place} 근처 가게 주인은 같은 찻잎이라도 봄과 가을에 맛이 다른 이유를 설명해 주더니, 동네 정치 이야기, 딸의 결혼식, {near}에 가기 좋은 시기까지 이야기를 이어 갔습니다. 어느새 한 시간이 훌쩍 지나 있었어요.",
			},
			{
				"Festivals are the easiest way in. I happened to arrive during a neighbourhood celebration, with drums in the street, lanterns over every doorway and food stalls selling {dish}. Nobody minded a curious foreigner asking questions; in fact, several people went out of their way to explain what was happening.",
				"节庆是最容易融入的方式。我刚好赶上街坊的庆典，街上锣鼓喧天，家家门口挂着灯笼，小摊上卖着{dish}。没有人介意一个好奇的外国人问东问西，反而有好几个人特地过来为我讲解正在发生的一切。",
				"節慶是最容易融入的方式。我剛好碰上街坊的慶典，街上鑼鼓喧天，家家戶戶門口掛著燈籠，小攤上賣著{dish}。沒有人介意一個好奇的外國人問東問西，反而有好幾個人特地過來為我解說正在發生的一切。",
				"お祭りは地元の文化に触れるいちばんの近道です。ちょうど町内のお祭りの最中に到着し、通りには太鼓が響き、どの家の軒先にも提灯が灯り、屋台では{dish}が売られていました。好奇心旺盛な外国人が質問しても誰も嫌な顔をせず、むしろ何人もの人がわざわざ説明しに来てくれました。",
				"축제는 현지 문화에 다가가는 가장 쉬운 방법입니다. 마침 동네 축제 기간에 도착했는데, 거리에는 북소리가 울리고 집집마다 등불이 걸려 있었으며 노점마다 {dish} 냄새가 가득했습니다. 호기심 많은 외국인이 이것저것 물어도 아무도 싫은 내색을 하지 않았고, 오히려 여러 사람이 일부러 다가와 무슨 일이 벌어지고 있는지 설명해 주었습니다.",
			},
		},
	},
	{
		key: "nature",
		titles: []tr{
			{"Green Days around {City}", "{city}周边的绿色时光", "{city}周邊的綠色時光", "{city}近郊、緑の日々", "{city} 근교에서 보낸 초록빛 날들"},
			{"{Near}: Worth the Early Alarm", "{near}：值得早起", "{near}：值得早起", "{near}：早起きする価値あり", "{near}: 일찍 일어날 가치가 있는 곳"},
			{"Mist, Water and Stone near {City}", "{city}近郊的雾、水与石", "{city}近郊的霧、水與石", "{city}近郊の霧と水と岩", "{city} 근교의 안개, 물, 그리고 바위"},
		},
		openers: []opener{
			{
				lead: tr{
					"Only an hour from the centre of {city}, the noise disappears and you can hear birds, water and your own footsteps. I had no idea nature was this close.",
					"离{city}市中心只有一个小时的路程，喧嚣就消失了，耳边只剩下鸟鸣、流水和自己的脚步声。我从没想到大自然离城市这么近。",
					"離{city}市中心只要一個小時，喧囂就消失了，耳邊只剩下鳥鳴、流水和自己的腳步聲。我從沒想過大自然離城市這麼近。",
					"{city}の中心部からわずか1時間で、喧騒は消え、鳥のさえずりと水の音、そして自分の足音だけが聞こえてきます。自然がこんなに近くにあるとは思いもしませんでした。",
					"{city} 도심에서 겨우 한 시간 거리인데도 소음이 사라지고 새소리와 물소리, 그리고 제 발소리만 들립니다. 자연이 이렇게 가까이 있을 줄은 몰랐어요.",
				},
				rest: tr{
					"I had planned a city break, but after a friend sent me photos of {near} I changed my plans and gave the outdoors three full days. It was the best travel decision I made all year.",
					"我原本只打算来一趟城市游，但朋友发来几张{near}的照片后，我改了计划，给户外留出了整整三天。这是我今年做过最好的旅行决定。",
					"我原本只打算來一趟城市小旅行，但朋友傳來幾張{near}的照片後，我改了計畫，給戶外留出了整整三天。這是我今年做過最好的旅行決定。",
					"もともとは街歩きの旅のつもりでしたが、友人から{near}の写真が送られてきて予定を変更し、まる3日間をアウトドアに充てることにしました。今年いちばんの旅の決断だったと思います。",
					"원래는 도시 여행을 계획했지만, 친구가 보내 준 {near} 사진을 보고 계획을 바꿔 꼬박 사흘을 야외에서 보내기로 했습니다. 올해 내린 여행 결정 중 최고였어요.",
				},
			},
			{
				lead: tr{
					"The mist had not lifted when we reached {near}, and for the first hour we could barely see the path ahead. Then the wind changed and the whole valley opened up in front of us.",
					"我们到达{near}时雾还没散，头一个小时几乎看不清前方的路。后来风向一变，整个山谷就在我们眼前豁然展开。",
					"我們抵達{near}時霧還沒散，頭一個小時幾乎看不清前方的路。後來風向一轉，整片山谷就在我們眼前豁然開展。",
					"{near}に着いたとき、霧はまだ晴れておらず、最初の1時間は数メートル先の道さえよく見えませんでした。ところが風向きが変わった瞬間、谷全体が目の前に広がったのです。",
					"{near}에 도착했을 때는 안개가 걷히지 않아 처음 한 시간은 앞길조차 잘 보이지 않았습니다. 그러다 바람의 방향이 바뀌자 골짜기 전체가 눈앞에 펼쳐졌어요.",
				},
				rest: tr{
					"Moments like that are impossible to plan, and that is part of their magic. Nature here rewards patience: the light shifts by the minute, the weather changes its mind, and the views are never the same twice.",
					"这样的时刻是无法计划的，这也正是它的魔力所在。这里的大自然会回报耐心的人：光线每分钟都在变化，天气说变就变，同样的风景永远不会出现第二次。",
					"這樣的時刻是無法計畫的，這也正是它的魔力所在。這裡的大自然會回報有耐心的人：光線每分鐘都在變化，天氣說變就變，同樣的風景永遠不會出現第二次。",
					"こうした瞬間は計画して得られるものではなく、そこにこそ魅力があります。ここの自然は辛抱強い人に応えてくれます。光は刻一刻と移ろい、天気は気まぐれで、同じ景色には二度と出会えません。",
					"이런 순간은 계획할 수 없고, 바로 그 점이 매력입니다. 이곳의 자연은 인내심 있는 사람에게 보답합니다. 빛은 매 순간 달라지고, 날씨는 변덕스러우며, 같은 풍경은 두 번 다시 만날 수 없으니까요.",
				},
			},
		},
		heading: tr{"Into the Green", "走进绿色", "走進綠色", "緑の中へ", "초록 속으로"},
		bodies: []tr{
			{
				"We walked along the water for most of the morning, stopping whenever something caught our eye: a heron standing perfectly still, a farmer repairing a stone wall, a tiny shrine covered in moss. My guide knew the names of the plants in three languages and the local stories behind half of them.",
				"整个上午我们大多沿着水边走，看到有意思的东西就停下来：一只纹丝不动的白鹭、一位正在修石墙的农夫、一座长满青苔的小神龛。我的向导能用三种语言说出植物的名字，还知道其中一半背后的本地传说。",
				"整個上午我們大多沿著水邊走，看到有趣的東西就停下來：一隻動也不動的白鷺、一位正在修石牆的農夫、一座長滿青苔的小神龕。我的嚮導能用三種語言說出植物的名字，還知道其中一半背後的在地傳說。",
				"午前中のほとんどは水辺に沿って歩き、気になるものがあるたびに足を止めました。微動だにしないサギ、石垣を直す農家の方、苔むした小さな祠。ガイドさんは植物の名前を3か国語で言えるうえ、その半分にまつわる地元の言い伝えまで知っていました。",
				"오전 내내 물가를 따라 걸으며 눈길을 끄는 것이 있을 때마다 멈춰 섰습니다. 꼼짝 않고 서 있는 왜가리, 돌담을 고치는 농부, 이끼로 뒤덮인 작은 사당까지요. 가이드는 식물 이름을 3개 국어로 알고 있었고, 그중 절반에 얽힌 지역 이야기도 들려주었습니다.",
			},
			{
				"Lunch was a simple affair in a village near {near}: rice, greens picked that morning and a soup that tasted of mountains. Afterwards we climbed to a viewpoint where the whole landscape, fields, river and hills, spread out like a painting.",
				"午饭是在{near}附近一个村子里吃的，很简单：米饭、当天早上摘的青菜，还有一碗带着山野气息的汤。饭后我们爬到一个观景点，田野、河流和山丘铺展开来，宛如一幅画。",
				"午餐是在{near}附近一個村子裡吃的，很簡單：白飯、當天早上摘的青菜，還有一碗帶著山林氣息的湯。飯後我們爬到一處觀景點，田野、河流和山丘鋪展開來，宛如一幅畫。",
				"昼食は{near}近くの村でいただく素朴なもの。ご飯と、その朝に摘んだ青菜、そして山の味がするスープです。食後は展望台まで登り、田畑と川と丘が絵画のように広がる景色を眺めました。",
				"점심은 {near} 근처 마을에서 먹은 소박한 한 끼였습니다. 밥과 그날 아침 딴 나물, 그리고 산의 맛이 나는 국 한 그릇. 식사 후에는 전망대에 올라 들판과 강과 언덕이 한 폭의 그림처럼 펼쳐진 풍경을 바라보았습니다.",
			},
			{
				"If you go, go slowly. The trails are well marked, but the real pleasure is in the stops: a bench with a view, a tea house run by a retired teacher, a stream cold enough to wake you up. Leave room in your plans for those.",
				"如果你要去，请慢慢走。步道标示得很清楚，但真正的乐趣在于停下来的时刻：一张看得见风景的长椅、一位退休老师开的茶馆、一条冰凉得让人精神一振的小溪。给这些时刻在行程里留点空间吧。",
				"如果你要去，請慢慢走。步道標示得很清楚，但真正的樂趣在於停下來的時刻：一張看得見風景的長椅、一位退休老師開的茶屋、一條冰涼得讓人精神一振的小溪。給這些時刻在行程裡留點空間吧。",
				"行くなら、ゆっくり歩いてください。道標はしっかりしていますが、本当の楽しみは立ち止まる時間にあります。景色のいいベンチ、元教師が営む茶屋、目が覚めるほど冷たい小川。そんな時間のための余白を、旅の予定に残しておきましょう。",
				"가게 된다면 천천히 걸으세요. 길 안내는 잘 되어 있지만 진짜 즐거움은 멈춰 서는 순간에 있습니다. 경치 좋은 벤치, 은퇴한 선생님이 운영하는 찻집, 정신이 번쩍 들 만큼 차가운 개울. 일정에 그런 순간을 위한 여유를 남겨 두세요.",
			},
		},
	},
	{
		key: "city",
		titles: []tr{
			{"48 Hours in {City}", "{city}48小时", "{city}48小時", "{city}で過ごす48時間", "{city}에서의 48시간"},
			{"Walking {City}, One Neighbourhood at a Time", "一个街区一个街区地走遍{city}", "一個街區一個街區地走遍{city}", "街区ごとに歩く{city}", "한 동네씩 걸어 보는 {city}"},
			{"From {Place} to {Place2}: A City Walk", "从{place}到{place2}：城市漫步", "從{place}到{place2}：城市漫步", "{place}から{place2}へ：街歩きの記録", "{place}에서 {place2}까지: 도시 산책"},
		},
		openers: []opener{
			{
				lead: tr{
					"Two days is not enough for {city}, but it is enough to fall in love with it. Here is how I spent mine, and what I would do differently next time.",
					"两天时间对{city}来说远远不够，但足以让人爱上它。以下是我这两天的安排，以及下次我会怎么调整。",
					"兩天時間對{city}來說遠遠不夠，但足以讓人愛上它。以下是我這兩天的安排，以及下次我會怎麼調整。",
					"{city}を知るのに2日では足りませんが、恋に落ちるには十分です。私の過ごし方と、次に来たら変えたいことをまとめました。",
					"{city} 여행에 이틀은 턱없이 짧지만, 사랑에 빠지기에는 충분합니다. 제가 보낸 이틀과 다음에 간다면 바꾸고 싶은 점을 정리했어요.",
				},
				rest: tr{
					"I based myself near {place}, walked everywhere I could and used the metro for the rest. The city rewards curiosity: turn off any main road and within a minute you are in a different world of laundry lines, corner shops and neighbours chatting on doorsteps.",
					"我住在{place}附近，能走路就走路，其余靠地铁。这座城市会奖励好奇的人：随便拐进一条岔路，一分钟之内你就进入了另一个世界——晾衣绳、街角小店、坐在门口聊天的邻居。",
					"我住在{place}附近，能走路就走路，其他就搭大眾運輸。這座城市會獎勵好奇的人：隨便轉進一條岔路，一分鐘之內你就進入另一個世界——曬衣繩、街角小店、坐在門口聊天的鄰居。",
					"宿は{place}の近くに取り、歩ける所はすべて歩き、それ以外は地下鉄を使いました。この街は好奇心に応えてくれます。大通りを一本入れば、1分もしないうちに洗濯物が揺れ、角の商店があり、ご近所さんが玄関先でおしゃべりする別世界が広がっています。",
					"숙소는 {place} 근처에 잡고, 걸을 수 있는 곳은 모두 걸었으며 나머지는 지하철을 탔습니다. 이 도시는 호기심에 보답합니다. 큰길에서 한 골목만 들어가면 1분도 안 되어 빨랫줄과 구멍가게, 문 앞에서 수다를 떠는 이웃들이 있는 전혀 다른 세상이 펼쳐지니까요.",
				},
			},
			{
				lead: tr{
					"The best way to understand {city} is to walk it slowly, one neighbourhood at a time. I gave myself a week, comfortable shoes and no fixed plan.",
					"了解{city}最好的方式，是慢慢地、一个街区一个街区地走。我给了自己一周时间、一双舒服的鞋，没有固定计划。",
					"認識{city}最好的方式，是慢慢地、一個街區一個街區地走。我給了自己一週時間、一雙舒服的鞋，沒有固定計畫。",
					"{city}を理解するいちばんの方法は、街区ごとにゆっくり歩くことです。一週間の時間と歩きやすい靴を用意し、予定は決めずに出かけました。",
					"{city}의 진짜 모습을 알려면 한 동네씩 천천히 걸어 보는 것이 가장 좋습니다. 저는 일주일의 시간과 편한 신발만 챙기고 정해진 계획 없이 떠났어요.",
				},
				rest: tr{
					"Each morning I picked a district, found a café, and let the streets decide the rest. Some days ended at famous sights like {place}; others ended in places I still cannot find on a map.",
					"每天早上我选一个区，找一家咖啡馆坐下，剩下的就交给街道决定。有些日子以{place}这样的著名景点结束，有些日子则停在我至今都在地图上找不到的地方。",
					"每天早上我挑一個區，找一家咖啡店坐下，剩下的就交給街道決定。有些日子以{place}這樣的知名景點結束，有些日子則停在我到現在都在地圖上找不到的地方。",
					"毎朝ひとつの地区を選び、カフェを見つけて腰を落ち着け、あとは街に任せます。{place}のような有名な場所で一日を終えた日もあれば、今でも地図で見つけられない場所で終わった日もありました。",
					"매일 아침 한 동네를 골라 카페에 자리를 잡고, 나머지는 거리에 맡겼습니다. 어떤 날은 {place} 같은 유명한 곳에서 하루를 마쳤고, 어떤 날은 지금도 지도에서 찾을 수 없는 곳에서 끝났어요.",
				},
			},
		},
		heading: tr{"Neighbourhood by Neighbourhood", "一个街区接一个街区", "一個街區接一個街區", "街区から街区へ", "동네에서 동네로"},
		bodies: []tr{
			{
				"Day one started at {place} early, before the tour groups arrived. By nine the crowds were thick, so I slipped into the side streets and followed the smell of breakfast to a tiny shop selling {dish}. I ate standing up, next to a delivery driver who recommended three more places I should visit.",
				"第一天一早我就到了{place}，赶在旅行团之前。九点一过人潮涌来，我便溜进旁边的小街，循着早餐的香味找到一家卖{dish}的小店。我站着吃完，旁边的外卖小哥还给我推荐了三个值得去的地方。",
				"第一天一早我就到了{place}，趕在旅行團之前。九點一過人潮湧入，我便溜進旁邊的小巷，循著早餐的香味找到一家賣{dish}的小店。我站著吃完，旁邊的外送員還推薦了三個值得去的地方。",
				"1日目は団体客が来る前に、朝早く{place}へ。9時を過ぎると人が増えてきたので脇道に入り、朝ごはんの匂いに誘われて{dish}を売る小さなお店へ。立ったまま食べていると、隣にいた配達員さんがあと3か所おすすめを教えてくれました。",
				"첫날은 단체 관광객이 오기 전에 일찍 {place}에 갔습니다. 아홉 시가 넘자 사람이 몰려들어 옆 골목으로 빠졌고, 아침 냄새를 따라가다 {dish} 파는 작은 가게를 발견했어요. 서서 먹고 있는데 옆에 있던 배달 기사님이 꼭 가 봐야 할 곳 세 군데를 추천해 주셨습니다.",
			},
			{
				"In the afternoon I crossed town to {place2}, a completely different side of {city}. Old buildings stand next to glass towers, and tiny temples hide between shops selling phones. It is the contrast that makes the city so fascinating: nothing is ever only old or only new.",
				"下午我穿过城市来到{place2}，这是{city}完全不同的另一面。老建筑与玻璃幕墙的高楼比邻而立，小小的庙宇藏在卖手机的店铺之间。正是这种反差让这座城市如此迷人：这里从来没有纯粹的旧，也没有纯粹的新。",
				"下午我穿越市區來到{place2}，這是{city}完全不同的另一面。老建築與玻璃帷幕大樓比鄰而立，小小的廟宇藏在賣手機的店家之間。正是這種反差讓這座城市如此迷人：這裡從來沒有純粹的舊，也沒有純粹的新。",
				"午後は街の反対側にある{place2}へ。ここは{city}のまったく違う一面です。古い建物がガラス張りのビルと並び、携帯電話店の間に小さなお寺がひっそりとたたずんでいます。古いだけでも新しいだけでもない、そのコントラストこそがこの街の魅力です。",
				"오후에는 도시를 가로질러 {place2}에 갔습니다. {city}의 전혀 다른 얼굴이죠. 오래된 건물이 유리 빌딩과 나란히 서 있고, 휴대폰 가게 사이에 작은 사원이 숨어 있습니다. 낡기만 하지도, 새롭기만 하지도 않은 그 대비가 이 도시를 매력적으로 만듭니다.",
			},
			{
				"Evenings are when {city} really comes alive. Office workers pour out of the towers, street food appears on every corner and the riverside paths fill with joggers, couples and grandparents dancing to music from a portable speaker. I could have watched it for hours, and some nights I did.",
				"傍晚才是{city}真正热闹起来的时候。上班族从写字楼里涌出，街角冒出各式小吃，河边步道上满是跑步的人、情侣，还有伴着便携音箱跳舞的爷爷奶奶。我可以看上好几个小时，有几个晚上我也真的这么做了。",
				"傍晚才是{city}真正熱鬧起來的時候。上班族從辦公大樓湧出，街角冒出各式小吃，河濱步道上滿是慢跑的人、情侶，還有跟著隨身音響跳舞的阿公阿嬤。我可以看上好幾個小時，有幾個晚上我也真的這麼做了。",
				"{city}が本当に活気づくのは夕方です。オフィスビルから会社員があふれ出し、街角には屋台が現れ、川沿いの遊歩道はジョギングする人やカップル、ポータブルスピーカーの音楽に合わせて踊るお年寄りでいっぱいになります。何時間でも眺めていられますし、実際にそうした夜もありました。",
				"{city}의 진짜 활기는 저녁에 시작됩니다. 회사원들이 빌딩에서 쏟아져 나오고, 길모퉁이마다 길거리 음식이 등장하며, 강변 산책로는 조깅하는 사람, 연인들, 휴대용 스피커 음악에 맞춰 춤추는 할머니 할아버지들로 가득 찹니다. 몇 시간이고 바라볼 수 있었고, 실제로 그런 밤도 있었어요.",
			},
		},
	},
	{
		key: "shopping",
		titles: []tr{
			{"Markets, Makers and Bargains in {City}", "{city}的市集、手艺人与好物", "{city}的市集、職人與好物", "{city}の市場と職人と掘り出し物", "{city}의 시장, 장인, 그리고 득템"},
			{"What I Brought Home from {City}", "我从{city}带回家的东西", "我從{city}帶回家的東西", "{city}から持ち帰ったもの", "{city}에서 사 온 것들"},
			{"A Shopper's Walk around {Place}", "{place}周边购物漫步", "{place}周邊購物漫步", "{place}周辺ショッピング散歩", "{place} 주변 쇼핑 산책"},
		},
		openers: []opener{
			{
				lead: tr{
					"I came to {city} with a half-empty suitcase on purpose. It went home full, and not with anything you could buy at the airport.",
					"我特意带着半空的行李箱来到{city}。回家时箱子装得满满的，而且没有一样是在机场能买到的。",
					"我特地帶著半空的行李箱來到{city}。回家時箱子塞得滿滿的，而且沒有一樣是在機場買得到的。",
					"あえてスーツケースを半分空けて{city}に来ました。帰りにはぎっしり詰まっていましたが、空港で買えるものはひとつもありません。",
					"일부러 캐리어를 반쯤 비운 채 {city}에 왔습니다. 돌아갈 때는 꽉 찼는데, 공항에서 살 수 있는 물건은 하나도 없었어요.",
				},
				rest: tr{
					"Shopping here is less about brands and more about people: the potter who explains every glaze, the aunties at the market who insist you taste before you buy, the young designers reinventing traditional patterns. Here are the places I loved most.",
					"在这里购物，重要的不是品牌，而是人：会为你讲解每一种釉色的陶艺师，坚持要你先尝再买的市场阿姨，还有重新诠释传统图案的年轻设计师。以下是我最爱的几个地方。",
					"在這裡購物，重點不是品牌，而是人：會為你解說每一種釉色的陶藝家、堅持要你先試吃再買的市場阿姨，還有重新詮釋傳統圖案的年輕設計師。以下是我最愛的幾個地方。",
					"ここでの買い物は、ブランドよりも人との出会いです。釉薬の一つひとつを説明してくれる陶芸家、買う前に必ず味見をさせてくれる市場のおばちゃん、伝統柄を新しく生まれ変わらせる若いデザイナーたち。特に気に入った場所をご紹介します。",
					"이곳에서의 쇼핑은 브랜드보다 사람이 중심입니다. 유약 하나하나를 설명해 주는 도예가, 사기 전에 꼭 맛보라고 권하는 시장 아주머니, 전통 문양을 새롭게 재해석하는 젊은 디자이너들까지요. 제가 가장 좋아했던 곳들을 소개합니다.",
				},
			},
			{
				lead: tr{
					"Every trip I buy one thing I will use every day. In {city} it was a hand-made teacup from a tiny shop near {place}, and the story behind it is better than the cup itself.",
					"每次旅行我都会买一样每天都会用的东西。在{city}，是{place}附近一家小店里的一只手工茶杯，而它背后的故事比杯子本身还要动人。",
					"每次旅行我都會買一樣每天都會用到的東西。在{city}，是{place}附近一家小店裡的一只手作茶杯，而它背後的故事比杯子本身還要動人。",
					"旅に出るたび、毎日使うものをひとつだけ買うことにしています。{city}では{place}近くの小さなお店で見つけた手作りの湯呑みでした。その器にまつわる話は、器そのものよりも素敵です。",
					"여행할 때마다 매일 쓸 물건을 하나씩 삽니다. {city}에서는 {place} 근처 작은 가게에서 찾은 수제 찻잔이었는데, 그 찻잔에 얽힌 이야기가 찻잔 자체보다 더 멋져요.",
				},
				rest: tr{
					"The owner spent twenty minutes helping me choose, poured tea into three different cups so I could feel the difference, and wrapped my purchase as carefully as if it were a gift for his own mother.",
					"店主花了二十分钟帮我挑选，把茶倒进三只不同的杯子让我感受差别，然后像给自己母亲包礼物一样，小心翼翼地把杯子包好。",
					"老闆花了二十分鐘幫我挑選，把茶倒進三只不同的杯子讓我感受差別，然後像替自己母親包禮物一樣，小心翼翼地把杯子包好。",
					"店主さんは20分もかけて一緒に選んでくれ、違いが分かるようにと3つの器にお茶を注いでくれました。そして自分のお母さんへの贈り物のように、丁寧に包んでくれたのです。",
					"주인은 20분 동안 함께 골라 주며 차이를 느껴 보라고 세 개의 잔에 차를 따라 주었고, 마치 자기 어머니께 드릴 선물처럼 정성스럽게 포장해 주었습니다.",
				},
			},
		},
		heading: tr{"Where to Shop", "去哪里买", "去哪裡買", "どこで買う？", "어디서 살까"},
		bodies: []tr{
			{
				"Start early at the market near {place}. Stalls open at dawn, prices are written on scraps of cardboard and the best produce is gone by ten. I came away with dried fruit, spices, a bamboo steamer and a bag of local snacks that did not survive the flight home.",
				"一早先去{place}附近的市场。摊位天一亮就开张，价格写在纸板上，最好的货十点前就卖光了。我带走了果干、香料、一个竹蒸笼，还有一袋本地零食——可惜还没等飞机落地就被我吃光了。",
				"一早先去{place}附近的市場。攤位天一亮就開張，價格寫在紙板上，最好的貨十點前就賣光了。我帶走了果乾、香料、一個竹蒸籠，還有一袋在地零食——可惜還沒等飛機落地就被我吃光了。",
				"まずは朝早く{place}近くの市場へ。屋台は夜明けとともに開き、値段は段ボールの切れ端に書かれていて、いい品は10時までに売り切れてしまいます。私はドライフルーツにスパイス、竹の蒸籠、それに地元のお菓子を一袋買いましたが、お菓子は帰りの飛行機が着く前になくなっていました。",
				"먼저 아침 일찍 {place} 근처 시장에 가 보세요. 노점은 새벽에 문을 열고, 가격은 골판지 조각에 적혀 있으며, 좋은 물건은 열 시 전에 동이 납니다. 저는 말린 과일, 향신료, 대나무 찜기, 그리고 현지 과자 한 봉지를 샀는데, 과자는 귀국 비행기가 착륙하기도 전에 다 먹어 버렸어요.",
			},
			{
				"The area around {place2} is where young designers open their first shops. Expect tote bags with clever local jokes, ceramics in soft colours, and clothes that mix traditional patterns with modern cuts. Prices are fair and many owners are happy to tell you how each piece was made.",
				"{place2}一带是年轻设计师开第一家店的地方。你会看到印着本地梗的帆布包、柔和色调的陶瓷，以及把传统图案和现代剪裁结合在一起的服装。价格公道，很多店主也乐意告诉你每件作品是怎么做出来的。",
				"{place2}一帶是年輕設計師開第一家店的地方。你會看到印著在地梗的帆布袋、柔和色調的陶瓷，以及把傳統圖案和現代剪裁結合在一起的服裝。價格公道，很多老闆也樂意告訴你每件作品是怎麼做出來的。",
				"{place2}周辺は、若手デザイナーが最初のお店を開くエリアです。地元ネタの効いたトートバッグ、やわらかな色合いの陶器、伝統柄と現代的なシルエットを組み合わせた服などが並びます。価格も良心的で、多くの店主が一点一点の作り方を喜んで教えてくれます。",
				"{place2} 일대는 젊은 디자이너들이 첫 가게를 여는 동네입니다. 재치 있는 현지 유머가 담긴 에코백, 부드러운 색감의 도자기, 전통 문양과 현대적인 재단을 결합한 옷들을 만날 수 있어요. 가격도 합리적이고, 많은 주인들이 작품 하나하나를 어떻게 만들었는지 기꺼이 이야기해 줍니다.",
			},
			{
				"A word on bargaining: in markets it is expected, in boutiques it is not. Smile, ask for a small discount if you buy several things, and never push too hard. The relationships matter more than the money, and a friendly shopkeeper will often add a small gift to your bag.",
				"关于讲价：在市场里讲价是常态，在精品小店里则不必。保持微笑，如果买好几样东西可以请老板便宜一点，但千万别砍得太狠。人情比钱更重要，友善的店主常常会往你的袋子里多塞一份小礼物。",
				"關於殺價：在市場裡殺價很正常，在精品小店裡則不必。保持微笑，如果買好幾樣可以請老闆算便宜一點，但千萬別砍得太兇。人情比錢重要，友善的老闆常常會在你的袋子裡多放一份小禮物。",
				"値段交渉について一言。市場では当たり前ですが、ブティックではしません。笑顔で、いくつかまとめて買うなら少しだけ値引きをお願いしてみましょう。ただし強引すぎるのは禁物です。お金よりも人とのつながりが大切で、感じのいい店主さんはよく小さなおまけを袋に入れてくれます。",
				"흥정에 대해 한마디. 시장에서는 당연하지만 부티크에서는 하지 않습니다. 웃는 얼굴로, 여러 개를 산다면 조금만 깎아 달라고 부탁해 보세요. 다만 너무 세게 밀어붙이지는 마세요. 돈보다 관계가 중요하고, 친절한 가게 주인은 종종 봉투에 작은 덤을 넣어 줍니다.",
			},
		},
	},
}

// Passages any travelogue may use.
var (
	generalParagraphs = []tr{
		{
			"What stayed with me most were the people. A retired teacher who practised her English on me at a bus stop, a shop owner who lent me an umbrella and refused to take it back, a group of students who adopted me for an evening. Travel guides cannot list these encounters, but they are the reason I want to return.",
			"最让我难忘的是这里的人。在公交站拿我练英语的退休老师，借我雨伞又坚决不肯收回的店主，还有一群拉着我玩了一整晚的大学生。旅游指南列不出这样的相遇，但它们正是我想再回来的理由。",
			"最讓我難忘的是這裡的人。在公車站拿我練英文的退休老師、借我雨傘又堅持不收回的店老闆，還有一群拉著我玩了一整晚的大學生。旅遊書列不出這樣的相遇，但它們正是我想再回來的理由。",
			"いちばん心に残ったのは人々です。バス停で英語の練習相手になってほしいと話しかけてきた元教師の女性、傘を貸してくれて返そうとしても受け取らなかった店主さん、ひと晩仲間に入れてくれた学生たち。ガイドブックには載らない出会いですが、それこそがまた来たいと思う理由です。",
			"가장 기억에 남는 것은 사람들이었습니다. 버스 정류장에서 제게 영어 연습을 하던 은퇴한 선생님, 우산을 빌려주고는 끝내 돌려받지 않은 가게 주인, 하룻밤 저를 일행으로 받아 준 대학생들. 여행 안내서에는 실리지 않는 만남이지만, 바로 그 때문에 다시 오고 싶어집니다.",
		},
		{
			"Getting around was easier than I expected. Public transport is cheap, clean and clearly signed, and most stations have maps in English. I bought a rechargeable transit card on the first day and used it for trains, buses and even convenience stores. When in doubt, locals were always happy to point me in the right direction.",
			"出行比我想象的容易得多。公共交通便宜、干净、标识清楚，大多数车站都有英文地图。第一天我就买了一张可充值的交通卡，坐地铁、坐公交，甚至在便利店都能用。遇到不明白的地方，本地人总是很乐意给我指路。",
			"交通比我想像的容易得多。大眾運輸便宜、乾淨、標示清楚，大多數車站都有英文地圖。第一天我就買了一張可儲值的交通卡，搭捷運、搭公車，甚至在便利商店都能用。遇到不清楚的地方，在地人總是很樂意幫我指路。",
			"移動は思っていたよりずっと簡単でした。公共交通機関は安くて清潔、案内表示も分かりやすく、ほとんどの駅に英語の地図があります。初日にチャージ式の交通カードを買い、電車やバス、さらにはコンビニでも使いました。迷ったときは、地元の人がいつも快く道を教えてくれました。",
			"이동은 생각보다 훨씬 쉬웠습니다. 대중교통은 저렴하고 깨끗하며 안내 표지도 명확하고, 대부분의 역에 영어 지도가 있습니다. 첫날 충전식 교통카드를 사서 지하철과 버스는 물론 편의점에서도 사용했어요. 헷갈릴 때면 현지인들이 언제나 기꺼이 길을 알려 주었습니다.",
		},
		{
			"I travelled with a local guide for one day of the trip, and it changed the way I saw everything afterwards. Small details that I would have walked past, a carved beam, a shop sign in an old script, the way people greet each other, suddenly had meaning. If you only book one tour, book it early in your stay.",
			"这趟旅行中我请了一天本地向导，之后我看待一切的方式都变了。那些我原本会视而不见的小细节——一根雕花的横梁、一块旧字体的招牌、人们打招呼的方式——突然都有了意义。如果你只打算报一个团，那就在行程一开始报吧。",
			"這趟旅程中我請了一天在地嚮導，之後我看待一切的方式都變了。那些我原本會視而不見的小細節——一根雕花的樑柱、一塊舊字體的招牌、人們打招呼的方式——突然都有了意義。如果你只打算參加一個導覽，那就排在行程一開始吧。",
			"旅の1日だけ地元ガイドにお願いしたのですが、それ以降、すべての見え方が変わりました。彫刻の施された梁、古い書体の看板、人々の挨拶の仕方など、素通りしていたはずの小さなディテールに、突然意味が生まれたのです。ツアーをひとつだけ予約するなら、滞在の早い段階にするのがおすすめです。",
			"여행 중 하루는 현지 가이드와 함께했는데, 그 뒤로 모든 것이 다르게 보이기 시작했습니다. 조각된 들보, 옛 글씨체의 간판, 사람들이 인사하는 방식처럼 그냥 지나쳤을 작은 디테일들이 갑자기 의미를 갖게 되었죠. 투어를 딱 하나만 예약한다면 여행 초반에 하세요.",
		},
		{
			"The weather kept me on my toes. Mornings were crisp and clear, afternoons brought sudden showers, and evenings were warm enough to sit outside until late. I learned to carry a light jacket, a folding umbrella and a flexible attitude, and all three came in handy.",
			"天气让我时刻保持警觉。早晨清爽晴朗，午后常有阵雨，晚上又暖和得可以在户外坐到很晚。我学会了随身带一件薄外套、一把折叠伞和一颗随遇而安的心，这三样东西都派上了用场。",
			"天氣讓我時時保持警覺。早晨清爽晴朗，午後常有陣雨，晚上又暖和得可以在戶外坐到很晚。我學會隨身帶一件薄外套、一把折疊傘和一顆隨遇而安的心，這三樣東西都派上了用場。",
			"天気には振り回されました。朝はすがすがしく晴れ、午後には急なにわか雨、夜は遅くまで外にいられるほど暖かい。薄手の上着と折りたたみ傘、そして柔軟な心構えを持ち歩くことを覚えましたが、3つとも大活躍でした。",
			"날씨 때문에 늘 긴장해야 했습니다. 아침은 상쾌하고 맑았고, 오후에는 갑자기 소나기가 내렸으며, 저녁은 늦게까지 밖에 앉아 있을 수 있을 만큼 따뜻했어요. 얇은 겉옷과 접이식 우산, 그리고 유연한 마음가짐을 챙기는 법을 배웠는데, 세 가지 모두 요긴하게 쓰였습니다.",
		},
		{
			"One evening I climbed to a viewpoint above {city} just as the lights came on. Below me the streets I had walked all week looked like a map drawn in gold, and I finally understood how the neighbourhoods fit together. It is the kind of view that makes you start planning your next visit before the current one is over.",
			"一天傍晚，我赶在华灯初上时爬到{city}的一处观景台。脚下这一周走过的街道就像一张用金线画成的地图，我终于明白了各个街区是如何连在一起的。这样的景色会让你在旅行还没结束时，就开始计划下一次的到访。",
			"某天傍晚，我趕在華燈初上時爬到{city}的一處觀景台。腳下這一週走過的街道就像一張用金線畫成的地圖，我終於明白各個街區是怎麼連在一起的。這樣的景色會讓你在旅程還沒結束時，就開始計畫下一次的造訪。",
			"ある夕方、街の明かりが灯る頃に{city}を見下ろす展望スポットへ登りました。一週間歩き回った通りが金色で描かれた地図のように眼下に広がり、ようやく各エリアのつながりが分かりました。旅が終わる前から次の計画を立てたくなる、そんな景色です。",
			"어느 저녁, 불이 하나둘 켜질 무렵 {city} 시내가 내려다보이는 전망대에 올랐습니다. 일주일 내내 걸었던 거리들이 금빛으로 그린 지도처럼 발아래 펼쳐졌고, 그제야 동네들이 어떻게 이어져 있는지 알 수 있었어요. 여행이 끝나기도 전에 다음 여행을 계획하게 만드는 그런 풍경입니다.",
		},
	}

	practicalHeadings = []tr{
		{"Practical Tips", "实用贴士", "實用小提醒", "旅の実用メモ", "여행 실전 팁"},
		{"Before You Go", "出发之前", "出發之前", "出発前に", "떠나기 전에"},
		{"If You Go", "如果你也想去", "如果你也想去", "行くならこんなふうに", "가 보실 분들을 위해"},
	}

	practicalParagraphs = []tr{
		{
			"The best seasons to visit {city} are spring and autumn, when the weather is mild and the light is soft. Summer is hot and humid, and winter can be surprisingly cold, but both have their own charm and far fewer visitors.",
			"游览{city}的最佳季节是春秋两季，天气温和，光线柔美。夏天炎热潮湿，冬天可能冷得出乎意料，但两个季节各有魅力，游客也少得多。",
			"造訪{city}的最佳季節是春秋兩季，天氣溫和，光線柔美。夏天炎熱潮濕，冬天可能冷得出乎意料，但兩個季節各有魅力，遊客也少得多。",
			"{city}を訪れるなら、気候が穏やかで光のやわらかい春と秋がベストシーズンです。夏は蒸し暑く、冬は意外なほど冷え込むこともありますが、どちらにもそれぞれの魅力があり、観光客もぐっと少なくなります。",
			"{city} 여행의 최적기는 날씨가 온화하고 빛이 부드러운 봄과 가을입니다. 여름은 덥고 습하며 겨울은 생각보다 추울 수 있지만, 두 계절 모두 나름의 매력이 있고 관광객도 훨씬 적습니다.",
		},
		{
			"Plan less than you think you need. Distances look short on the map, but you will want to stop constantly, and the best moments usually happen between the sights. I kept each day to two main goals and left the rest open.",
			"计划要比你以为的少一些。地图上看距离很近，但你会忍不住频频驻足，而最美好的时刻往往发生在景点之间。我每天只定两个主要目标，其余时间都留白。",
			"行程要排得比你以為的少一些。地圖上看距離很近，但你會忍不住頻頻停下腳步，而最美好的時刻往往發生在景點之間。我每天只定兩個主要目標，其餘時間都留白。",
			"予定は必要だと思う量より少なめに。地図上では近く見えても、何度も立ち止まりたくなりますし、最高の瞬間はたいてい観光地と観光地の間で起こります。私は一日の目標を2つに絞り、あとは自由にしていました。",
			"일정은 필요하다고 생각하는 것보다 적게 잡으세요. 지도에서는 가까워 보여도 자꾸 멈춰 서게 되고, 최고의 순간은 대개 명소와 명소 사이에서 찾아옵니다. 저는 하루 목표를 두 가지로만 정하고 나머지는 비워 두었어요.",
		},
		{
			"A little preparation goes a long way. Learn to say hello and thank you in the local language, download an offline map, and carry some cash for small stalls. People notice the effort, and it opens doors that would otherwise stay closed.",
			"稍做准备就能事半功倍。学会用当地语言说“你好”和“谢谢”，下载离线地图，再带些现金以备小摊使用。人们会注意到你的用心，这能为你打开许多原本不会打开的门。",
			"稍微準備就能事半功倍。學會用當地語言說「你好」和「謝謝」，下載離線地圖，再帶些現金以備小攤使用。人們會注意到你的用心，這能為你打開許多原本不會打開的門。",
			"ちょっとした準備が大きな違いを生みます。現地の言葉で「こんにちは」と「ありがとう」を覚え、オフライン地図をダウンロードし、屋台用に少し現金を持っておきましょう。その努力は相手にも伝わり、閉ざされていたはずの扉を開いてくれます。",
			"작은 준비가 큰 차이를 만듭니다. 현지어로 '안녕하세요'와 '감사합니다'를 익히고, 오프라인 지도를 내려받고, 작은 노점을 위해 현금을 조금 챙기세요. 사람들은 그 노력을 알아보고, 그렇지 않았다면 닫혀 있었을 문을 열어 줍니다.",
		},
	}

	travelTips = []tr{
		{"Arrive at {place} before 9 am to beat the crowds.", "早上九点前到{place}，避开人潮。", "早上九點前抵達{place}，避開人潮。", "混雑を避けるなら{place}には朝9時前に。", "붐비는 시간을 피하려면 {place}에 오전 9시 전에 도착하세요."},
		{"Carry cash: many small stalls do not take cards.", "带些现金：很多小摊不收银行卡。", "帶點現金：很多小攤不收信用卡。", "現金を持ち歩くこと。小さな屋台ではカードが使えないことが多いです。", "현금을 챙기세요. 작은 노점은 카드를 받지 않는 곳이 많습니다."},
		{"Try {dish} at least once, ideally somewhere with a queue.", "至少尝一次{dish}，最好找排队的店。", "至少吃一次{dish}，最好找有排隊的店。", "{dish}は一度は食べるべき。できれば行列のできる店で。", "{dish} 한 번은 꼭 드셔 보세요. 가능하면 줄 서는 가게에서요."},
		{"Book a local guide on your first day, not your last.", "在第一天而不是最后一天请本地向导。", "在第一天而不是最後一天預約在地嚮導。", "地元ガイドは最終日ではなく初日に予約を。", "현지 가이드는 마지막 날이 아니라 첫날에 예약하세요."},
		{"Keep half a day free for {near}.", "留出半天时间去{near}。", "留半天時間給{near}。", "{near}のために半日空けておきましょう。", "{near}에 갈 반나절은 비워 두세요."},
		{"Wear comfortable shoes; you will walk more than you expect.", "穿一双舒服的鞋，你走的路会比预想的多。", "穿一雙好走的鞋，你走的路會比預想的多。", "歩きやすい靴で。想像以上に歩きます。", "편한 신발을 신으세요. 생각보다 많이 걷게 됩니다."},
		{"Download an offline map and a translation app before you arrive.", "出发前下载好离线地图和翻译软件。", "出發前先下載好離線地圖和翻譯App。", "到着前にオフライン地図と翻訳アプリをダウンロード。", "도착 전에 오프라인 지도와 번역 앱을 내려받으세요."},
		{"Say yes when a local invites you to try something new.", "当本地人邀请你尝试新事物时，说“好”。", "當在地人邀你嘗試新事物時，說「好」。", "地元の人に何かを勧められたら、ぜひ試してみて。", "현지인이 새로운 것을 권하면 '예스'라고 답하세요."},
	}

	travelQuotes = []tr{
		{"“You cannot see this city from a bus window. You have to walk it, eat it and get a little lost in it.” — my guide, on the first morning", "“从大巴车窗里是看不懂这座城市的。你得用脚去走，用嘴去尝，还得在里面迷一点路。”——我的向导，第一天早上", "「從遊覽車窗裡是看不懂這座城市的。你得用腳去走、用嘴去嚐，還得在裡面迷一點路。」——我的嚮導，第一天早上", "「この街はバスの窓からは見えない。歩いて、食べて、少し迷子にならないとね」——初日の朝、ガイドさんの言葉", "“이 도시는 버스 창밖으로는 보이지 않아요. 걷고, 먹고, 조금은 길을 잃어 봐야 해요.” — 첫날 아침, 가이드의 말"},
		{"“Slow down. The best things here are small.” — a shop owner near {place}", "“慢一点。这里最好的东西都很小。”——{place}附近的一位店主", "「慢一點。這裡最好的東西都很小。」——{place}附近的一位店老闆", "「ゆっくりね。ここのいいものは、みんな小さいんだから」——{place}近くのお店のご主人", "“천천히 가세요. 여기서 좋은 건 다 작은 것들이에요.” — {place} 근처 가게 주인"},
		{"“Everyone has an opinion about {dish}. Ask three people and you will get four answers.” — a taxi driver", "“关于{dish}，每个人都有自己的看法。问三个人，你会得到四个答案。”——一位出租车司机", "「關於{dish}，每個人都有自己的看法。問三個人，你會得到四個答案。」——一位計程車司機", "「{dish}については誰もが一家言ある。3人に聞けば4つの答えが返ってくるよ」——タクシーの運転手さん", "“{dish}에 대해서는 누구나 한마디씩 해요. 세 명한테 물으면 네 가지 답이 나오죠.” — 택시 기사님"},
		{"“Come back in another season. It will be a different place.” — the owner of my guesthouse", "“换个季节再来吧，到时候这里会是另一个地方。”——民宿老板", "「換個季節再來吧，到時候這裡會是另一個地方。」——民宿老闆", "「別の季節にまたおいで。まるで違う場所になっているから」——宿のご主人", "“다른 계절에 또 오세요. 완전히 다른 곳이 되어 있을 거예요.” — 게스트하우스 주인"},
	}

	closingParagraphs = []tr{
		{
			"I left {city} with a full camera roll, a heavier suitcase and a long list of places I did not have time for. That list is the best excuse I have to come back soon.",
			"离开{city}时，我的相册塞满了照片，行李箱重了许多，还多了一长串没来得及去的地方。这份清单，是我很快再回来的最好理由。",
			"離開{city}時，我的相簿塞滿了照片，行李箱重了許多，還多了一長串來不及去的地方。這份清單，是我很快再回來的最好理由。",
			"{city}を発つとき、カメラロールは写真でいっぱい、スーツケースは重くなり、時間が足りずに行けなかった場所の長いリストが残りました。そのリストこそ、すぐにまた戻ってくるための最高の口実です。",
			"{city} 여행을 마칠 때 제 사진첩은 가득 찼고, 캐리어는 무거워졌으며, 시간이 없어 못 간 곳들의 긴 목록이 남았습니다. 그 목록이야말로 곧 다시 올 최고의 핑계예요.",
		},
		{
			"If you have been to {city}, I would love to hear what you discovered. And if you have not, go. Go slowly, go curious, and go hungry.",
			"如果你去过{city}，很想听听你发现了什么。如果还没去过，那就出发吧：慢慢走，带着好奇心，也带着好胃口。",
			"如果你去過{city}，很想聽聽你發現了什麼。如果還沒去過，那就出發吧：慢慢走，帶著好奇心，也帶著好胃口。",
			"{city}に行ったことがある方は、どんな発見があったかぜひ教えてください。まだの方は、ぜひ行ってみてください。ゆっくりと、好奇心を持って、お腹を空かせて。",
			"{city}에 다녀온 분이라면 어떤 것을 발견했는지 꼭 듣고 싶어요. 아직이라면 떠나 보세요. 천천히, 호기심을 품고, 배를 비운 채로요.",
		},
		{
			"Every trip changes you a little. This one taught me to slow down, to ask more questions and to trust strangers a bit more. I am already planning my return to {city}.",
			"每一次旅行都会让人改变一点。这一次让我学会了放慢脚步、多问问题，也更愿意相信陌生人。我已经在计划重返{city}了。",
			"每一趟旅行都會讓人改變一點。這一次讓我學會放慢腳步、多問問題，也更願意相信陌生人。我已經在計畫重返{city}了。",
			"旅はいつも人を少しずつ変えてくれます。今回の旅で、ゆっくり歩くこと、もっと質問すること、そして見知らぬ人をもう少し信じることを学びました。もう{city}再訪の計画を立て始めています。",
			"모든 여행은 우리를 조금씩 바꿉니다. 이번 여행은 천천히 걷는 법, 더 많이 묻는 법, 그리고 낯선 사람을 조금 더 믿는 법을 가르쳐 주었어요. 벌써 {city} 재방문을 계획하고 있습니다.",
		},
	}

	imageAlts = []tr{
		{"A quiet morning at {place}", "清晨宁静的{place}", "清晨寧靜的{place}", "静かな朝の{place}", "고요한 아침의 {place}"},
		{"Street scene near {place2}", "{place2}附近的街景", "{place2}附近的街景", "{place2}近くの街角", "{place2} 근처의 거리 풍경"},
	}
)
