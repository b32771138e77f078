package guide

import (
	"math"
	"time"
)

// hotEpoch anchors HotScore; only differences between scores matter.
var hotEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// HotScore ranks a published travelogue for the default "hotScore" sort.
// Engagement counts on a log scale and every 12.5 hours of recency is worth
// one order of magnitude of engagement, so new stories rise and old ones
// sink without the score having to be recomputed as time passes: it changes
// only when the engagement does.
func HotScore(score, viewCount, commentCount int, publishedAt time.Time) float64 {
	engagement := float64(score) + 2*float64(commentCount) + float64(viewCount)/100
	order := math.Log10(math.Max(engagement, 1))
	return order + publishedAt.Sub(hotEpoch).Seconds()/45000
}
