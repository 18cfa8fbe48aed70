package engine

import (
	"slices"
	"sort"
)

// index keeps waiting tickets sorted by the primary distance attribute (the
// first matching rule), so an anchor finds its nearest candidates by binary
// search and a walk outward instead of a scan of the whole pool. It is a list
// of sorted chunks: inserting costs a chunk's worth of copying rather than
// the whole pool's, and a pass can read long runs of keys contiguously.
//
// Entries are (key, slot) pairs ordered by key then slot. Removed tickets
// stay in the index until the pool compacts (pool.go); readers skip them —
// by the slot's sign when the entry was buried (negative), else by the
// pool's alive flag.
type index struct {
	chunks []ichunk
	// lastKey and lastSlot mirror each chunk's last entry, so the binary
	// search over chunks reads one contiguous array instead of touching
	// every chunk it passes.
	lastKey  []float64
	lastSlot []int32
	n        int
	// pos maps a ticket's rank (its place in the pool's oldest-first
	// order during a full pass) to its position (chunk, offset) while
	// posValid: such a pass fills it once and then finds each anchor, in
	// rank order, reading the table from front to back instead of
	// searching, and marks matched tickets in place (bury). Any insert
	// invalidates it.
	pos      [][2]int32
	posValid bool
	// lastFound is where the last around call found its entry.
	lastFound ipos
}

type ichunk struct {
	keys  []float64
	slots []int32
}

// Chunk sizes: a chunk splits when it outgrows maxChunk; bulk builds fill
// chunks to chunkFill.
const (
	chunkFill = 512
	maxChunk  = 1024
)

// ipos is a position in the index: chunk and offset.
type ipos struct{ c, i int }

func less(k1 float64, s1 int32, k2 float64, s2 int32) bool {
	return k1 < k2 || (k1 == k2 && s1 < s2)
}

// search returns the first position whose entry is not less than (k, s).
// Hand-written binary searches (no closures) over the contiguous chunk
// maxima, then over the chunk's keys: this runs once per anchor.
func (x *index) search(k float64, s int32) ipos {
	lo, hi := 0, len(x.lastKey)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if less(x.lastKey[m], x.lastSlot[m], k, s) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(x.chunks) {
		return ipos{lo, 0}
	}
	ch := &x.chunks[lo]
	keys := ch.keys
	i, j := 0, len(keys)
	for i < j {
		m := int(uint(i+j) >> 1)
		if keys[m] < k {
			i = m + 1
		} else {
			j = m
		}
	}
	for i < len(keys) && keys[i] == k && ch.slots[i] < s {
		i++
	}
	return ipos{lo, i}
}

// insert adds one entry.
func (x *index) insert(k float64, s int32) {
	x.n++
	x.posValid = false
	if len(x.chunks) == 0 {
		x.chunks = append(x.chunks, ichunk{keys: []float64{k}, slots: []int32{s}})
		x.lastKey, x.lastSlot = append(x.lastKey[:0], k), append(x.lastSlot[:0], s)
		return
	}
	p := x.search(k, s)
	if p.c == len(x.chunks) {
		p = ipos{p.c - 1, len(x.chunks[p.c-1].keys)}
	}
	ch := &x.chunks[p.c]
	ch.keys = slices.Insert(ch.keys, p.i, k)
	ch.slots = slices.Insert(ch.slots, p.i, s)
	if len(ch.keys) > maxChunk {
		half := len(ch.keys) / 2
		right := ichunk{
			keys:  append([]float64(nil), ch.keys[half:]...),
			slots: append([]int32(nil), ch.slots[half:]...),
		}
		ch.keys = ch.keys[:half:half]
		ch.slots = ch.slots[:half:half]
		x.chunks = slices.Insert(x.chunks, p.c+1, right)
		x.lastKey = slices.Insert(x.lastKey, p.c+1, 0)
		x.lastSlot = slices.Insert(x.lastSlot, p.c+1, 0)
		x.setLast(p.c + 1)
	}
	x.setLast(p.c)
}

// setLast refreshes the mirror of chunk c's last entry.
func (x *index) setLast(c int) {
	ch := &x.chunks[c]
	x.lastKey[c], x.lastSlot[c] = ch.keys[len(ch.keys)-1], ch.slots[len(ch.slots)-1]
}

// rebuild replaces the index with the given entries, which must be sorted.
func (x *index) rebuild(keys []float64, slots []int32) {
	x.posValid = false
	x.chunks = x.chunks[:0]
	x.lastKey, x.lastSlot = x.lastKey[:0], x.lastSlot[:0]
	x.n = len(keys)
	for i := 0; i < len(keys); i += chunkFill {
		j := min(i+chunkFill, len(keys))
		// Exact capacity: a chunk costs 12 bytes per entry rather than
		// 24, and the first insert into it grows it as append does.
		x.chunks = append(x.chunks, ichunk{keys: slices.Clone(keys[i:j]), slots: slices.Clone(slots[i:j])})
		x.lastKey = append(x.lastKey, keys[j-1])
		x.lastSlot = append(x.lastSlot, slots[j-1])
	}
}

// all returns every entry in order.
func (x *index) all() ([]float64, []int32) {
	keys := make([]float64, 0, x.n)
	slots := make([]int32, 0, x.n)
	for _, ch := range x.chunks {
		keys = append(keys, ch.keys...)
		slots = append(slots, ch.slots...)
	}
	return keys, slots
}

// merge adds many entries at once (a bulk load or a reload after restart):
// one sort of the newcomers and one merge, instead of one insert each.
func (x *index) merge(keys []float64, slots []int32) {
	type kv struct {
		k float64
		s int32
	}
	add := make([]kv, len(keys))
	for i := range keys {
		add[i] = kv{keys[i], slots[i]}
	}
	sort.Slice(add, func(i, j int) bool { return less(add[i].k, add[i].s, add[j].k, add[j].s) })
	oldK, oldS := x.all()
	outK := make([]float64, 0, len(oldK)+len(add))
	outS := make([]int32, 0, len(oldK)+len(add))
	i, j := 0, 0
	for i < len(oldK) || j < len(add) {
		if j == len(add) || (i < len(oldK) && less(oldK[i], oldS[i], add[j].k, add[j].s)) {
			outK, outS = append(outK, oldK[i]), append(outS, oldS[i])
			i++
		} else {
			outK, outS = append(outK, add[j].k), append(outS, add[j].s)
			j++
		}
	}
	x.rebuild(outK, outS)
}

// filter drops the entries for which keep is false (compaction) and
// repacks the rest into full chunks. The survivors go straight into new
// chunks, with no flat copy of the whole index in between: a pass that
// matches most of a large pool filters it several times.
func (x *index) filter(keep func(slot int32) bool) {
	old := x.chunks
	x.chunks = make([]ichunk, 0, len(old))
	x.lastKey, x.lastSlot = x.lastKey[:0], x.lastSlot[:0]
	x.posValid = false
	x.n = 0
	var cur ichunk
	for _, ch := range old {
		for i, s := range ch.slots {
			if !keep(s) {
				continue
			}
			if cur.keys == nil {
				cur = ichunk{keys: make([]float64, 0, chunkFill), slots: make([]int32, 0, chunkFill)}
			}
			cur.keys = append(cur.keys, ch.keys[i])
			cur.slots = append(cur.slots, s)
			if len(cur.keys) == chunkFill {
				x.addChunk(cur)
				cur = ichunk{}
			}
		}
	}
	if len(cur.keys) > 0 {
		x.addChunk(cur)
	}
}

// addChunk appends a full or final chunk during filter.
func (x *index) addChunk(ch ichunk) {
	x.chunks = append(x.chunks, ch)
	x.lastKey = append(x.lastKey, ch.keys[len(ch.keys)-1])
	x.lastSlot = append(x.lastSlot, ch.slots[len(ch.slots)-1])
	x.n += len(ch.keys)
}

// cursor walks the index in one direction from a position.
type cursor struct {
	x    *index
	p    ipos
	down bool
	// at is the position of the entry next returned last.
	at ipos
}

// next returns the entry under the cursor and moves it; ok is false at the
// end of the index.
func (c *cursor) next() (k float64, s int32, ok bool) {
	x := c.x
	if c.down {
		for c.p.c >= 0 && c.p.i < 0 {
			c.p.c--
			if c.p.c >= 0 {
				c.p.i = len(x.chunks[c.p.c].keys) - 1
			}
		}
		if c.p.c < 0 {
			return 0, 0, false
		}
		ch := &x.chunks[c.p.c]
		k, s = ch.keys[c.p.i], ch.slots[c.p.i]
		c.at = c.p
		c.p.i--
		return k, s, true
	}
	for c.p.c < len(x.chunks) && c.p.i >= len(x.chunks[c.p.c].keys) {
		c.p.c++
		c.p.i = 0
	}
	if c.p.c >= len(x.chunks) {
		return 0, 0, false
	}
	ch := &x.chunks[c.p.c]
	k, s = ch.keys[c.p.i], ch.slots[c.p.i]
	c.at = c.p
	c.p.i++
	return k, s, true
}

// peek returns the key under the cursor without moving it.
func (c *cursor) peek() (float64, int32, bool) {
	saved := c.p
	k, s, ok := c.next()
	c.p = saved
	return k, s, ok
}

// locate fills the rank→position table for n ranks; rank maps slots to
// ranks.
func (x *index) locate(rank []int32, n int) {
	if cap(x.pos) < n {
		x.pos = make([][2]int32, n)
	}
	x.pos = x.pos[:n]
	for c := range x.chunks {
		for i, s := range x.chunks[c].slots {
			if s >= 0 {
				x.pos[rank[s]] = [2]int32{int32(c), int32(i)}
			}
		}
	}
	x.posValid = true
}

// located returns the position the table holds for rank r (nowhere when
// the table is not valid).
func (x *index) located(r int32) ipos {
	if !x.posValid || int(r) >= len(x.pos) {
		return nowhere
	}
	return ipos{int(x.pos[r][0]), int(x.pos[r][1])}
}

// bury marks slot s removed in place, when its position is known (at, from
// the walk that found it or the position table): walks then skip it
// without reading the pool's entry. A buried entry's slot is stored as ^s
// (negative); the next filter drops it. It reports whether s was found
// there.
func (x *index) bury(s int32, at ipos) bool { return x.buryAt(s, at) }

func (x *index) buryAt(s int32, at ipos) bool {
	c, i := at.c, at.i
	if c >= 0 && c < len(x.chunks) && i >= 0 && i < len(x.chunks[c].slots) && x.chunks[c].slots[i] == s {
		x.chunks[c].slots[i] = ^s
		return true
	}
	return false
}

// unbury makes slot s's entry under key k live again after the ticket came
// back in the middle of a pass (pool.revive). A buried entry (^s) is restored
// in place, so no position moves. It reports what it found: 2 a buried
// entry, 1 a live one (the ticket's removal could not bury it), 0 nothing
// (a filter dropped it; the caller inserts it again).
func (x *index) unbury(k float64, s int32) int {
	// Keys alone decide the chunk: among equal keys buried entries do not
	// keep the slot order, which search relies on.
	c := sort.Search(len(x.lastKey), func(i int) bool { return x.lastKey[i] >= k })
	for ; c < len(x.chunks); c++ {
		ch := &x.chunks[c]
		i := sort.SearchFloat64s(ch.keys, k)
		for ; i < len(ch.keys) && ch.keys[i] == k; i++ {
			switch ch.slots[i] {
			case ^s:
				ch.slots[i] = s
				x.setLast(c)
				return 2
			case s:
				return 1
			}
		}
		if i < len(ch.keys) {
			break
		}
	}
	return 0
}

// find returns the position of (k, s): hint when it holds s, else by
// search.
func (x *index) find(k float64, s int32, hint ipos) ipos {
	if c, i := hint.c, hint.i; c >= 0 && c < len(x.chunks) && i >= 0 && i < len(x.chunks[c].slots) && x.chunks[c].slots[i] == s {
		return hint
	}
	return x.search(k, s)
}

// around returns two cursors starting next to (k, s): one walking down from
// just below it, one walking up from just above it. (k, s) itself is skipped
// when present.
func (x *index) around(k float64, s int32) (down, up cursor) {
	return x.aroundAt(k, s, nowhere)
}

// aroundAt is around for an entry probably at hint.
func (x *index) aroundAt(k float64, s int32, hint ipos) (down, up cursor) {
	p := x.find(k, s, hint)
	x.lastFound = p
	up = cursor{x: x, p: p}
	if uk, us, ok := up.peek(); ok && uk == k && us == s {
		up.next()
	}
	dp := p
	dp.i--
	down = cursor{x: x, p: dp, down: true}
	return down, up
}
