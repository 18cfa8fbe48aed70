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
// interned id (1 word). See schema.rowWords and attrSpec.off.
const (
	rowHash  = 0
	rowMMR   = 2
	rowAttrs = 4
)

// bucket is one fixed-size replace-on-insert table: a player id hashes to
// exactly one slot, and inserting into an occupied slot replaces whoever was
// there. Slots point into dense storage, so a query can visit the occupants
// in random order without probing empty slots, and the memory is a fixed
// few bytes per slot plus one compact row per entry.
type bucket struct {
	key   string // stable text key, e.g. mmr=3|arena="forest"
	group int32
	mmr   int32
	size  int

	slots []uint32 // per slot: dense index + 1, or 0 when empty
	n     int      // occupied entries, dense indexes [0, n)
	ids   []string // dense
	back  []uint32 // dense index → slot
	w     int      // words per row
	rows  []uint32 // dense rows, w words each

	samples float64 // sampled labels since the last rebalance (decayed)
}

func newBucket(s *schema, key string, group, mmr int32, size int) *bucket {
	b := &bucket{key: key, group: group, mmr: mmr}
	b.alloc(s, size)
	return b
}

func (b *bucket) alloc(s *schema, size int) {
	b.size = size
	b.n = 0
	b.slots = make([]uint32, size)
	b.ids = make([]string, size)
	b.back = make([]uint32, size)
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
func (b *bucket) mmrAt(i int) float64          { return math.Float64frombits(b.word64(i, rowMMR)) }
func (b *bucket) num(i, off int) float64       { return math.Float64frombits(b.word64(i, off)) }
func (b *bucket) ref(i, off int) uint32        { return b.rows[i*b.w+off] }
func (b *bucket) setNum(i, off int, v float64) { b.setWord64(i, off, math.Float64bits(v)) }

// fill is how full the bucket is, from 0 to 1.
func (b *bucket) fill() float64 { return float64(b.n) / float64(b.size) }

// find returns the dense index of id's entry in this bucket, or -1.
func (b *bucket) find(h uint64, id string) int {
	d := b.slots[slotOf(h, b.size)]
	if d == 0 {
		return -1
	}
	i := int(d - 1)
	if b.hash(i) != h || b.ids[i] != id {
		return -1
	}
	return i
}

// move copies dense entry from into to, within the bucket, and repoints its
// slot. The refs move with it; nothing is acquired or released.
func (b *bucket) move(from, to int) {
	b.ids[to] = b.ids[from]
	b.back[to] = b.back[from]
	copy(b.row(to), b.row(from))
	b.slots[b.back[to]] = uint32(to + 1)
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
// record and its slot.
func (f *Finder) removeAt(b *bucket, i int) {
	f.releaseRefs(b, i)
	f.forget(b.ids[i])
	b.slots[b.back[i]] = 0
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

// insert puts an entry of id into bucket bi at the slot its hash picks,
// evicting a different occupant. It reports whether an entry of id was
// already there (an update in place) and whether someone was evicted.
func (f *Finder) insert(bi int32, h uint64, id string, e *Entry) (updated, evicted bool) {
	b := f.buckets[bi]
	s := slotOf(h, b.size)
	var i int
	if d := b.slots[s]; d != 0 {
		i = int(d - 1)
		if b.hash(i) == h && b.ids[i] == id {
			f.writeValues(b, i, e)
			return true, false
		}
		// Replace on insert: the occupant leaves the cache.
		f.releaseRefs(b, i)
		f.forget(b.ids[i])
		f.stats.Evicted++
		evicted = true
	} else {
		i = b.n
		b.n++
		f.entries++
		b.slots[s] = uint32(i + 1)
		b.back[i] = uint32(s)
	}
	b.ids[i] = id
	b.setWord64(i, rowHash, h)
	f.writeValues(b, i, e)
	if f.s.cfg.AllowMultipleEntriesPerPlayer {
		f.index[id]++
	} else {
		f.index[id] = bi
	}
	return false, evicted
}

// resize gives bucket bi a new size, rehashing its entries in dense order;
// when two land on one slot the later replaces the earlier, exactly as
// inserting them would. Survivors keep their interned values.
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
		s := slotOf(old.hash(i), size)
		var j int
		if d := b.slots[s]; d != 0 {
			j = int(d - 1)
			f.releaseRefs(b, j)
			f.forget(b.ids[j])
			f.stats.Evicted++
			f.entries--
		} else {
			j = b.n
			b.n++
			b.slots[s] = uint32(j + 1)
			b.back[j] = uint32(s)
		}
		b.ids[j] = old.ids[i]
		copy(b.row(j), old.row(i))
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
