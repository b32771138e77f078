-- +goose Up
-- What one unit of each currency is worth in US dollars, so that packages
-- priced in CNY, HKD, JPY, KRW and TWD sort by a comparable price
-- (sort=basePrice). The server replaces the rows at every start from
-- CURRENCY_RATES.
CREATE TABLE currency_rates (
    currency TEXT PRIMARY KEY,
    usd_rate REAL NOT NULL CHECK (usd_rate > 0)
);

-- +goose Down
DROP TABLE currency_rates;
