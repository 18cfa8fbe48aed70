package opponent

import (
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

// hotEntry is what a query reads of every candidate, kept together so one
// cache line serves both.
type hotEntry struct {
	h   uint64
	mmr float64
}

// bucket is one fixed-size replace-on-insert table: a player id hashes to
// exactly one slot, and inserting into an occupied slot replaces whoever was
// there. Slots point into dense struct-of-arrays storage, so a query can
// visit the occupants in random order without probing empty slots, and the
// memory is a fixed few bytes per slot plus the compact columns.
type bucket struct {
	key   string // stable text key, e.g. mmr=3|arena="forest"
	group int32
	mmr   int32
	size  int

	slots []uint32 // per slot: dense index + 1, or 0 when empty
	n     int      // occupied entries, dense indexes [0, n)
	ids   []string
	hot   []hotEntry
	back  []uint32    // dense index → slot
	nums  [][]float64 // per number column, dense
	refs  [][]uint32  // per string or list column: interned ids, dense

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
	b.hot = make([]hotEntry, size)
	b.back = make([]uint32, size)
	b.nums = make([][]float64, s.numCols)
	for c := range b.nums {
		b.nums[c] = make([]float64, size)
	}
	b.refs = make([][]uint32, s.refCols)
	for c := range b.refs {
		b.refs[c] = make([]uint32, size)
	}
}

// fill is how full the bucket is, from 0 to 1.
func (b *bucket) fill() float64 { return float64(b.n) / float64(b.size) }

// find returns the dense index of id's entry in this bucket, or -1.
func (b *bucket) find(h uint64, id string) int {
	d := b.slots[slotOf(h, b.size)]
	if d == 0 {
		return -1
	}
	i := int(d - 1)
	if b.hot[i].h != h || b.ids[i] != id {
		return -1
	}
	return i
}

// move copies dense entry from into to, within the bucket, and repoints its
// slot. The refs move with it; nothing is acquired or released.
func (b *bucket) move(from, to int) {
	b.ids[to] = b.ids[from]
	b.hot[to] = b.hot[from]
	b.back[to] = b.back[from]
	for _, col := range b.nums {
		col[to] = col[from]
	}
	for _, col := range b.refs {
		col[to] = col[from]
	}
	b.slots[b.back[to]] = uint32(to + 1)
}

// clear empties dense position i, which no longer owns any refs.
func (b *bucket) clear(i int) {
	b.ids[i] = ""
	b.hot[i] = hotEntry{}
	for _, col := range b.nums {
		col[i] = 0
	}
	for _, col := range b.refs {
		col[i] = 0
	}
}

// releaseRefs gives back the interned values entry i holds and zeroes them.
func (f *Finder) releaseRefs(b *bucket, i int) {
	for c, col := range b.refs {
		if f.s.refKind[c] == cupid.KindStrings {
			f.lists.release(col[i])
		} else {
			f.strs.release(col[i])
		}
		col[i] = 0
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
	b.hot[i].mmr = e.MMR
	for ai := range f.s.attrs {
		a := &f.s.attrs[ai]
		if a.col < 0 {
			continue
		}
		v := e.Attributes[a.name]
		switch a.kind {
		case cupid.KindNumber:
			b.nums[a.col][i] = v.Number
		case cupid.KindString:
			old := b.refs[a.col][i]
			b.refs[a.col][i] = f.strs.acquireString(v.String)
			f.strs.release(old)
		case cupid.KindStrings:
			old := b.refs[a.col][i]
			b.refs[a.col][i] = f.lists.acquireList(v.Strings)
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
		if b.hot[i].h == h && b.ids[i] == id {
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
	b.hot[i].h = h
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
		s := slotOf(old.hot[i].h, size)
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
		b.hot[j] = old.hot[i]
		for c := range b.nums {
			b.nums[c][j] = old.nums[c][i]
		}
		for c := range b.refs {
			b.refs[c][j] = old.refs[c][i]
		}
	}
}

// entryAt rebuilds the public Entry of dense index i, for ReturnModel.
func (f *Finder) entryAt(b *bucket, i int) Entry {
	e := Entry{MMR: b.hot[i].mmr}
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
			v = cupid.Number(b.nums[a.col][i])
		case a.kind == cupid.KindString:
			v = cupid.String(f.strs.vals[b.refs[a.col][i]].(string))
		default:
			l := f.lists.vals[b.refs[a.col][i]].([]string)
			v = cupid.Strings(append([]string(nil), l...)...)
		}
		e.Attributes[a.name] = v
	}
	return e
}
