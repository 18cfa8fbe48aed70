package engine

import "hash/maphash"

// idTable maps ticket ids to slots for Pool.lookupID. A Go map from string
// to slot would cost about 50 bytes per waiting ticket at a million tickets
// (it holds a copy of every id's header and runs at a load of 7/16 to 7/8)
// and make the collector scan a million string pointers. This table holds no
// pointers: each cell is a hash and a slot, 8 bytes, and the id itself is
// read from the slot's entry, which the pool keeps anyway. It is an open
// addressing table with linear probing, at most three quarters full, so
// about 16 bytes per ticket.
//
// It holds one cell per id, for the slot last inserted under it; the pool
// decides whether that slot is still alive (see Pool.kill).
type idTable struct {
	seed  maphash.Seed
	cells []idCell // empty, or a power of two long
	n     int      // used cells
}

type idCell struct {
	hash uint32 // low bits of the id's hash: the home cell, and a cheap filter
	slot uint32 // slot+1; 0 marks an empty cell
}

func newIDTable(size int) idTable { return newIDTableSeeded(size, maphash.MakeSeed()) }

// newIDTableSeeded is a table whose hash keeps seed, as a rebuilt table
// must: hashes made before the rebuild (excludes.go) stay valid.
func newIDTableSeeded(size int, seed maphash.Seed) idTable {
	t := idTable{seed: seed}
	t.reserve(size)
	return t
}

// reserve sizes the table for n ids without growing.
func (t *idTable) reserve(n int) {
	size := 8
	for size*3 < n*4 {
		size *= 2
	}
	if size > len(t.cells) {
		t.resize(size)
	}
}

func (t *idTable) hash(id string) uint32 { return uint32(t.hash64(id)) }

// hash64 is the id's full hash, which the block-list summaries keep
// (excludes.go).
func (t *idTable) hash64(id string) uint64 { return maphash.String(t.seed, id) }

// find returns the cell holding id (found) or the empty cell where it would
// go. entries supplies the ids of the slots the cells name.
func (t *idTable) find(id string, h uint32, entries []entry) (int, bool) {
	mask := len(t.cells) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		c := t.cells[i]
		if c.slot == 0 {
			return i, false
		}
		if c.hash == h && entries[c.slot-1].id == id {
			return i, true
		}
	}
}

// get returns the slot stored under id.
func (t *idTable) get(id string, entries []entry) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	h := t.hash(id)
	i, ok := t.find(id, h, entries)
	if !ok {
		return 0, false
	}
	return int32(t.cells[i].slot - 1), true
}

// set stores slot under id, replacing the slot stored before.
func (t *idTable) set(id string, slot int32, entries []entry) {
	if (t.n+1)*4 > len(t.cells)*3 {
		t.resize(max(8, 2*len(t.cells)))
	}
	h := t.hash(id)
	i, ok := t.find(id, h, entries)
	if !ok {
		t.n++
	}
	t.cells[i] = idCell{hash: h, slot: uint32(slot) + 1}
}

// deleteIf removes id if it is stored with this slot. The cells after it
// in its run move back (backward-shift deletion), so lookups need no
// tombstones.
func (t *idTable) deleteIf(id string, slot int32, entries []entry) {
	if t.n == 0 {
		return
	}
	i, ok := t.find(id, t.hash(id), entries)
	if !ok || t.cells[i].slot != uint32(slot)+1 {
		return
	}
	mask := len(t.cells) - 1
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		c := t.cells[j]
		if c.slot == 0 {
			break
		}
		// c may fill the hole at i unless its home lies cyclically in
		// (i, j]: then it must stay where a lookup from home finds it.
		home := int(c.hash) & mask
		if (j-home)&mask >= (j-i)&mask {
			t.cells[i] = c
			i = j
		}
	}
	t.cells[i] = idCell{}
	t.n--
}

// resize rehashes into size cells; the stored hashes spare reading the ids.
func (t *idTable) resize(size int) {
	old := t.cells
	t.cells = make([]idCell, size)
	mask := size - 1
	for _, c := range old {
		if c.slot == 0 {
			continue
		}
		i := int(c.hash) & mask
		for t.cells[i].slot != 0 {
			i = (i + 1) & mask
		}
		t.cells[i] = c
	}
}
