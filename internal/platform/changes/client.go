package changes

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wayfarer-asia/platform/internal/platform/telemetry"
)

// Limits of one delivery.
const (
	Timeout      = 15 * time.Second // the whole exchange, connection included
	MaxBodyBytes = 64 << 10         // of the answer, read at most
	maxURLLength = 2048
)

// Policy tells which hosts may receive deliveries: any public address over
// https; AllowHosts (WEBHOOK_ALLOW_HOSTS: host names, IP addresses or
// prefixes such as 10.0.0.0/8) may also be private or loopback and may use
// plain http.
type Policy struct {
	AllowHosts []string
}

// allowed reports whether host (a name or a literal address, as written in
// the URL) is one of AllowHosts.
func (p Policy) allowed(host string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	if slices.Contains(p.AllowHosts, host) {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return p.allowedAddr(a)
	}
	return false
}

func (p Policy) allowedAddr(a netip.Addr) bool {
	a = a.Unmap()
	for _, h := range p.AllowHosts {
		if pf, err := netip.ParsePrefix(h); err == nil && pf.Contains(a) {
			return true
		}
		if b, err := netip.ParseAddr(h); err == nil && b.Unmap() == a {
			return true
		}
	}
	return false
}

// Public reports whether a is an address on the internet: not loopback,
// private, link-local (cloud metadata services live there), shared
// (100.64.0.0/10), multicast or unspecified. An IPv6 address that carries
// an IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible, -mapped or
// -translated) is public only when the IPv4 address it reaches is: such a
// gateway would otherwise carry a delivery to an internal IPv4 host.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsGlobalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	for _, v4 := range embeddedIPv4(a) {
		if !Public(v4) {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	// The local-use NAT64 prefix (RFC 8215) places the IPv4 address where
	// its operator chose; it reaches only that operator's network.
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Prefixes of IPv6 addresses that carry an IPv4 address.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052: in the last 32 bits
	sixToFour  = netip.MustParsePrefix("2002::/16")    // RFC 3056: in bits 16-47
	teredo     = netip.MustParsePrefix("2001::/32")    // RFC 4380: the client's, inverted, in the last 32 bits
	compatible = netip.MustParsePrefix("::/96")        // RFC 4291 IPv4-compatible (deprecated): in the last 32 bits
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// embeddedIPv4 returns the IPv4 addresses an IPv6 address a reaches
// through a translation or tunnel: none for a plain IPv6 address.
func embeddedIPv4(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	last := netip.AddrFrom4([4]byte(b[12:16]))
	switch {
	case nat64.Contains(a), compatible.Contains(a), translated.Contains(a):
		return []netip.Addr{last}
	case sixToFour.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte(b[2:6]))}
	case teredo.Contains(a):
		return []netip.Addr{netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})}
	}
	return nil
}

// CheckURL returns why raw cannot be an endpoint URL, or "" when it can:
// an absolute https URL without credentials (http only to AllowHosts),
// at most 2048 bytes, whose host, when an address, is public or allowed.
// The address a name resolves to is checked at each connection.
func (p Policy) CheckURL(raw string) string {
	if len(raw) > maxURLLength {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "must be an absolute URL such as https://example.com/webhooks"
	}
	if u.User != nil {
		return "must not carry a user name or password"
	}
	if u.Fragment != "" {
		return "must not have a fragment"
	}
	host := u.Hostname()
	switch u.Scheme {
	case "https":
	case "http":
		if !p.allowed(host) {
			return "must use https (plain http only to the hosts in WEBHOOK_ALLOW_HOSTS)"
		}
	default:
		return "must use https"
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !Public(a) && !p.allowed(host) {
		return "must not point at a loopback, private, link-local or metadata address"
	}
	return ""
}

// ErrBlocked reports a connection refused because the address it resolved
// to is not public.
var ErrBlocked = errors.New("webhook: address not allowed")

// Client sends deliveries under the policy: the address is checked when
// the connection is made (after the name resolved, so a name cannot point
// at an internal address), redirects are not followed, and the answer is
// read up to MaxBodyBytes within Timeout.
type Client struct {
	policy Policy
	http   *http.Client
}

// NewClient returns a client that applies p, with attempts bounded by
// Timeout.
func NewClient(p Policy) *Client { return NewClientTimeout(p, Timeout) }

// NewClientTimeout returns a client that applies p, with attempts bounded
// by timeout instead of Timeout.
func NewClientTimeout(p Policy, timeout time.Duration) *Client {
	c := &Client{policy: p}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us, past the checks
		DialContext:           c.dial,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	c.http = &http.Client{
		// Each delivery carries the traceparent of its attempt's span.
		Transport:     telemetry.Transport(transport),
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// dial connects to addr, refusing an address that is not public unless
// the host named in addr is allowed.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	hostAllowed := c.policy.allowed(host)
	d := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ip, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		a, err := netip.ParseAddr(ip)
		if err != nil {
			return err
		}
		if hostAllowed || Public(a) || c.policy.allowedAddr(a) {
			return nil
		}
		return ErrBlocked
	}}
	return d.DialContext(ctx, network, addr)
}

// Timeout is the bound of one attempt.
func (c *Client) Timeout() time.Duration { return c.http.Timeout }

// Response is what an endpoint answered.
type Response struct {
	Status     int
	RetryAfter string // the Retry-After header
	Latency    time.Duration
}

// Post sends body to url with the headers, and reads the answer. The
// Response is never nil: it has the latency even when err is not nil.
func (c *Client) Post(ctx context.Context, url string, header http.Header, body []byte) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return &Response{}, err
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "wayfarer-webhooks/1")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return &Response{Latency: time.Since(start)}, err
	}
	defer resp.Body.Close()
	// Read (a bounded part of) the answer so that the connection may be
	// reused; what it says does not matter.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBodyBytes))
	return &Response{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After"), Latency: time.Since(start)}, nil
}

// Fetch reads the JSON document at url under the same policy, up to limit
// bytes: an authorization server reads a client's metadata document this
// way, which is as much a request to a URL an outsider chose as a
// delivery is. Errors: ErrBlocked, the policy's reason, a longer answer.
func (c *Client) Fetch(ctx context.Context, url string, limit int64) (int, []byte, error) {
	if why := c.policy.CheckURL(url); why != "" {
		return 0, nil, errors.New(why)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "wayfarer-oauth/1")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, errors.New(Describe(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return 0, nil, errors.New(Describe(err))
	}
	if int64(len(body)) > limit {
		return 0, nil, fmt.Errorf("the answer is longer than %d bytes", limit)
	}
	return resp.StatusCode, body, nil
}

// Headers returns the Standard Webhooks headers of a delivery.
func Headers(secrets []string, id string, ts time.Time, body []byte) (http.Header, error) {
	sig, err := Sign(secrets, id, ts, body)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	return h, nil
}

// Describe says why an attempt got no answer, for the endpoint's owner to
// read: in general terms only, never the address a name resolved to nor
// the resolver the server asked, which would map the platform's network.
func Describe(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrBlocked):
		return "address not allowed"
	case errors.As(err, &dnsErr):
		if dnsErr.IsTimeout {
			return "name resolution timed out"
		}
		return "name did not resolve"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "no answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before an answer"
	case errors.As(err, &certErr):
		return "TLS certificate not valid for the host"
	case errors.As(err, new(tls.AlertError)), errors.As(err, new(tls.RecordHeaderError)):
		return "TLS handshake failed"
	}
	return "connection failed"
}
