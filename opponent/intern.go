package opponent

import (
	"encoding/binary"
	"slices"
	"strings"
)

// interner stores each distinct string (or string list) once and hands out
// small ids, so an entry keeps 4 bytes per string attribute instead of a
// string header and its own copy. Values are reference counted and freed
// when the last entry holding them leaves, so the table is bounded by what
// the cache holds. Each value is also kept boxed in an interface, ready for
// the quality expression without an allocation per candidate.
//
// Id 0 is the zero value ("" or the empty list) and is never counted.
type interner struct {
	ids  map[string]uint32
	keys []string
	vals []any
	refs []uint32
	free []uint32
	buf  []byte // scratch for list keys
}

func newInterner(zero any) *interner {
	return &interner{
		ids:  make(map[string]uint32),
		keys: []string{""},
		vals: []any{zero},
		refs: []uint32{0},
	}
}

// live is the number of distinct values held.
func (t *interner) live() int { return len(t.ids) }

func (t *interner) add(key string, val any) uint32 {
	var id uint32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.keys[id], t.vals[id], t.refs[id] = key, val, 1
	} else {
		id = uint32(len(t.keys))
		t.keys = append(t.keys, key)
		t.vals = append(t.vals, val)
		t.refs = append(t.refs, 1)
	}
	t.ids[key] = id
	return id
}

// lookup returns the id of a string without counting a holder, or noSID
// when no entry holds it; "" is always id 0.
func (t *interner) lookup(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := t.ids[s]; ok {
		return id
	}
	return noSID
}

// acquireString returns the id of s, counting one more holder.
func (t *interner) acquireString(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := t.ids[s]; ok {
		t.refs[id]++
		return id
	}
	c := strings.Clone(s) // never keep a caller's buffer alive
	return t.add(c, c)
}

// acquireList returns the id of the list, counting one more holder.
func (t *interner) acquireList(l []string) uint32 {
	if len(l) == 0 {
		return 0
	}
	// The key is the items, each prefixed by its length, so no choice of
	// separator can make two lists collide.
	t.buf = t.buf[:0]
	for _, s := range l {
		t.buf = binary.AppendUvarint(t.buf, uint64(len(s)))
		t.buf = append(t.buf, s...)
	}
	if id, ok := t.ids[string(t.buf)]; ok {
		t.refs[id]++
		return id
	}
	c := make([]string, len(l))
	for i, s := range l {
		c[i] = strings.Clone(s)
	}
	return t.add(string(t.buf), slices.Clip(c))
}

// release drops one holder of id, freeing the value with the last.
func (t *interner) release(id uint32) {
	if id == 0 {
		return
	}
	t.refs[id]--
	if t.refs[id] == 0 {
		delete(t.ids, t.keys[id])
		t.keys[id], t.vals[id] = "", nil
		t.free = append(t.free, id)
	}
}
