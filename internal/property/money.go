package property

// Money is an amount in the minor units of its currency: yen for JPY,
// cents for USD, fen for CNY.
type Money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Currencies are the currencies properties price in, by country.
var Currencies = map[string]string{
	"CN": "CNY", "JP": "JPY", "KR": "KRW", "TW": "TWD", "HK": "HKD", "TH": "THB",
	"VN": "VND", "SG": "SGD", "MY": "MYR", "ID": "IDR", "PH": "PHP",
}

// zeroDecimal are the currencies without minor units (ISO 4217 exponent
// 0) among those the platform uses.
var zeroDecimal = map[string]bool{"JPY": true, "KRW": true, "VND": true}

// Decimals returns the number of decimal places of the currency's minor
// unit: 0 for JPY, KRW and VND, 2 for the others.
func Decimals(currency string) int {
	if zeroDecimal[currency] {
		return 0
	}
	return 2
}

// MinorPerMajor returns how many minor units make one major unit: 1 for
// JPY, 100 for USD.
func MinorPerMajor(currency string) int64 {
	if zeroDecimal[currency] {
		return 1
	}
	return 100
}

// Percent returns p percent of m, rounded half up to a whole minor unit.
func (m Money) Percent(p int) Money {
	return Money{Amount: (m.Amount*int64(p) + 50) / 100, Currency: m.Currency}
}
