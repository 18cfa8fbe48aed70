package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// entry is a waiting ticket as the pool keeps it: the few numbers the hot
// loop compares, with everything rarer behind x. Numeric attributes the
// rules need live in the pool's nums slab (stride p.stride), not here, so a
// 1v1 skill ticket costs one entry and one float.
type entry struct {
	h       *held
	id      string // the ticket's ID, kept here so a pass writing proposals reads no ticket just for it
	pid     string // the player's ID for a solo ticket, for the same reason
	created int64  // CreatedAt in Unix nanoseconds
	seq     uint64
	key     float64 // primary distance attribute (party average)
	size    int32   // players
	alive   bool
	dirty   uint8 // dirtyNone, dirtySelf or dirtyNeighbour
	// newOnly: new_session_only, never backfilled (backfill.go); kept
	// here, in what was padding, so a session's search need not read the
	// ticket's attributes.
	newOnly bool
	x       *extra
}

// held is what the pool keeps of a waiting ticket beyond its entry: what
// rules, quality scores and proposals read. The pool does not keep the
// *cupid.Ticket it was given: a Ticket is 256 bytes, most of them (state,
// request id, reason, key, update time) about the ticket's life rather than
// its match, and a server holding 100,000 waiting tickets pays for every
// byte. The slices and maps are the caller's, shared, never modified.
type held struct {
	players    []cupid.Player
	latencies  map[string]int32
	attributes cupid.Attributes
	expires    int64 // ExpiresAt in Unix nanoseconds; 0 when it has none
}

// hold makes the held part of a ticket.
func hold(t *cupid.Ticket) *held {
	h := &held{players: t.Players, latencies: t.Latencies, attributes: t.Attributes}
	if !t.ExpiresAt.IsZero() {
		h.expires = t.ExpiresAt.UnixNano()
	}
	return h
}

// number reads player i's value of a numeric attribute the pool's check
// has already required.
func (h *held) number(i int, name string) float64 {
	v, _ := lookup(h.attributes, &h.players[i], name)
	return v.Number
}

// fill writes into dst the waiting ticket an entry holds, as the caller
// gave it to the pool but for what the pool does not keep: the request id
// and the update time. Times come back in UTC.
func (p *Pool) fill(dst *cupid.Ticket, e *entry) {
	fillTicket(dst, p.key, e.id, e.created, e.h)
}

func fillTicket(dst *cupid.Ticket, key cupid.QueueKey, id string, created int64, h *held) {
	*dst = cupid.Ticket{
		ID: id, Key: key, Players: h.players, Latencies: h.latencies, Attributes: h.attributes,
		CreatedAt: time.Unix(0, created).UTC(), State: cupid.StateWaiting,
	}
	if h.expires != 0 {
		dst.ExpiresAt = time.Unix(0, h.expires).UTC()
	}
}

// Why an entry must be tried as an anchor at the next Step.
const (
	dirtyNone uint8 = iota
	// dirtySelf: new, returned, relaxed, or the ruleset changed.
	dirtySelf
	// dirtyNeighbour: a newcomer fell into its window; worth a try only
	// while that newcomer is still waiting.
	dirtyNeighbour
)

// extra holds what only some rulesets need: latencies, option values,
// platforms, roles. Strings are interned to small integers per pool.
type extra struct {
	lats    []regLat   // sorted by latency, then region
	allIDs  []uint32   // per "all" option: the id of the value set (0: unset)
	anySets [][]uint32 // per "any" option: sorted value ids; nil: no preference
	uniq    [][]uint32 // per "unique" option: every player's value ids
	eqIDs   []uint32   // per comparison rule between tickets: the value's id
	colls   [][]uint32 // per intersection rule: the values every player has
	plat    uint64     // platforms of the players (bit per platform)
	accept  uint64     // platforms every player accepts
	roles   []uint64   // per player: acceptable roles
	pref    []int8     // per player: first-choice role, -1 none
	// ex summarises the ticket's players and lists for the block-list
	// filters (excludes.go).
	ex   []uint64
	view *ruleset.TicketView // expression view, built at viewAt
	// query is the ticket's compiled ticket_query; nil: it accepts
	// everyone (query.go).
	query  *ruleset.Query
	viewAt int64
}

type regLat struct {
	region uint8
	ms     int32
}

// lookup finds an attribute for a player: the player's own value, else the
// ticket-wide one. AccelByte's match rulesets put options on the ticket and
// skills on players; reading both lets a studio choose. A name may be the
// path of one key of a map of numbers (skills.sword): Attributes.Resolve
// is the one reader of such paths, so every rule reads them alike.
func lookup(ticketAttrs cupid.Attributes, p *cupid.Player, name string) (cupid.Value, bool) {
	if v, ok := p.Attributes.Resolve(name); ok {
		return v, true
	}
	return ticketAttrs.Resolve(name)
}

// number reads a required finite numeric attribute of player i.
func number(t *cupid.Ticket, i int, name, rule string) (float64, error) {
	v, ok := lookup(t.Attributes, &t.Players[i], name)
	if ok && v.Kind == cupid.KindNumber && cupid.Finite(v.Number) {
		return v.Number, nil
	}
	field := fmt.Sprintf("players[%d].attributes.%s", i, name)
	switch {
	case !ok:
		return 0, cupid.Invalid(field, "required by %s", rule)
	case v.Kind != cupid.KindNumber:
		return 0, cupid.Invalid(field, "must be a number (%s)", rule)
	}
	return 0, cupid.Invalid(field, "must be a finite number, not %v", v.Number)
}

// strs reads a string or string-list attribute as a list; ok is false when
// absent. A number is refused.
func strs(t *cupid.Ticket, i int, name string) ([]string, bool, error) {
	v, ok := lookup(t.Attributes, &t.Players[i], name)
	if !ok {
		return nil, false, nil
	}
	switch v.Kind {
	case cupid.KindString:
		return []string{v.String}, true, nil
	case cupid.KindStrings:
		return v.Strings, true, nil
	case cupid.KindNumbers:
		// A map of numbers reads as the list of its keys wherever a list
		// of strings is read: "the maps a player rated" (FlexMatch's
		// collections over a string_number_map).
		keys := make([]string, 0, len(v.Map))
		for k := range v.Map {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys, true, nil
	}
	return nil, true, cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", i, name), "must be a string, a list of strings or a map of numbers (its keys)")
}

// scalarKey renders a string or number attribute as a comparable key.
func scalarKey(v cupid.Value) (string, bool) {
	switch v.Kind {
	case cupid.KindString:
		return "s:" + v.String, true
	case cupid.KindNumber:
		return fmt.Sprintf("n:%v", v.Number), true
	}
	return "", false
}

// extract builds the entry and numeric features of a ticket that passed
// check, interning its strings into the pool's tables.
func (p *Pool) extract(t *cupid.Ticket, e *entry, nums []float64) {
	r := p.r
	n := float64(len(t.Players))
	for di, d := range r.dist {
		s, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for i := range t.Players {
			v, _ := number(t, i, d.attr, "")
			s, lo, hi = s+v, min(lo, v), max(hi, v)
		}
		switch d.party {
		case ruleset.AggregateMin:
			nums[di] = lo
		case ruleset.AggregateMax:
			nums[di] = hi
		default:
			nums[di] = s / n
		}
	}
	if len(r.dist) > 0 {
		e.key = nums[0]
	}
	gate := len(r.dist)
	for _, c := range r.comps {
		if !c.gate || c.isStr {
			continue
		}
		lo, hi := 0.0, 0.0
		for i := range t.Players {
			v, _ := number(t, i, c.attr, "")
			if i == 0 || v < lo {
				lo = v
			}
			if i == 0 || v > hi {
				hi = v
			}
		}
		if c.party != "" {
			// The party passes as one: its aggregate is both bounds.
			lo = partyValue(t, c.attr, c.party)
			hi = lo
		}
		nums[gate], nums[gate+1] = lo, hi
		gate += 2
	}
	for ci, cl := range r.counts {
		n := 0
		for i := range t.Players {
			if vals, _, _ := strs(t, i, cl.Attribute); slices.Contains(vals, cl.Value) {
				n++
			}
		}
		nums[p.countBase+ci] = float64(n)
	}
	if !p.needsExtra {
		return
	}
	x := &extra{}
	e.x = x
	p.summarise(t, x)
	if r.query != nil {
		x.query = p.ticketQuery(t)
	}
	if r.lat != nil {
		// Regions are interned in name order, not the map's, so that
		// region ids (and every tie they break) do not depend on Go's
		// map iteration.
		names := make([]string, 0, len(t.Latencies))
		for region, ms := range t.Latencies {
			if int(ms) <= r.lat.MaxMs {
				names = append(names, region)
			}
		}
		slices.Sort(names)
		for _, region := range names {
			x.lats = append(x.lats, regLat{region: p.region(region), ms: t.Latencies[region]})
		}
		sort.Slice(x.lats, func(i, j int) bool {
			a, b := x.lats[i], x.lats[j]
			return a.ms < b.ms || (a.ms == b.ms && p.regionNames[a.region] < p.regionNames[b.region])
		})
		if r.lat.FastestOnly && len(x.lats) > 1 {
			// region_choice fastest: the ticket plays only where its
			// latency is lowest, so every mask, region choice and
			// explanation sees that one region.
			x.lats = x.lats[:1]
		}
	}
	for _, o := range r.options {
		switch o.kind {
		case optAll:
			vals, ok, _ := strs(t, 0, o.name)
			id := uint32(0)
			if ok {
				id = p.intern("\x00set\x00" + strings.Join(canonicalSet(vals), "\x00"))
			}
			x.allIDs = append(x.allIDs, id)
		case optAny:
			var set []uint32
			have := false
			for i := range t.Players {
				vals, ok, _ := strs(t, i, o.name)
				if !ok {
					continue
				}
				ids := p.internAll(vals)
				if !have {
					set, have = ids, true
				} else {
					set = intersectIDs(set, ids)
				}
			}
			if have && set == nil {
				set = []uint32{}
			}
			x.anySets = append(x.anySets, set)
		case optUnique:
			var ids []uint32
			for i := range t.Players {
				vals, _, _ := strs(t, i, o.name)
				ids = append(ids, p.internAll(vals)...)
			}
			slices.Sort(ids)
			x.uniq = append(x.uniq, ids)
		}
	}
	for _, c := range r.comps {
		if c.gate {
			x.eqIDs = append(x.eqIDs, 0)
			continue
		}
		v, _ := lookup(t.Attributes, &t.Players[0], c.attr)
		k, _ := scalarKey(v)
		x.eqIDs = append(x.eqIDs, p.intern(k))
	}
	for _, c := range r.colls {
		if c.contains {
			x.colls = append(x.colls, nil)
			continue
		}
		var set []uint32
		for i := range t.Players {
			vals, _, _ := strs(t, i, c.attr)
			ids := p.internAll(vals)
			if i == 0 {
				set = ids
			} else {
				set = intersectIDs(set, ids)
			}
		}
		x.colls = append(x.colls, set)
	}
	if c := r.cross; c != nil {
		x.accept = ^uint64(0)
		for i := range t.Players {
			v, _ := lookup(t.Attributes, &t.Players[i], c.Current)
			x.plat |= 1 << p.platform(v.String)
			list, ok, _ := strs(t, i, c.Accepted)
			if !ok {
				list = []string{v.String}
			}
			var m uint64
			for _, s := range list {
				m |= 1 << p.platform(s)
			}
			x.accept &= m
		}
	}
	if rr := r.roles; rr != nil {
		x.roles = make([]uint64, len(t.Players))
		x.pref = make([]int8, len(t.Players))
		for i := range t.Players {
			vals, _, _ := strs(t, i, rr.attr)
			x.pref[i] = -1
			for _, v := range vals {
				if k := slices.Index(rr.names, v); k >= 0 {
					x.roles[i] |= 1 << k
					if x.pref[i] < 0 {
						x.pref[i] = int8(k)
					}
				}
			}
		}
	}
}

// classOf names the tickets e could ever share a match with: those with the
// same "all" options and the same values for "=" comparisons between
// tickets; 0 for all when the ruleset has neither. A Step without a distance
// rule walks only the anchor's class. The name is computed, not stored, so
// that a waiting ticket costs no memory for it: one value's interned id, two
// packed together, more interned as a combination.
func (p *Pool) classOf(e *entry) uint64 {
	x := e.x
	if x == nil || p.classParts == 0 {
		return 0
	}
	var buf [8]uint32
	parts := buf[:0]
	ai := 0
	for _, o := range p.r.options {
		if o.kind == optAll {
			parts = append(parts, x.allIDs[ai])
			ai++
		}
	}
	for i, c := range p.r.comps {
		if !c.gate && c.op == ruleset.OpEqual {
			parts = append(parts, x.eqIDs[i])
		}
	}
	switch len(parts) {
	case 1:
		return uint64(parts[0])
	case 2:
		return uint64(parts[0])<<32 | uint64(parts[1])
	}
	key := make([]byte, 0, 4*len(parts))
	for _, id := range parts {
		key = binary.LittleEndian.AppendUint32(key, id)
	}
	if p.classes == nil {
		p.classes = make(map[string]uint64)
	}
	if id, ok := p.classes[string(key)]; ok {
		return id
	}
	id := uint64(len(p.classes) + 1)
	p.classes[string(key)] = id
	return id
}

// intern maps a string to a small positive id, stable for the pool's life.
func (p *Pool) intern(s string) uint32 {
	if id, ok := p.strIDs[s]; ok {
		return id
	}
	id := uint32(len(p.strIDs) + 1)
	p.strIDs[s] = id
	return id
}

// internAll interns a list and returns its sorted unique ids.
func (p *Pool) internAll(vals []string) []uint32 {
	ids := make([]uint32, 0, len(vals))
	for _, v := range vals {
		ids = append(ids, p.intern(v))
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func (p *Pool) region(name string) uint8 {
	if id, ok := p.regions[name]; ok {
		return id
	}
	id := uint8(len(p.regionNames))
	p.regions[name] = id
	p.regionNames = append(p.regionNames, name)
	return id
}

func (p *Pool) platform(name string) uint8 {
	if id, ok := p.platforms[name]; ok {
		return id
	}
	id := uint8(len(p.platformNames))
	p.platforms[name] = id
	p.platformNames = append(p.platformNames, name)
	return id
}

// intersectIDs intersects two sorted id lists into a new list.
func intersectIDs(a, b []uint32) []uint32 {
	out := []uint32{}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// countCommon counts the ids two sorted lists share.
func countCommon(a, b []uint32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}
