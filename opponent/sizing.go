package opponent

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
)

// SizingModel is the outcome of dynamic bucket sizing: the share of players
// each bucket (by its stable key) was seen to attract. The server stores it
// and loads it after a restart, so buckets come back at the sizes the
// population needs instead of starting over from the initial size. It is
// plain JSON.
type SizingModel struct {
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	// The MMR layout the keys refer to; a model made for another layout
	// does not load.
	MinMMR         float64 `json:"min_mmr"`
	MaxMMR         float64 `json:"max_mmr"`
	MmrBucketCount int     `json:"mmr_bucket_count"`
	// Samples is how many sampled labels the weights came from.
	Samples float64        `json:"samples"`
	Buckets []BucketWeight `json:"buckets"`
}

// BucketWeight is one bucket's share of the sampled players.
type BucketWeight struct {
	Key    string  `json:"key"`
	Weight float64 `json:"weight"`
}

// sizingModelVersion is the SizingModel format this package writes.
const sizingModelVersion = 1

// sizingState is the model in use, turned into integer parts so sizes are
// computed exactly (no floating rounding can push the total over the cache).
type sizingState struct {
	model     *SizingModel
	parts     map[string]uint64
	partTotal uint64
	attempted bool
	last      time.Time
	// Before any model exists, buckets are re-planned from the samples
	// seen so far when full buckets cannot grow (replanFromSamples);
	// samples and sampled hold the totals of those samples, and
	// replanned what they were at the last such re-plan.
	sampled   float64
	replanned float64
}

func (st *sizingState) set(m *SizingModel) {
	st.model = m
	st.parts = make(map[string]uint64, len(m.Buckets))
	st.partTotal = 0
	var w float64
	for _, b := range m.Buckets {
		w += b.Weight
	}
	for _, b := range m.Buckets {
		var p uint64
		if w > 0 {
			p = uint64(math.Round(b.Weight / w * (1 << 32)))
		}
		st.parts[b.Key] = p
		st.partTotal += p
	}
}

// keyCount is how many buckets the sizes are planned for: those the model
// knows, those that exist and the one about to be created (extra, "" for
// none), capped at MaxBuckets so every bucket keeps its minimum size.
func (f *Finder) keyCount(extra string) int {
	n := len(f.buckets)
	if f.sizing.model != nil {
		n = len(f.sizing.parts)
		for _, b := range f.buckets {
			if _, ok := f.sizing.parts[b.key]; !ok {
				n++
			}
		}
		if _, ok := f.sizing.parts[extra]; ok {
			extra = ""
		}
	}
	if extra != "" {
		n++
	}
	return min(n, f.s.cfg.MaxBuckets)
}

// reserve is how many future buckets the plan leaves room for, so that
// creating buckets one by one rehashes the cache only a logarithmic number
// of times.
func (f *Finder) reserve(n int) int {
	return max(0, min(f.s.cfg.MaxBuckets-n, n))
}

// plannedSize is the size of the bucket with this key (and these samples)
// when sizes are planned for n buckets. Without a model every bucket gets an equal share, at most
// the initial size; with one, every bucket gets the minimum plus its share
// of the rest. Either way the planned sizes of n buckets sum to at most the
// cache size.
func (f *Finder) plannedSize(key string, samples float64, n int) int {
	c := &f.s.cfg
	slots := n + f.reserve(n)
	if f.sizing.model == nil {
		if f.sizing.sampled > 0 {
			// Shares of the players seen so far, as a model would give.
			rest := c.PlayerCacheSize - c.BucketMinSize*slots
			return c.BucketMinSize + int(float64(rest)*samples/f.sizing.sampled)
		}
		return max(c.BucketMinSize, min(c.BucketInitialSize, c.PlayerCacheSize/slots))
	}
	rest := c.PlayerCacheSize - c.BucketMinSize*slots
	if f.sizing.partTotal == 0 {
		return c.BucketMinSize + rest/slots
	}
	share := uint64(rest) * f.sizing.parts[key] / f.sizing.partTotal
	return c.BucketMinSize + int(share)
}

// replanFromSamples re-plans every bucket from the players sampled so far,
// before any sizing model exists, when a full bucket finds no room to grow
// while at least an eighth of the cache's slots stand empty in other
// buckets: the sizes the buckets were created with (the initial size, or an
// equal share) suit the population no better than chance, and waiting for
// the first rebalance (ten minutes by default) would leave those slots
// empty. It runs at most once per doubling of the samples, so its cost (a
// rehash of the cache) stays a logarithmic number of times.
func (f *Finder) replanFromSamples() bool {
	c := &f.s.cfg
	st := &f.sizing
	if st.model != nil || st.sampled < 2*st.replanned || c.PlayerCacheSize-f.entries < c.PlayerCacheSize/8 {
		return false
	}
	st.replanned = st.sampled
	f.resizeAll(f.keyCount(""))
	return true
}

// sizeForNew picks the size of a bucket about to be created: its planned
// size under the model, or BucketInitialSize without one. When the cache has
// no room left for it, every bucket is re-planned first (leaving room for as
// many buckets again, so this happens a logarithmic number of times).
func (f *Finder) sizeForNew(key string) int {
	n := f.keyCount(key)
	want := f.s.cfg.BucketInitialSize
	if f.sizing.model != nil {
		want = f.plannedSize(key, 0, n)
	}
	if f.capacity+want <= f.s.cfg.PlayerCacheSize {
		return want
	}
	f.resizeAll(n)
	return f.plannedSize(key, 0, n)
}

// resizeAll gives every bucket its planned size, shrinking first so the
// memory in use peaks as little as possible.
func (f *Finder) resizeAll(n int) {
	for bi, b := range f.buckets {
		if s := f.plannedSize(b.key, b.samples, n); s < b.size {
			f.resize(int32(bi), s)
		}
	}
	for bi, b := range f.buckets {
		if s := f.plannedSize(b.key, b.samples, n); s > b.size {
			f.resize(int32(bi), s)
		}
	}
}

// RebalanceDue reports whether Sizing.Interval has passed since the last
// Rebalance, for a server that polls rather than keeps a ticker.
func (f *Finder) RebalanceDue(now time.Time) bool {
	return !f.sizing.attempted || now.Sub(f.sizing.last) >= time.Duration(f.s.cfg.Sizing.Interval)
}

// RebalanceAt is when RebalanceDue next turns true: the zero time before the
// first Rebalance, then Sizing.Interval after the last one, so a server can
// arm a timer instead of polling.
func (f *Finder) RebalanceAt() time.Time {
	if !f.sizing.attempted {
		return time.Time{}
	}
	return f.sizing.last.Add(time.Duration(f.s.cfg.Sizing.Interval))
}

// Rebalance turns the labels sampled from added players into a new sizing
// model and resizes every bucket to it, keeping the total within the cache
// size. With fewer than Sizing.MinSamples samples it changes nothing and
// reports false. The samples are halved afterwards, so the model follows a
// changing population without forgetting it at once. The caller should
// store the returned model (SizingModel gives it again).
func (f *Finder) Rebalance(now time.Time) (SizingModel, bool) {
	f.sizing.attempted = true
	f.sizing.last = now
	var total float64
	for _, b := range f.buckets {
		total += b.samples
	}
	if total < float64(f.s.cfg.Sizing.MinSamples) {
		return SizingModel{}, false
	}
	m := &SizingModel{
		Version:        sizingModelVersion,
		CreatedAt:      now.UTC(),
		MinMMR:         f.s.cfg.MinMMR,
		MaxMMR:         f.s.cfg.MaxMMR,
		MmrBucketCount: f.s.cfg.MmrBucketCount,
		Samples:        total,
		Buckets:        make([]BucketWeight, 0, len(f.buckets)),
	}
	for _, b := range f.buckets {
		m.Buckets = append(m.Buckets, BucketWeight{Key: b.key, Weight: b.samples / total})
	}
	slices.SortFunc(m.Buckets, func(a, b BucketWeight) int { return strings.Compare(a.Key, b.Key) })
	f.sizing.set(m)
	f.resizeAll(f.keyCount(""))
	f.sizing.sampled = 0
	for _, b := range f.buckets {
		b.samples /= 2
		f.sizing.sampled += b.samples
	}
	f.stats.Rebalances++
	return copyModel(m), true
}

// SizingModel returns the model in use, if any, for the server to store.
func (f *Finder) SizingModel() (SizingModel, bool) {
	if f.sizing.model == nil {
		return SizingModel{}, false
	}
	return copyModel(f.sizing.model), true
}

func copyModel(m *SizingModel) SizingModel {
	c := *m
	c.Buckets = slices.Clone(m.Buckets)
	return c
}

// LoadSizingModel installs a stored model, typically at start-up, and
// resizes any existing buckets to it; buckets created later take their size
// from it too. A malformed model, or one made for another MMR layout,
// changes nothing.
func (f *Finder) LoadSizingModel(m SizingModel) error {
	c := &f.s.cfg
	switch {
	case m.Version != sizingModelVersion:
		return invalid("version", "unknown sizing model version %d", m.Version)
	case m.MinMMR != c.MinMMR || m.MaxMMR != c.MaxMMR || m.MmrBucketCount != c.MmrBucketCount:
		return cupid.Conflict("mmr_bucket_count", "the model was made for MMR %v..%v in %d buckets, the finder uses %v..%v in %d",
			m.MinMMR, m.MaxMMR, m.MmrBucketCount, c.MinMMR, c.MaxMMR, c.MmrBucketCount)
	case !cupid.Finite(m.Samples) || m.Samples < 0:
		return invalid("samples", "must be a finite number ≥ 0")
	case len(m.Buckets) > c.MaxBuckets:
		return invalid("buckets", "at most max_buckets (%d) buckets, got %d", c.MaxBuckets, len(m.Buckets))
	}
	seen := make(map[string]bool, len(m.Buckets))
	for i, b := range m.Buckets {
		field := fmt.Sprintf("buckets[%d]", i)
		if b.Key == "" || len(b.Key) > 4096 {
			return invalid(field+".key", "must be a bucket key")
		}
		if seen[b.Key] {
			return invalid(field+".key", "%q appears twice", b.Key)
		}
		seen[b.Key] = true
		if !cupid.Finite(b.Weight) || b.Weight < 0 {
			return invalid(field+".weight", "must be a finite number ≥ 0, got %v", b.Weight)
		}
	}
	cm := copyModel(&m)
	f.sizing.set(&cm)
	if len(f.buckets) > 0 {
		f.resizeAll(f.keyCount(""))
	}
	return nil
}
