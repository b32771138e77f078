package sample

import (
	"strconv"
	"strings"
	"time"
)

// touristInfo is what the generator remembers about a traveller.
type touristInfo struct {
	id        string
	handle    string
	given     string // may be empty
	locale    string
	createdAt time.Time
}

// addStaff adds the demo admin and the demo traveller.
func (g *generator) addStaff() {
	admin := date(2024, 1, 2).Add(9 * time.Hour)
	g.addUser(User{
		Handle: g.uniqueHandle(DemoAdminHandle), Email: ptr(DemoAdminEmail), EmailVerified: true,
		Name: ptr("Demo Admin"), Role: RoleAdmin, Locale: "en", CreatedAt: admin, UpdatedAt: admin,
	})
	created := date(2024, 6, 1).Add(9*time.Hour + 30*time.Minute)
	u := g.addUser(User{
		Handle: g.uniqueHandle(DemoTravellerHandle), Email: ptr(DemoTravellerEmail), EmailVerified: true,
		Name: ptr("Demo Traveller"), Nickname: ptr("Demo"),
		Avatar: ptr(avatarPath(DemoTravellerHandle)),
		Role:   RoleTourist, Locale: "en", CreatedAt: created, UpdatedAt: created.Add(3 * day),
	})
	g.demoTraveller = &touristInfo{id: u.ID, handle: u.Handle, given: "Demo", locale: "en", createdAt: created}
}

// addUser appends u with a new id and its normalised e-mail, and returns a
// copy of the stored row.
func (g *generator) addUser(u User) User {
	u.ID = g.newID(u.CreatedAt)
	if u.Email != nil {
		u.EmailNormalized = ptr(strings.ToLower(*u.Email))
	}
	g.ds.Users = append(g.ds.Users, u)
	return u
}

func avatarPath(handle string) string { return "/media/sample/avatars/" + handle + ".jpg" }

// Tourists.

// nameGroup is a pool of traveller names that share a locale. Names are
// written as the travellers would write them: given name first for western
// names, family name first for Chinese, Japanese and Korean ones.
type nameGroup struct {
	locale      string
	weight      int
	familyFirst bool
	given       []string
	family      []string
}

var touristNames = []nameGroup{
	{"en", 38, false,
		[]string{"Emma", "Oliver", "Sophie", "James", "Charlotte", "Liam", "Amelia", "Noah", "Isla", "Lucas", "Mia", "Ethan", "Grace", "Daniel", "Chloe", "Samuel", "Hannah", "Jack", "Olivia", "Benjamin", "Zoe", "Thomas", "Ella", "Henry", "Ruby", "Matthew", "Ava", "William"},
		[]string{"Walker", "Thompson", "Harris", "Clarke", "Bennett", "Murphy", "Robinson", "Hughes", "Foster", "Mitchell", "Campbell", "Reed", "Hall", "Turner", "Price", "Morgan", "Cooper", "Ward", "Brooks", "Kelly", "O'Connor", "Nguyen"}},
	{"en", 6, false,
		[]string{"Lukas", "Anna", "Felix", "Lena", "Jonas", "Marie", "Paul", "Laura"},
		[]string{"Müller", "Schmidt", "Weber", "Fischer", "Becker", "Hoffmann", "Wagner"}},
	{"en", 6, false,
		[]string{"Camille", "Louis", "Chloé", "Hugo", "Léa", "Jules", "Manon", "Théo"},
		[]string{"Martin", "Bernard", "Dubois", "Lefèvre", "Moreau", "Laurent", "Girard"}},
	{"en", 6, false,
		[]string{"Lucía", "Pablo", "Sofía", "Diego", "Carmen", "Javier", "Elena", "Mateo"},
		[]string{"García", "Fernández", "López", "Martínez", "Sánchez", "Romero", "Navarro"}},
	{"en", 10, false,
		[]string{"Priya", "Arjun", "Ananya", "Rohan", "Marcus", "Siti", "Nattapong", "Kanya", "Gabriel", "Beatriz", "Aisha", "Omar"},
		[]string{"Sharma", "Patel", "Iyer", "Mehta", "Tan", "Rahman", "Srisuk", "Chaiyaporn", "Souza", "Costa", "Haddad", "Lim"}},
	{"zh", 12, true,
		[]string{"Yu", "Hao", "Xin", "Jie", "Ting", "Lei", "Yan", "Fang", "Qiang", "Yue", "Rui", "Shan"},
		[]string{"Zhang", "Li", "Wang", "Liu", "Chen", "Yang", "Zhao", "Huang", "Zhou", "Wu"}},
	{"ja", 8, true,
		[]string{"Yuki", "Kaito", "Mei", "Riku", "Saki", "Hiroshi", "Ayaka", "Takeshi", "Nanami", "Shota"},
		[]string{"Yamada", "Sasaki", "Matsumoto", "Inoue", "Kimura", "Hayashi", "Shimizu", "Yamaguchi", "Ikeda", "Ogawa"}},
	{"ko", 8, true,
		[]string{"Ji-ho", "Su-bin", "Hyun-woo", "Ye-jin", "Dong-hyun", "Seo-hyun", "Jae-min", "Min-seo"},
		[]string{"Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Yoon", "Han", "Seo"}},
	{"zh-TW", 5, true,
		[]string{"Yu-chen", "Chia-hao", "Hsin-yi", "Po-wei", "Yi-hsuan", "Kuan-ting", "Shu-fen", "Tzu-han"},
		[]string{"Chen", "Lin", "Huang", "Chang", "Wang", "Wu", "Tsai", "Yang"}},
}

// touristBios are short profile bios some English-speaking travellers
// wrote.
var touristBios = []string{
	"Coffee lover and slow traveller.",
	"Always hunting for the best noodles in town.",
	"Photographer on weekends, accountant on weekdays.",
	"Travelling Asia one city at a time with my partner.",
	"Retired teacher, finally seeing the places I taught about.",
	"Family of four, two of them under ten.",
}

const touristCount = 150

// addTourists adds the travellers.
func (g *generator) addTourists() {
	weights := make([]int, len(touristNames))
	for i, grp := range touristNames {
		weights[i] = grp.weight
	}
	for range touristCount {
		grp := touristNames[g.pickIndex(weights)]
		given, family := pick(g, grp.given), pick(g, grp.family)
		name := given + " " + family
		if grp.familyFirst {
			name = family + " " + given
		}
		var namePtr *string
		base := slugify(name)
		if g.chance(0.06) {
			given, base = "", "traveller-"+strconv.Itoa(g.between(1000, 9999))
		} else {
			namePtr = ptr(name)
			if g.chance(0.3) {
				base += "-" + strconv.Itoa(g.between(10, 99))
			}
		}
		handle := g.uniqueHandle(base)
		created := g.timeBetween(date(2024, 1, 10), date(2026, 9, 30))
		u := User{
			Handle: handle, Email: ptr(handle + "@travellers.example.com"), EmailVerified: g.chance(0.9),
			Name: namePtr, Role: RoleTourist, Locale: grp.locale,
			CreatedAt: created, UpdatedAt: g.timeBetween(created, minTime(created.Add(200*day), Horizon.Add(-day))),
		}
		if given != "" && g.chance(0.3) {
			u.Nickname = ptr(given)
		}
		if g.chance(0.55) {
			u.Avatar = ptr(avatarPath(handle))
		}
		if grp.locale == "en" && g.chance(0.25) {
			u.Bio = ptr(pick(g, touristBios))
		}
		u = g.addUser(u)
		g.tourists = append(g.tourists, &touristInfo{id: u.ID, handle: handle, given: given, locale: grp.locale, createdAt: created})
	}
}

// touristCreatedBefore picks a traveller who had an account before t,
// avoiding those for whom skip is true when it can; nil when nobody had.
func (g *generator) touristCreatedBefore(t time.Time, skip func(*touristInfo) bool) *touristInfo {
	var ok, fallback []*touristInfo
	for _, tu := range g.tourists {
		if tu.createdAt.Before(t) {
			fallback = append(fallback, tu)
			if skip == nil || !skip(tu) {
				ok = append(ok, tu)
			}
		}
	}
	switch {
	case len(ok) > 0:
		return pick(g, ok)
	case len(fallback) > 0:
		return pick(g, fallback)
	}
	return nil
}
