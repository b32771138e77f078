package guidedb_test

import (
	"testing"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/guide/guidedb"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/paging"
	"github.com/wayfarer-asia/platform/internal/platform/store/storetest"
)

// TestPackagesSortByConvertedPrice: sort=price compares prices in one
// currency, so a ¥9,000 tour sorts below a HK$1,000 one, while
// sort=basePrice orders by the number as answered.
func TestPackagesSortByConvertedPrice(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := t.Context()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			g := guidedb.New(db, clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)))
			rates := map[string]float64{"CNY": 0.14, "HKD": 0.128, "JPY": 0.0067, "KRW": 0.00072, "TWD": 0.031}
			if err := g.SetCurrencyRates(ctx, map[string]float64{"JPY": 1}); err != nil {
				t.Fatal(err)
			}
			if err := g.SetCurrencyRates(ctx, rates); err != nil { // replaces, not adds
				t.Fatal(err)
			}
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM currency_rates WHERE currency = 'JPY' AND usd_rate < 1`).Scan(&n); err != nil || n != 1 {
				t.Fatalf("JPY rate rows: %d %v", n, err)
			}
			for _, order := range []string{"asc", "desc"} {
				raw, _, err := g.FindPackages(ctx, guide.PackageFilter{Sort: "basePrice", Locale: "en", Page: paging.Page{Page: 1, PageSize: 100, Order: order}})
				if err != nil {
					t.Fatal(err)
				}
				for i := 1; i < len(raw); i++ {
					if a, b := raw[i-1].BasePrice, raw[i].BasePrice; (order == "asc" && a > b) || (order == "desc" && a < b) {
						t.Fatalf("sort=basePrice %s: %v %s before %v %s", order, a, raw[i-1].Currency, b, raw[i].Currency)
					}
				}
				pkgs, total, err := g.FindPackages(ctx, guide.PackageFilter{Sort: "price", Locale: "en", Page: paging.Page{Page: 1, PageSize: 100, Order: order}})
				if err != nil || total == 0 {
					t.Fatal(total, err)
				}
				currencies := map[string]bool{}
				for i := 1; i < len(pkgs); i++ {
					a, b := pkgs[i-1].BasePrice*rates[pkgs[i-1].Currency], pkgs[i].BasePrice*rates[pkgs[i].Currency]
					if (order == "asc" && a > b+1e-9) || (order == "desc" && a < b-1e-9) {
						t.Fatalf("%s: %v %s (%.2f USD) before %v %s (%.2f USD)", order, pkgs[i-1].BasePrice, pkgs[i-1].Currency, a, pkgs[i].BasePrice, pkgs[i].Currency, b)
					}
					currencies[pkgs[i].Currency] = true
				}
				if len(currencies) < 3 {
					t.Fatalf("the test proves nothing: currencies %v", currencies)
				}
			}
		})
	}
}

// TestUSDPriceFollowsWrites: the converted price that sort=price walks
// (usd_price, kept by triggers) follows rate changes, removed rates and
// package price and currency changes, on both engines.
func TestUSDPriceFollowsWrites(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := t.Context()
			db := storetest.MustOpenSample(t, engine, guidedb.Schema, loadSample)
			g := guidedb.New(db, clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)))
			check := func(step string, rates map[string]float64) {
				t.Helper()
				rows, err := db.QueryContext(ctx, `SELECT id, base_price, currency, usd_price FROM packages`)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				n := 0
				for rows.Next() {
					var id, currency string
					var price, usd float64
					if err := rows.Scan(&id, &price, &currency, &usd); err != nil {
						t.Fatal(err)
					}
					rate, ok := rates[currency]
					if !ok {
						rate = 1
					}
					if want := price * rate; usd < want-1e-6 || usd > want+1e-6 {
						t.Fatalf("%s: package %s, %v %s: usd_price %v, want %v", step, id, price, currency, usd, want)
					}
					n++
				}
				if err := rows.Err(); err != nil || n == 0 {
					t.Fatalf("%s: %d packages, %v", step, n, err)
				}
			}
			check("no rates", nil)
			rates := map[string]float64{"CNY": 0.14, "HKD": 0.128, "JPY": 0.0067}
			if err := g.SetCurrencyRates(ctx, rates); err != nil {
				t.Fatal(err)
			}
			check("rates set", rates)
			rates = map[string]float64{"CNY": 0.15, "JPY": 0.0067}
			if err := g.SetCurrencyRates(ctx, rates); err != nil { // CNY changed, HKD removed
				t.Fatal(err)
			}
			check("rates changed", rates)
			if _, err := db.ExecContext(ctx, `UPDATE packages SET base_price = base_price + 100, currency = 'JPY'
				WHERE id IN (SELECT id FROM packages WHERE currency <> 'JPY' ORDER BY id LIMIT 3)`); err != nil {
				t.Fatal(err)
			}
			check("packages repriced", rates)
		})
	}
}
