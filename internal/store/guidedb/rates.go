package guidedb

import (
	"context"
	"database/sql"
	"sort"

	"github.com/wayfarer-asia/platform/internal/store"
)

// SetCurrencyRates replaces the exchange rates that sort=basePrice
// converts package prices with: rates maps a currency code to what one
// unit is worth in US dollars. Called at every start with CURRENCY_RATES.
func (g *Guide) SetCurrencyRates(ctx context.Context, rates map[string]float64) (err error) {
	defer store.Wrap(&err, "set currency rates")
	codes := make([]string, 0, len(rates))
	for c := range rates {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return g.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM currency_rates`); err != nil {
			return err
		}
		for _, c := range codes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO currency_rates (currency, usd_rate) VALUES ($1, $2)`, c, rates[c]); err != nil {
				return err
			}
		}
		return nil
	})
}
