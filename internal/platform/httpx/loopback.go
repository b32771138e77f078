package httpx

import "net"

// Loopback tells whether host (a host name or address, without port or
// brackets) names this machine: localhost, 127.0.0.0/8 or ::1.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
