package config

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultCurrencyRates is CURRENCY_RATES when unset: approximate US-dollar
// values of the sample's currencies, good enough to sort by price.
const DefaultCurrencyRates = "CNY=0.14,HKD=0.128,JPY=0.0067,KRW=0.00072,TWD=0.031"

// currencyRates reads "CODE=usd,CODE=usd,…": a three-letter currency code
// and what one unit is worth in US dollars, a positive number.
func currencyRates(value string, errs *[]error) map[string]float64 {
	rates := map[string]float64{}
	for _, part := range strings.Split(value, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		code, v, ok := strings.Cut(part, "=")
		code = strings.ToUpper(strings.TrimSpace(code))
		rate, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || len(code) != 3 || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || err != nil || !(rate > 0) || rate > 1e6 {
			*errs = append(*errs, fmt.Errorf("CURRENCY_RATES: %q: want CODE=rate pairs such as JPY=0.0067 (US dollars per unit, positive), comma-separated", part))
			continue
		}
		rates[code] = rate
	}
	return rates
}
