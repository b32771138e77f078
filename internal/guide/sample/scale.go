package sample

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/samplescale"
)

// A scaled sample (SAMPLE_SCALE=N) is the dataset plus N-1 replicas of its
// public catalogue: users, experts with their translations, languages and
// specialties, packages with their translations, and travelogues with
// theirs. A replica keeps the original's city, country, languages,
// specialties, category and locale coverage, so the distributions of the
// filters stay those of the hand-made sample, and varies what a sort
// reads (rating, review count, prices, durations, scores, creation
// times) by a draw seeded from samplescale.Seed, the copy and the row's id.
// Bookings, reviews, conversations and messages are not replicated: a
// replica's reviews list is empty, its review count is a figure.
//
// The Copy functions return replica c (c ≥ 1) of a row; replica 0 is the
// row itself.

// vary returns v times a factor drawn from [lo, hi).
func vary(r *rand.Rand, v, lo, hi float64) float64 { return v * (lo + r.Float64()*(hi-lo)) }

// suffix marks the handle or slug of replica c; no hand-made one ends so.
func suffix(c int) string { return "-r" + strconv.Itoa(c) }

// CopyUser returns replica c of the user: handle and e-mail carry the
// copy number.
func CopyUser(u User, c int) User {
	if c == 0 {
		return u
	}
	u.ID, u.Handle = samplescale.ID(u.ID, c), u.Handle+suffix(c)
	if u.Email != nil {
		local, domain, _ := strings.Cut(*u.Email, "@")
		e := local + "+" + strconv.Itoa(c) + "@" + domain
		u.Email, u.EmailNormalized = &e, ptr(strings.ToLower(e))
	}
	return u
}

// CopyExpert returns replica c of the expert with a rating, review count,
// hourly rate and creation time of its own.
func CopyExpert(x Expert, c int) Expert {
	if c == 0 {
		return x
	}
	r := samplescale.Rand(x.ID, c)
	x.ID, x.UserID = samplescale.ID(x.ID, c), samplescale.ID(x.UserID, c)
	x.ReviewCount = r.IntN(2 * (x.ReviewCount + 5))
	if x.ReviewCount > 0 {
		x.Rating = math.Round(math.Min(5, math.Max(1, vary(r, 4.6, 0.75, 1.1)))*100) / 100
	} else {
		x.Rating = 0
	}
	if x.HourlyRate != nil {
		x.HourlyRate = ptr(math.Round(vary(r, *x.HourlyRate, 0.7, 1.4)))
	}
	x.CreatedAt = x.CreatedAt.Add(-time.Duration(r.IntN(365*24)) * time.Hour)
	if x.VerifiedAt != nil {
		x.VerifiedAt = ptr(maxTime(*x.VerifiedAt, x.CreatedAt))
	}
	return x
}

// CopyExpertTranslation returns replica c of the translation.
func CopyExpertTranslation(t ExpertTranslation, c int) ExpertTranslation {
	t.ExpertID = samplescale.ID(t.ExpertID, c)
	return t
}

// CopyExpertLanguage returns replica c of the language.
func CopyExpertLanguage(l ExpertLanguage, c int) ExpertLanguage {
	l.ExpertID = samplescale.ID(l.ExpertID, c)
	return l
}

// CopyExpertSpecialty returns replica c of the specialty.
func CopyExpertSpecialty(s ExpertSpecialty, c int) ExpertSpecialty {
	s.ExpertID = samplescale.ID(s.ExpertID, c)
	return s
}

// CopyPackage returns replica c of the package with a price, duration and
// creation time of its own.
func CopyPackage(p Package, c int) Package {
	if c == 0 {
		return p
	}
	r := samplescale.Rand(p.ID, c)
	p.ID, p.ExpertID = samplescale.ID(p.ID, c), samplescale.ID(p.ExpertID, c)
	p.BasePrice = math.Round(vary(r, p.BasePrice, 0.7, 1.4))
	p.Duration = max(1, int(math.Round(vary(r, float64(p.Duration), 0.75, 1.5))))
	p.CreatedAt = p.CreatedAt.Add(-time.Duration(r.IntN(365*24*60)) * time.Minute)
	p.UpdatedAt = maxTime(p.UpdatedAt, p.CreatedAt)
	return p
}

// CopyPackageTranslation returns replica c of the translation.
func CopyPackageTranslation(t PackageTranslation, c int) PackageTranslation {
	t.PackageID = samplescale.ID(t.PackageID, c)
	return t
}

// CopyTravelogue returns replica c of the travelogue with counts, a hot
// score and times of its own.
func CopyTravelogue(t Travelogue, c int) Travelogue {
	if c == 0 {
		return t
	}
	r := samplescale.Rand(t.ID, c)
	t.ID, t.AuthorID, t.Slug = samplescale.ID(t.ID, c), samplescale.ID(t.AuthorID, c), t.Slug+suffix(c)
	t.Score = int(vary(r, float64(t.Score), 0.2, 2))
	t.ViewCount = int(vary(r, float64(t.ViewCount), 0.2, 2))
	t.CommentCount = int(vary(r, float64(t.CommentCount), 0.2, 2))
	shift := time.Duration(r.IntN(365*24*60)) * time.Minute
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.Add(-shift), t.UpdatedAt.Add(-shift)
	if t.PublishedAt != nil {
		p := t.PublishedAt.Add(-shift)
		t.PublishedAt = &p
		t.HotScore = guide.HotScore(t.Score, t.ViewCount, t.CommentCount, p)
	}
	return t
}

// CopyTravelogueTranslation returns replica c of the translation.
func CopyTravelogueTranslation(t TravelogueTranslation, c int) TravelogueTranslation {
	t.TravelogueID = samplescale.ID(t.TravelogueID, c)
	return t
}
