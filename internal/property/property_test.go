package property

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wayfarer-asia/platform/internal/platform/apperr"
)

func TestParseDate(t *testing.T) {
	for _, s := range []string{"2026-12-10", "2000-01-01", "2100-12-31", "2028-02-29"} {
		if d, err := ParseDate(s); err != nil || d.String() != s {
			t.Errorf("ParseDate(%q) = %v, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "2026-2-01", "2026-02-1", "2026-02-30", "2027-02-29", "1999-12-31", "2101-01-01", "2026-12-10T00:00:00Z", "10/12/2026", " 2026-12-10"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) accepted", s)
		}
	}
	d := NewDate(2026, 12, 30)
	if d.AddDays(3).String() != "2027-01-02" || d.DaysUntil(NewDate(2027, 3, 1)) != 61 || !d.Before(d.AddDays(1)) {
		t.Error("date arithmetic")
	}
	var back struct{ D Date }
	b, _ := json.Marshal(struct{ D Date }{d})
	if string(b) != `{"D":"2026-12-30"}` || json.Unmarshal(b, &back) != nil || back.D != d {
		t.Errorf("JSON round trip: %s %v", b, back.D)
	}
	if json.Unmarshal([]byte(`{"D":"2026-12-3"}`), &back) == nil {
		t.Error("UnmarshalJSON accepted a loose date")
	}
	for _, src := range []any{"2026-12-30", []byte("2026-12-30"), time.Date(2026, 12, 30, 0, 0, 0, 0, time.UTC)} {
		var got Date
		if err := got.Scan(src); err != nil || got != d {
			t.Errorf("Scan(%T) = %v, %v", src, got, err)
		}
	}
	if LocalToday(time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), "Asia/Tokyo") != NewDate(2026, 11, 23) ||
		LocalToday(time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC), "Asia/Bangkok") != NewDate(2026, 11, 22) {
		t.Error("LocalToday")
	}
}

func TestMoney(t *testing.T) {
	got := map[string]any{
		"JPY decimals": Decimals("JPY"), "KRW decimals": Decimals("KRW"), "SGD decimals": Decimals("SGD"), "CNY decimals": Decimals("CNY"),
		"THB minor per major": MinorPerMajor("THB"),
	}
	want := map[string]any{"JPY decimals": 0, "KRW decimals": 0, "SGD decimals": 2, "CNY decimals": 2, "THB minor per major": int64(100)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decimals (-want +got):\n%s", diff)
	}
	if got := (Money{Amount: 12345, Currency: "SGD"}).Percent(50); got.Amount != 6173 {
		t.Errorf("50%% of 123.45 = %d, want 6173 (half up)", got.Amount)
	}
}

func TestCancellationFees(t *testing.T) {
	checkIn, _ := CheckInInstant(NewDate(2026, 12, 10), "15:00", "Asia/Tokyo")
	if !checkIn.Equal(time.Date(2026, 12, 10, 6, 0, 0, 0, time.UTC)) {
		t.Fatalf("check-in instant %v", checkIn)
	}
	nightly := []NightlyPrice{{Price: Money{Amount: 18000, Currency: "JPY"}}, {Price: Money{Amount: 20000, Currency: "JPY"}}}
	total := Money{Amount: 38000, Currency: "JPY"}
	for _, c := range []struct {
		policy string
		before time.Duration // cancel this long before check-in
		fee    int64
	}{
		{PolicyFlexible, 25 * time.Hour, 0},
		{PolicyFlexible, 23 * time.Hour, 18000},
		{PolicyModerate, 121 * time.Hour, 0},
		{PolicyModerate, 119 * time.Hour, 19000},
		{PolicyModerate, -time.Hour, 38000},
		{PolicyStrict, 15 * 24 * time.Hour, 0},
		{PolicyStrict, 10 * 24 * time.Hour, 19000},
		{PolicyStrict, 6 * 24 * time.Hour, 38000},
		{PolicyNonRefundable, 90 * 24 * time.Hour, 38000},
	} {
		p, ok := Policy(c.policy)
		if !ok {
			t.Fatal(c.policy)
		}
		if got := p.Fee(checkIn.Add(-c.before), checkIn, nightly, total); got.Amount != c.fee || got.Currency != "JPY" {
			t.Errorf("%s %v before: fee %d, want %d", c.policy, c.before, got.Amount, c.fee)
		}
	}
	if p, _ := Policy(PolicyNonRefundable); p.FreeCancellationUntil(checkIn) != nil {
		t.Error("non-refundable has a free window")
	}
	if p, _ := Policy(PolicyStrict); !p.FreeCancellationUntil(checkIn).Equal(checkIn.Add(-336 * time.Hour)) {
		t.Error("strict free window")
	}
}

func TestCheckStay(t *testing.T) {
	rt := RoomType{Name: "Twin", MaxGuests: 2}
	d := NewDate(2026, 12, 10)
	cal := func(mod func(map[Date]CalendarNight)) map[Date]CalendarNight {
		m := map[Date]CalendarNight{}
		for i := range 5 {
			m[d.AddDays(i)] = CalendarNight{Date: d.AddDays(i), Price: 100, MinStay: 1, Available: 1}
		}
		if mod != nil {
			mod(m)
		}
		return m
	}
	set := func(i int, f func(*CalendarNight)) func(map[Date]CalendarNight) {
		return func(m map[Date]CalendarNight) { n := m[d.AddDays(i)]; f(&n); m[d.AddDays(i)] = n }
	}
	reason := func(err error) string {
		if err == nil {
			return "ok"
		}
		var e *apperr.Error
		if ok := asErr(err, &e); !ok || e.Code != apperr.StayUnavailable {
			t.Fatalf("%v", err)
		}
		return e.Details["reason"].(string)
	}
	for _, c := range []struct {
		guests, nights int
		cal            map[Date]CalendarNight
		want           string
	}{
		{2, 3, cal(nil), "ok"},
		{3, 3, cal(nil), ReasonMaxGuests},
		{2, 3, cal(set(1, func(n *CalendarNight) { n.Closed = true })), ReasonClosed},
		{2, 3, cal(func(m map[Date]CalendarNight) { delete(m, d.AddDays(2)) }), ReasonClosed},
		{2, 3, cal(set(0, func(n *CalendarNight) { n.ClosedToArrival = true })), ReasonClosedToArrival},
		{2, 3, cal(set(1, func(n *CalendarNight) { n.ClosedToArrival = true })), "ok"},
		{2, 3, cal(set(3, func(n *CalendarNight) { n.ClosedToDeparture = true })), ReasonClosedToDeparture},
		{2, 3, cal(set(0, func(n *CalendarNight) { n.MinStay = 4 })), ReasonMinStay},
		{2, 3, cal(set(1, func(n *CalendarNight) { n.MinStay = 4 })), "ok"},
		{2, 3, cal(set(2, func(n *CalendarNight) { n.Available = 0 })), ReasonSoldOut},
		{2, 3, cal(set(3, func(n *CalendarNight) { n.Available = 0 })), "ok"},
	} {
		if got := reason(CheckStay(rt, c.guests, d, d.AddDays(c.nights), c.cal)); got != c.want {
			t.Errorf("%+v: %s, want %s", c, got, c.want)
		}
	}
	gotRejected := map[string]bool{
		"no nights":     CheckDates(d, d, d) != nil,
		"31 nights":     CheckDates(d, d.AddDays(31), d) != nil,
		"check-in past": CheckDates(d, d.AddDays(1), d.AddDays(1)) != nil,
		"30 nights":     CheckDates(d, d.AddDays(30), d) != nil,
	}
	wantRejected := map[string]bool{"no nights": true, "31 nights": true, "check-in past": true, "30 nights": false}
	if diff := cmp.Diff(wantRejected, gotRejected); diff != "" {
		t.Errorf("CheckDates rejected (-want +got):\n%s", diff)
	}
}

func asErr(err error, e **apperr.Error) bool {
	x, ok := err.(*apperr.Error)
	*e = x
	return ok
}

func TestUsage(t *testing.T) {
	u := NewUsage()
	at := time.Date(2026, 11, 22, 23, 59, 0, 0, time.UTC)
	u.Record("k", at, false)
	u.Record("k", at.Add(2*time.Minute), true)
	taken := u.Take()
	if len(taken) != 2 || taken[UsageKey{"k", NewDate(2026, 11, 23)}].RateLimited != 1 || len(u.Pending()) != 0 {
		t.Fatalf("take: %+v", taken)
	}
	u.Record("k", at, false)
	u.Restore(taken)
	if c := u.Pending()[UsageKey{"k", NewDate(2026, 11, 22)}]; c.Requests != 2 || !c.LastUsed.Equal(at) {
		t.Errorf("restore: %+v", c)
	}
}
