package httpx

import "net/http"

// Home answers GET / with a redirect to the page people start from (the
// API reference, the developer portal), instead of a JSON 404: the root of
// an API's address is what a person types into a browser first. 302, not
// 301, so that no browser keeps it for good.
func Home(page string) http.Handler {
	return http.RedirectHandler(page, http.StatusFound)
}
