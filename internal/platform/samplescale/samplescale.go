// Package samplescale makes the replicas of a scaled sample dataset
// (SAMPLE_SCALE=N): their ids and their seeded variations, the same for
// the same scale on every run.
package samplescale

import (
	"hash/fnv"
	"math/rand/v2"
)

// Seed is the seed of the replicas' variations.
const Seed = 0x5343414c45_2026

// ID returns replica c of the UUIDv7 id: it keeps the original's time
// (so ids stay time-ordered) and takes new random bits; replica 0 is the
// id itself.
func ID(id string, c int) string {
	if c == 0 {
		return id
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	h.Write([]byte{byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)})
	a := h.Sum64()
	h.Write([]byte{0xff})
	b := h.Sum64()
	const hex = "0123456789abcdef"
	out := []byte(id)
	// Keep "xxxxxxxx-xxxx-7" (the 48-bit time and the version); replace
	// the rest but the variant nibble.
	bits := [2]uint64{a, b}
	k := 0
	for i := 15; i < len(out); i++ {
		if out[i] == '-' || i == 19 {
			continue
		}
		out[i] = hex[bits[k/16]>>(4*(k%16))&0xf]
		k++
	}
	out[19] = hex[8|bits[1]&3]
	return string(out)
}

// Rand is the draw for replica c of the row with the id.
func Rand(id string, c int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	// #nosec G404 -- sample data must be deterministic: a fixed seed, not secrets.
	return rand.New(rand.NewPCG(Seed^h.Sum64(), uint64(c)))
}
