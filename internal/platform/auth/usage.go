package auth

import (
	"sync"
	"time"
)

// KeyUsage remembers when each API key was last used, so that requests do
// not write to the database: a worker flushes it every few seconds.
type KeyUsage struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// NewKeyUsage returns an empty recorder.
func NewKeyUsage() *KeyUsage { return &KeyUsage{last: make(map[string]time.Time)} }

// Record notes that key id was used at t.
func (u *KeyUsage) Record(id string, t time.Time) {
	u.mu.Lock()
	if t.After(u.last[id]) {
		u.last[id] = t
	}
	u.mu.Unlock()
}

// Pending returns the not yet flushed use of key id.
func (u *KeyUsage) Pending(id string) (time.Time, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	t, ok := u.last[id]
	return t, ok
}

// Take returns the recorded uses and forgets them.
func (u *KeyUsage) Take() map[string]time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.last
	u.last = make(map[string]time.Time, len(out))
	return out
}
