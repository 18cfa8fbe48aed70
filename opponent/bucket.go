package opponent

import (
	"math"
	"math/bits"

	"github.com/cupid-match/cupid"
)

// hashID hashes a player id with FNV-1a and a final mix. It is fixed (no
// per-process seed) so a player lands in the same slot after a restart and
// every run replays; the mix spreads FNV's weak high bits, which pick the slot.
func hashID(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// slotOf maps a hash onto a table of size slots without division.
func slotOf(h uint64, size int) int {
	hi, _ := bits.Mul64(h, uint64(size))
	return int(hi)
}

// A bucket keeps each entry in one row of 32-bit words, so a query reads a
// candidate's hash, MMR and attributes from one or two cache lines rather
// than one line per column: the hash (2 words), the MMR's bits (2 words),
// each number attribute (2 words) and each string or list attribute as an
// interned id (1 word). See schema.rowWords and attrSpec.off. rowUntil
// holds, as Unix nanoseconds, until when the player may not be offered
// (held by a reservation, shielded, or math.MaxInt64 while online; 0 when
// free), so a query rules out an unavailable candidate from the row it
// reads anyway.
const (
	rowHash  = 0
	rowMMR   = 2
	rowUntil = 4
	rowAttrs = 6
)

// bucket is one fixed-size replace-on-insert table. Entries live in dense
// storage, so a query can visit the occupants in random order without
// probing empty slots, and the memory is a fixed few bytes per slot plus one
// compact row per entry. A small open-addressing table (linear probing,
// keyed by the id's hash, never more than two thirds full) finds a player's
// entry. A bucket takes new entries until every one of its size slots is in
// use, so a cache fills to its capacity; a newcomer to a full bucket
// replaces the occupant its hash picks (the dense position slotOf(hash,
// size)), which keeps the seed's replace-on-insert bound on memory.
type bucket struct {
	key   string // stable text key, e.g. mmr=3|arena="forest"
	group int32
	mmr   int32
	size  int

	table []uint32 // open addressing by hash: dense index + 1, or 0 when empty
	mask  int      // len(table) - 1; len(table) is a power of two
	n     int      // occupied entries, dense indexes [0, n)
	ids   []string // dense
	w     int      // words per row
	rows  []uint32 // dense rows, w words each

	samples float64 // sampled labels since the last rebalance (decayed)
}

func newBucket(s *schema, key string, group, mmr int32, size int) *bucket {
	b := &bucket{key: key, group: group, mmr: mmr}
	b.alloc(s, size)
	return b
}

// tableLen is the power of two that keeps a full bucket's lookup table at
// most two thirds full, so probes stay short.
func tableLen(size int) int {
	n := 4
	for n < size+size/2 {
		n *= 2
	}
	return n
}

func (b *bucket) alloc(s *schema, size int) {
	b.size = size
	b.n = 0
	t := tableLen(size)
	b.table = make([]uint32, t)
	b.mask = t - 1
	b.ids = make([]string, size)
	b.w = s.rowWords
	b.rows = make([]uint32, size*s.rowWords)
}

func (b *bucket) row(i int) []uint32 {
	o := i * b.w
	return b.rows[o : o+b.w : o+b.w]
}

func (b *bucket) word64(i, off int) uint64 {
	o := i*b.w + off
	return uint64(b.rows[o]) | uint64(b.rows[o+1])<<32
}

func (b *bucket) setWord64(i, off int, v uint64) {
	o := i*b.w + off
	b.rows[o], b.rows[o+1] = uint32(v), uint32(v>>32)
}

func (b *bucket) hash(i int) uint64            { return b.word64(i, rowHash) }
func (b *bucket) until(i int) int64            { return int64(b.word64(i, rowUntil)) }
func (b *bucket) mmrAt(i int) float64          { return math.Float64frombits(b.word64(i, rowMMR)) }
func (b *bucket) num(i, off int) float64       { return math.Float64frombits(b.word64(i, off)) }
func (b *bucket) ref(i, off int) uint32        { return b.rows[i*b.w+off] }
func (b *bucket) setNum(i, off int, v float64) { b.setWord64(i, off, math.Float64bits(v)) }

// home is where a hash starts probing the lookup table.
func (b *bucket) home(h uint64) int { return int(h) & b.mask }

// tableAdd records dense index i, whose hash is h, in the lookup table.
func (b *bucket) tableAdd(h uint64, i int) {
	s := b.home(h)
	for b.table[s] != 0 {
		s = (s + 1) & b.mask
	}
	b.table[s] = uint32(i + 1)
}

// tableSlot is the lookup-table slot that points at dense index i.
func (b *bucket) tableSlot(i int) int {
	s := b.home(b.hash(i))
	for int(b.table[s]) != i+1 {
		s = (s + 1) & b.mask
	}
	return s
}

// tableDelete empties slot s and shifts later entries of its probe run
// back, so every entry stays reachable from its home without tombstones.
func (b *bucket) tableDelete(s int) {
	j := s
	b.table[j] = 0
	for k := (j + 1) & b.mask; b.table[k] != 0; k = (k + 1) & b.mask {
		r := b.home(b.hash(int(b.table[k] - 1)))
		// The entry at k may move to the hole at j unless its home lies
		// cyclically in (j, k].
		if j < k && r > j && r <= k || j > k && (r > j || r <= k) {
			continue
		}
		b.table[j] = b.table[k]
		b.table[k] = 0
		j = k
	}
}

// fill is how full the bucket is, from 0 to 1.
func (b *bucket) fill() float64 { return float64(b.n) / float64(b.size) }

// find returns the dense index of id's entry in this bucket, or -1.
func (b *bucket) find(h uint64, id string) int {
	for s := b.home(h); ; s = (s + 1) & b.mask {
		d := b.table[s]
		if d == 0 {
			return -1
		}
		if i := int(d - 1); b.hash(i) == h && b.ids[i] == id {
			return i
		}
	}
}

// move copies dense entry from into to, within the bucket, and repoints its
// lookup slot. The refs move with it; nothing is acquired or released.
func (b *bucket) move(from, to int) {
	b.table[b.tableSlot(from)] = uint32(to + 1)
	b.ids[to] = b.ids[from]
	copy(b.row(to), b.row(from))
}

// clear empties dense position i, which no longer owns any refs.
func (b *bucket) clear(i int) {
	b.ids[i] = ""
	clear(b.row(i))
}

// releaseRefs gives back the interned values entry i holds and zeroes them.
func (f *Finder) releaseRefs(b *bucket, i int) {
	r := b.row(i)
	for c, kind := range f.s.refKind {
		off := f.s.refOff + c
		if kind == cupid.KindStrings {
			f.lists.release(r[off])
		} else {
			f.strs.release(r[off])
		}
		r[off] = 0
	}
}

// forget drops one entry of id from the index.
func (f *Finder) forget(id string) {
	if !f.s.cfg.AllowMultipleEntriesPerPlayer {
		delete(f.index, id)
		return
	}
	if c := f.index[id]; c > 1 {
		f.index[id] = c - 1
	} else {
		delete(f.index, id)
	}
}

// removeAt removes dense entry i of bucket b entirely: its values, its index
// record and its lookup slot.
func (f *Finder) removeAt(b *bucket, i int) {
	f.releaseRefs(b, i)
	f.forget(b.ids[i])
	b.tableDelete(b.tableSlot(i))
	last := b.n - 1
	if i != last {
		b.move(last, i)
	}
	b.clear(last)
	b.n--
	f.entries--
}

// writeValues stores an entry's MMR and attributes at dense index i,
// acquiring the new interned values before releasing the old ones so a
// value kept by an update is never freed in between.
func (f *Finder) writeValues(b *bucket, i int, e *Entry) {
	b.setWord64(i, rowMMR, math.Float64bits(e.MMR))
	r := b.row(i)
	for ai := range f.s.attrs {
		a := &f.s.attrs[ai]
		if a.col < 0 {
			continue
		}
		v := e.Attributes[a.name]
		switch a.kind {
		case cupid.KindNumber:
			b.setNum(i, a.off, v.Number)
		case cupid.KindString:
			old := r[a.off]
			r[a.off] = f.strs.acquireString(v.String)
			f.strs.release(old)
		case cupid.KindStrings:
			old := r[a.off]
			r[a.off] = f.lists.acquireList(v.Strings)
			f.lists.release(old)
		}
	}
}

// insert puts an entry of id into bucket bi: into a free slot while the
// bucket has one, else in place of the occupant its hash picks. It reports
// whether an entry of id was already there (an update in place) and whether
// someone was evicted.
func (f *Finder) insert(bi int32, h uint64, id string, e *Entry) (updated, evicted bool) {
	b := f.buckets[bi]
	if i := b.find(h, id); i >= 0 {
		f.writeValues(b, i, e)
		return true, false
	}
	var i int
	if b.n < b.size {
		i = b.n
		b.n++
		f.entries++
	} else {
		// Replace on insert: the occupant leaves the cache.
		i = slotOf(h, b.size)
		b.tableDelete(b.tableSlot(i))
		f.releaseRefs(b, i)
		f.forget(b.ids[i])
		f.stats.Evicted++
		evicted = true
	}
	b.ids[i] = id
	b.setWord64(i, rowHash, h)
	b.setWord64(i, rowUntil, uint64(f.blockedUntil(id)))
	b.tableAdd(h, i)
	f.writeValues(b, i, e)
	if f.s.cfg.AllowMultipleEntriesPerPlayer {
		f.index[id]++
	} else {
		f.index[id] = bi
	}
	return false, evicted
}

// resize gives bucket bi a new size, taking its entries back in dense
// order exactly as inserting them would: while there is room each keeps its
// place, and past the new size each replaces the occupant its hash picks.
// Survivors keep their interned values.
func (f *Finder) resize(bi int32, size int) {
	b := f.buckets[bi]
	if size == b.size {
		return
	}
	old := *b
	b.alloc(f.s, size)
	f.capacity += size - old.size
	f.stats.Resizes++
	for i := 0; i < old.n; i++ {
		h := old.hash(i)
		var j int
		if b.n < size {
			j = b.n
			b.n++
		} else {
			j = slotOf(h, size)
			b.tableDelete(b.tableSlot(j))
			f.releaseRefs(b, j)
			f.forget(b.ids[j])
			f.stats.Evicted++
			f.entries--
		}
		b.ids[j] = old.ids[i]
		copy(b.row(j), old.row(i))
		b.tableAdd(h, j)
	}
}

// entryAt rebuilds the public Entry of dense index i, for ReturnModel.
func (f *Finder) entryAt(b *bucket, i int) Entry {
	e := Entry{MMR: b.mmrAt(i)}
	if len(f.s.attrs) > 0 {
		e.Attributes = make(map[string]cupid.Value, len(f.s.attrs))
	}
	g := &f.groups[b.group]
	for ai := range f.s.attrs {
		a := &f.s.attrs[ai]
		var v cupid.Value
		switch {
		case a.label >= 0:
			v = f.labels[a.label].vals[g.key[a.label]]
		case a.kind == cupid.KindNumber:
			v = cupid.Number(b.num(i, a.off))
		case a.kind == cupid.KindString:
			v = cupid.String(f.strs.keys[b.ref(i, a.off)])
		default:
			l := f.lists.vals[b.ref(i, a.off)].([]string)
			v = cupid.Strings(append([]string(nil), l...)...)
		}
		e.Attributes[a.name] = v
	}
	return e
}
