package config

import (
	"fmt"
	"net/url"
	"strings"
)

// origins reads a comma-separated list of origins, such as
// "https://app.example.com, http://localhost:3000", or "*" for any. Each
// is scheme://host[:port], without path, query or user.
func origins(name, value string, errs *[]error) []string {
	var out []string
	for _, o := range strings.Split(value, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			*errs = append(*errs, fmt.Errorf("%s: %q is not an origin; want a comma-separated list of scheme://host[:port] such as https://app.example.com, or *", name, o))
			continue
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return out
}
