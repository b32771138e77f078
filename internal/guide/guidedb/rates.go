package guidedb

import (
	"context"
	"database/sql"
	"sort"

	"github.com/wayfarer-asia/platform/internal/platform/store"
)

// SetCurrencyRates replaces the exchange rates that sort=price
// converts package prices with: rates maps a currency code to what one
// unit is worth in US dollars. Called at every start with CURRENCY_RATES.
func (g *Guide) SetCurrencyRates(ctx context.Context, rates map[string]float64) (err error) {
	defer store.Wrap(&err, "set currency rates")
	codes := make([]string, 0, len(rates))
	for c := range rates {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	// Only rates that change are written: each change reprices the
	// packages of its currency (usd_price, kept by triggers, migration
	// 00010), so a start with the same CURRENCY_RATES writes nothing.
	return g.db.InTx(ctx, func(tx *sql.Tx) error {
		args := make([]any, len(codes))
		for i, c := range codes {
			args[i] = c
		}
		remove := `DELETE FROM currency_rates`
		if len(codes) > 0 {
			remove += ` WHERE currency NOT IN (` + store.Placeholders(1, len(codes)) + `)`
		}
		if _, err := tx.ExecContext(ctx, remove, args...); err != nil {
			return err
		}
		for _, c := range codes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO currency_rates (currency, usd_rate) VALUES ($1, $2)
				ON CONFLICT (currency) DO UPDATE SET usd_rate = excluded.usd_rate WHERE currency_rates.usd_rate <> excluded.usd_rate`,
				c, rates[c]); err != nil {
				return err
			}
		}
		return nil
	})
}
