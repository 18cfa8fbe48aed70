package opponent

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/expr-lang/expr/vm"
)

// Finder is one asynchronous opponent finder: a bounded in-memory cache of
// defenders in buckets, answering "whom should this player attack?" at once.
//
// A Finder is a plain value with no globals, so several run side by side,
// each with its own cache, as the seed scales by adding instances. A game
// spreads its queries over them in one of two ways: by a hash of the
// attacker's id modulo the number of finders (every finder then sees updates
// for all players, or scans the whole table, and serves a fair share of the
// attackers), or by MMR range (each finder owns a slice of the MMR line and
// receives the updates and queries that fall in it, so each cache is dense
// for its range). Round-robin or random choice, as the seed suggests, also
// works when every finder is fed the same way.
//
// A Finder is not safe for concurrent use: like the seed's actor, one
// goroutine owns it and serialises updates, queries and rebalances. It does
// no I/O, starts no goroutines and reads no clock; given the same seed and
// the same calls it gives the same answers.
type Finder struct {
	s   *schema
	rng *rand.Rand

	buckets    []*bucket
	groups     []group
	groupIndex map[groupKey]int32
	labels     []*labelTable
	strs       *interner
	lists      *interner
	// index records, per cached player, the bucket of their entry (one
	// entry per player) or how many entries they have (multiple entries).
	index    map[string]int32
	entries  int // occupied slots over all buckets
	capacity int // slots over all buckets, never above PlayerCacheSize

	sizing sizingState
	scan   scanState
	stats  Counters
	h      holds // held, shielded and online players (hold.go)

	fakeSeq uint64

	// Query scratch, reused so a query allocates nothing in the common case.
	q            Query
	vm           vm.VM
	env          map[string]any
	ectx         evalCtx
	cand         Candidate
	qlabels      []queryLabel
	order        []int32
	gorder       groupOrder
	pens         []float64
	iters        []bucketIter
	exclHash     []uint64
	exclIDs      []exclusion
	exclList     []string
	exclAttacker string
}

// Counters are the finder's running totals, for metrics.
type Counters struct {
	Queries        uint64 `json:"queries"`         // valid queries answered
	Successes      uint64 `json:"successes"`       // answered SUCCESS
	Fakes          uint64 `json:"fakes"`           // answered FAKE_OPPONENT
	NoneFound      uint64 `json:"none_found"`      // answered NONE_FOUND
	InvalidQueries uint64 `json:"invalid_queries"` // refused by validation
	Examined       uint64 `json:"examined"`        // candidates looked at, over all queries
	Inserted       uint64 `json:"inserted"`        // entries added
	Updated        uint64 `json:"updated"`         // entries refreshed in place
	Removed        uint64 `json:"removed"`         // entries removed by Remove, empty updates or moves
	Evicted        uint64 `json:"evicted"`         // entries replaced on insert or lost to a resize
	Ignored        uint64 `json:"ignored"`         // new entries turned away (fill threshold or bucket limit)
	BucketLimited  uint64 `json:"bucket_limited"`  // of which for want of a bucket (MaxBuckets)
	OfferRemoved   uint64 `json:"offer_removed"`   // entries removed after being offered
	InvalidUpdates uint64 `json:"invalid_updates"` // updates refused by validation
	EvalErrors     uint64 `json:"eval_errors"`     // quality evaluations that failed or gave NaN
	Rebalances     uint64 `json:"rebalances"`      // sizing models made
	Resizes        uint64 `json:"resizes"`         // buckets resized
	ScanBatches    uint64 `json:"scan_batches"`    // scan batches applied
	ScanPasses     uint64 `json:"scan_passes"`     // full passes over the player table
	Reserved       uint64 `json:"reserved"`        // reservations made
	Confirmed      uint64 `json:"confirmed"`       // reservations confirmed (attacks)
	Released       uint64 `json:"released"`        // reservations released
	Expired        uint64 `json:"expired"`         // reservations that lapsed
}

// New validates cfg and builds an empty finder whose random choices come
// from seed, so a run replays exactly.
func New(cfg Config, seed uint64) (*Finder, error) {
	s, err := compileConfig(cfg)
	if err != nil {
		return nil, err
	}
	f := &Finder{
		s:          s,
		rng:        rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		groupIndex: make(map[groupKey]int32),
		strs:       newInterner(""),
		lists:      newInterner([]string(nil)),
		index:      make(map[string]int32),
		qlabels:    make([]queryLabel, len(s.strategies)),
	}
	for range s.strategies {
		f.labels = append(f.labels, newLabelTable())
	}
	f.vm.MemoryBudget = exprMemoryBudget
	if s.quality != nil {
		f.env = s.envTypes()
	}
	f.cand.f = f
	return f, nil
}

// Config returns the finder's effective configuration, defaults applied.
func (f *Finder) Config() Config { return f.s.cfg }

// UpdateResult says what an update did, entry by entry.
type UpdateResult struct {
	Inserted int `json:"inserted"` // new entries cached
	Updated  int `json:"updated"`  // cached entries replaced in place
	Removed  int `json:"removed"`  // entries dropped (ineligible player, or a move)
	Evicted  int `json:"evicted"`  // other players' entries replaced on insert
	Ignored  int `json:"ignored"`  // entries not cached: bucket too full, or no bucket left
}

func (r *UpdateResult) add(o UpdateResult) {
	r.Inserted += o.Inserted
	r.Updated += o.Updated
	r.Removed += o.Removed
	r.Evicted += o.Evicted
	r.Ignored += o.Ignored
}

// target is where an entry belongs: its MMR bucket index and labels, and the
// bucket if it exists.
type target struct {
	mmr    int
	labels [maxStrategies]cupid.Value
	key    groupKey
	group  int32 // -1 when the label combination has no group yet
	bucket int32 // -1 when the bucket does not exist yet
}

// mmrIndex places an MMR in its bucket, clamping values outside the range,
// and returns where inside the bucket it lies, from 0 to 1.
func (s *schema) mmrIndex(mmr float64) (int, float64) {
	x := (mmr - s.cfg.MinMMR) / s.mmrWidth
	n := s.cfg.MmrBucketCount
	switch {
	case x < 0:
		return 0, 0
	case x >= float64(n):
		return n - 1, 1
	}
	i := int(x)
	if i >= n {
		i = n - 1
	}
	return i, x - float64(i)
}

// locate finds the bucket an entry belongs to without creating anything.
func (f *Finder) locate(e *Entry) target {
	t := target{group: -1, bucket: -1}
	t.mmr, _ = f.s.mmrIndex(e.MMR)
	known := true
	for si := range f.s.strategies {
		v := e.Attributes[f.s.attrs[f.s.strategies[si].attr].name]
		t.labels[si] = v
		id, ok := f.labels[si].ids[labelKey(v)]
		if !ok {
			known = false
			continue
		}
		t.key[si] = id
	}
	if !known {
		return t
	}
	if g, ok := f.groupIndex[t.key]; ok {
		t.group = g
		t.bucket = f.groups[g].buckets[t.mmr]
	}
	return t
}

// bucketKey writes the stable text key of a bucket: its MMR index and its
// labels in strategy order. The sizing model is keyed by it.
func (f *Finder) bucketKey(mmr int, key groupKey) string {
	var b strings.Builder
	b.WriteString("mmr=")
	b.WriteString(strconv.Itoa(mmr))
	for si := range f.s.strategies {
		b.WriteByte('|')
		b.WriteString(f.s.strategies[si].name)
		b.WriteByte('=')
		b.WriteString(f.labels[si].text[key[si]])
	}
	return b.String()
}

// keyOf is bucketKey for an entry's labels, without interning them.
func (f *Finder) keyOf(mmr int, e *Entry) string {
	var b strings.Builder
	b.WriteString("mmr=")
	b.WriteString(strconv.Itoa(mmr))
	for si := range f.s.strategies {
		b.WriteByte('|')
		b.WriteString(f.s.strategies[si].name)
		b.WriteByte('=')
		b.WriteString(labelText(e.Attributes[f.s.attrs[f.s.strategies[si].attr].name]))
	}
	return b.String()
}

// createBucket makes the bucket t needs, interning its labels, sized by the
// sizing model or the initial size. It returns -1 when MaxBuckets are in use.
func (f *Finder) createBucket(t *target) int32 {
	return f.createBucketSized(t, 0)
}

// createBucketSized is createBucket with a given size; 0 picks it as
// createBucket does.
func (f *Finder) createBucketSized(t *target, size int) int32 {
	if len(f.buckets) >= f.s.cfg.MaxBuckets {
		return -1
	}
	if t.group < 0 {
		for si := range f.s.strategies {
			t.key[si] = f.labels[si].intern(&f.s.strategies[si], t.labels[si])
		}
		g, ok := f.groupIndex[t.key]
		if !ok {
			g = int32(len(f.groups))
			bs := make([]int32, f.s.cfg.MmrBucketCount)
			for i := range bs {
				bs[i] = -1
			}
			f.groups = append(f.groups, group{key: t.key, buckets: bs})
			f.groupIndex[t.key] = g
		}
		t.group = g
	}
	key := f.bucketKey(t.mmr, t.key)
	if size == 0 {
		size = f.sizeForNew(key)
	}
	bi := int32(len(f.buckets))
	f.buckets = append(f.buckets, newBucket(f.s, key, t.group, int32(t.mmr), size))
	f.capacity += size
	f.groups[t.group].buckets[t.mmr] = bi
	t.bucket = bi
	return bi
}

// Update applies a player's state update: the model's entries are cached
// (or refreshed), and a model without entries marks the player ineligible
// and removes them — except with multiple entries per player, where, as in
// the seed, an empty update is ignored and Remove drops a player. New
// entries into a bucket filled at or above PlayerIgnoreUpdateInsertThreshold
// are ignored. A model that fails validation changes nothing.
func (f *Finder) Update(m Model, now time.Time) (UpdateResult, error) {
	_ = now // the cache has no notion of age; kept for symmetry and future expiry
	if err := f.s.checkModel(&m); err != nil {
		f.stats.InvalidUpdates++
		return UpdateResult{}, err
	}
	if len(m.Entries) == 0 {
		if f.s.cfg.AllowMultipleEntriesPerPlayer {
			return UpdateResult{}, nil
		}
		n := f.Remove(m.PlayerID)
		return UpdateResult{Removed: n}, nil
	}
	h := hashID(m.PlayerID)
	if f.s.cfg.AllowMultipleEntriesPerPlayer {
		var r UpdateResult
		for i := range m.Entries {
			r.add(f.updateMulti(h, m.PlayerID, &m.Entries[i]))
		}
		return r, nil
	}
	return f.updateSingle(h, m.PlayerID, &m.Entries[0]), nil
}

func (f *Finder) updateSingle(h uint64, id string, e *Entry) UpdateResult {
	var r UpdateResult
	t := f.locate(e)
	old, exists := f.index[id]
	if exists && old == t.bucket {
		b := f.buckets[old]
		f.writeValues(b, b.find(h, id), e)
		f.stats.Updated++
		r.Updated++
		return r
	}
	if t.bucket >= 0 {
		b := f.buckets[t.bucket]
		f.sample(b)
		f.growIfFull(t.bucket)
		if !exists && b.fill() >= f.s.ignoreLevel {
			f.stats.Ignored++
			r.Ignored++
			return r
		}
	} else {
		if f.createBucket(&t) < 0 {
			f.stats.BucketLimited++
			f.stats.Ignored++
			r.Ignored++
			if exists {
				// The cached entry no longer describes the player.
				r.Removed += f.Remove(id)
			}
			return r
		}
		f.sample(f.buckets[t.bucket])
	}
	// Creating the bucket may have resized the others and evicted the
	// player's old entry, so look again.
	stored := ""
	if old, ok := f.index[id]; ok {
		b := f.buckets[old]
		i := b.find(h, id)
		stored = b.ids[i] // reuse the cached copy of the id
		f.removeAt(b, i)
		f.stats.Removed++
		r.Removed++
	} else {
		stored = strings.Clone(id)
	}
	if _, ev := f.insert(t.bucket, h, stored, e); ev {
		r.Evicted++
	}
	f.stats.Inserted++
	r.Inserted++
	return r
}

func (f *Finder) updateMulti(h uint64, id string, e *Entry) UpdateResult {
	var r UpdateResult
	t := f.locate(e)
	if t.bucket >= 0 {
		b := f.buckets[t.bucket]
		if i := b.find(h, id); i >= 0 {
			f.writeValues(b, i, e)
			f.stats.Updated++
			r.Updated++
			return r
		}
		f.sample(b)
		f.growIfFull(t.bucket)
		if b.fill() >= f.s.ignoreLevel {
			f.stats.Ignored++
			r.Ignored++
			return r
		}
	} else {
		if f.createBucket(&t) < 0 {
			f.stats.BucketLimited++
			f.stats.Ignored++
			r.Ignored++
			return r
		}
		f.sample(f.buckets[t.bucket])
	}
	if _, ev := f.insert(t.bucket, h, strings.Clone(id), e); ev {
		r.Evicted++
	}
	f.stats.Inserted++
	r.Inserted++
	return r
}

// sample counts one label sampled into bucket b, for dynamic sizing.
func (f *Finder) sample(b *bucket) {
	b.samples++
	f.sizing.sampled++
}

// growIfFull lets a bucket that is full, or filled to the ignore threshold,
// grow into cache capacity that no bucket uses yet, up to twice its size.
// Without it, the room the sizing plan keeps for buckets not yet created
// would stay empty until the first rebalance, and a cache would hold about
// half the players it has room for. Doubling keeps the rehashing to a
// logarithmic number of times per bucket; a bucket created later that finds
// no room re-plans every size (sizeForNew).
func (f *Finder) growIfFull(bi int32) {
	b := f.buckets[bi]
	if b.n == 0 || b.n < b.size && b.fill() < f.s.ignoreLevel {
		return
	}
	if spare := f.s.cfg.PlayerCacheSize - f.capacity; spare > 0 {
		f.resize(bi, b.size+min(b.size, spare))
		return
	}
	if f.replanFromSamples() {
		// The bucket may now have room, or spare to grow into.
		if spare := f.s.cfg.PlayerCacheSize - f.capacity; spare > 0 && (b.n == b.size || b.fill() >= f.s.ignoreLevel) {
			f.resize(bi, b.size+min(b.size, spare))
		}
	}
}

// Remove drops every entry of a player and returns how many there were.
func (f *Finder) Remove(playerID string) int {
	v, ok := f.index[playerID]
	if !ok {
		return 0
	}
	h := hashID(playerID)
	if !f.s.cfg.AllowMultipleEntriesPerPlayer {
		b := f.buckets[v]
		f.removeAt(b, b.find(h, playerID))
		f.stats.Removed++
		return 1
	}
	// Entries are not linked to each other; the player's slot in each
	// bucket is known from the hash, so probing every bucket finds them.
	n := 0
	for _, b := range f.buckets {
		if i := b.find(h, playerID); i >= 0 {
			f.removeAt(b, i)
			n++
			if n == int(v) {
				break
			}
		}
	}
	f.stats.Removed += uint64(n)
	return n
}

// Len is the number of cached entries.
func (f *Finder) Len() int { return f.entries }

// Stats is a snapshot for the dashboard and metrics.
type Stats struct {
	Counters
	Buckets   int           `json:"buckets"`          // buckets in use
	Players   int           `json:"players"`          // distinct players cached
	Entries   int           `json:"entries"`          // cached entries (= players with one entry each)
	Capacity  int           `json:"capacity"`         // slots over all buckets
	CacheSize int           `json:"cache_size"`       // PlayerCacheSize, the bound on Capacity
	Strings   int           `json:"strings"`          // distinct interned strings and lists
	HasModel  bool          `json:"has_sizing_model"` // a sizing model is in use
	Held      int           `json:"held"`             // live reservations
	Shielded  int           `json:"shielded"`         // players with a shield (lapsed ones until swept)
	Online    int           `json:"online"`           // players flagged online
	PerBucket []BucketStats `json:"per_bucket"`       // in creation order
}

// BucketStats is one bucket's fill, labelled by its stable key.
type BucketStats struct {
	Key     string  `json:"key"`      // e.g. mmr=3|arena="forest"
	MMRLow  float64 `json:"mmr_low"`  // the bucket's MMR range starts here
	MMRHigh float64 `json:"mmr_high"` // and ends here
	Size    int     `json:"size"`     // slots
	Entries int     `json:"entries"`  // occupied slots
	Fill    float64 `json:"fill"`     // Entries / Size
	Samples float64 `json:"samples"`  // sampled labels since the last rebalance (halved at each)
}

// Stats returns the counters and the fill of every bucket, in creation order.
func (f *Finder) Stats() Stats {
	st := Stats{
		Counters:  f.stats,
		Buckets:   len(f.buckets),
		Players:   len(f.index),
		Entries:   f.entries,
		Capacity:  f.capacity,
		CacheSize: f.s.cfg.PlayerCacheSize,
		Strings:   f.strs.live() + f.lists.live(),
		HasModel:  f.sizing.model != nil,
		PerBucket: make([]BucketStats, len(f.buckets)),
	}
	st.Held, st.Shielded, st.Online = f.holdCounts()
	for i, b := range f.buckets {
		lo := f.s.cfg.MinMMR + float64(b.mmr)*f.s.mmrWidth
		st.PerBucket[i] = BucketStats{
			Key: b.key, MMRLow: lo, MMRHigh: math.Min(lo+f.s.mmrWidth, f.s.cfg.MaxMMR),
			Size: b.size, Entries: b.n, Fill: b.fill(), Samples: b.samples,
		}
	}
	return st
}

// CheckModel validates a state update without applying it, so a server can
// refuse a malformed model before writing it anywhere. It reads only the
// finder's configuration, which never changes, so unlike the other methods
// it is safe to call concurrently with them.
func (f *Finder) CheckModel(m Model) error {
	return f.s.checkModel(&m)
}
