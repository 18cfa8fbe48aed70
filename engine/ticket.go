package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// entry is a waiting ticket as the pool keeps it: the few numbers the hot
// loop compares, with everything rarer behind x. Numeric attributes the
// rules need live in the pool's nums slab (stride p.stride), not here, so a
// 1v1 skill ticket costs one entry and one float.
type entry struct {
	t       *cupid.Ticket
	id      string // t.ID, kept here so a pass writing proposals reads no ticket just for it
	pid     string // the player's ID for a solo ticket, for the same reason
	created int64  // t.CreatedAt in Unix nanoseconds
	seq     uint64
	key     float64 // primary distance attribute (party average)
	size    int32   // players
	slot    int32   // the entry's own index in Pool.entries
	alive   bool
	dirty   uint8 // dirtyNone, dirtySelf or dirtyNeighbour
	x       *extra
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
	lats    []regLat            // sorted by latency, then region
	allIDs  []uint32            // per "all" option: the id of the value set (0: unset)
	anySets [][]uint32          // per "any" option: sorted value ids; nil: no preference
	uniq    [][]uint32          // per "unique" option: every player's value ids
	eqIDs   []uint32            // per comparison rule between tickets: the value's id
	colls   [][]uint32          // per intersection rule: the values every player has
	plat    uint64              // platforms of the players (bit per platform)
	accept  uint64              // platforms every player accepts
	roles   []uint64            // per player: acceptable roles
	pref    []int8              // per player: first-choice role, -1 none
	view    *ruleset.TicketView // expression view, built at viewAt
	viewAt  int64
}

type regLat struct {
	region uint8
	ms     int32
}

// lookup finds an attribute for a player: the player's own value, else the
// ticket-wide one. Seed 003 puts options on the ticket and skills on players;
// reading both lets a studio choose.
func lookup(t *cupid.Ticket, p *cupid.Player, name string) (cupid.Value, bool) {
	if v, ok := p.Attributes[name]; ok {
		return v, true
	}
	v, ok := t.Attributes[name]
	return v, ok
}

// number reads a required finite numeric attribute of player i.
func number(t *cupid.Ticket, i int, name, rule string) (float64, error) {
	v, ok := lookup(t, &t.Players[i], name)
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
	v, ok := lookup(t, &t.Players[i], name)
	if !ok {
		return nil, false, nil
	}
	switch v.Kind {
	case cupid.KindString:
		return []string{v.String}, true, nil
	case cupid.KindStrings:
		return v.Strings, true, nil
	}
	return nil, true, cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", i, name), "must be a string or a list of strings")
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

// check validates a ticket against the pool's rules without changing the
// pool. Every error is a *cupid.Error naming the field.
func (p *Pool) check(t *cupid.Ticket) error {
	r := p.r
	if t == nil {
		return cupid.Invalid("", "no ticket")
	}
	if t.ID == "" {
		return cupid.Invalid("id", "required")
	}
	if t.Key.Queue != p.key.Queue {
		return cupid.Invalid("key.queue", "ticket is for queue %q, this pool serves %q", t.Key.Queue, p.key.Queue)
	}
	if len(t.Players) == 0 {
		return cupid.Invalid("players", "at least one player is required")
	}
	if len(t.Players) > r.maxParty {
		return cupid.Invalid("players", "a party of %d does not fit a team of at most %d players", len(t.Players), r.maxParty)
	}
	seen := make(map[string]bool, len(t.Players))
	for i, pl := range t.Players {
		if pl.ID == "" {
			return cupid.Invalid(fmt.Sprintf("players[%d].id", i), "required")
		}
		if seen[pl.ID] {
			return cupid.Invalid(fmt.Sprintf("players[%d].id", i), "player %q appears twice", pl.ID)
		}
		seen[pl.ID] = true
	}
	if err := p.checkVersion(t); err != nil {
		return err
	}
	for i := range t.Players {
		for _, d := range r.dist {
			if _, err := number(t, i, d.attr, d.path); err != nil {
				return err
			}
		}
		for k, tr := range r.teams {
			if _, err := number(t, i, tr.Attribute, ruleIndex("team_rule", k)); err != nil {
				return err
			}
		}
		for k, tr := range r.totals {
			if _, err := number(t, i, tr.Attribute, ruleIndex("match_total", k)); err != nil {
				return err
			}
		}
	}
	if err := p.checkComparisons(t); err != nil {
		return err
	}
	if err := p.checkOptions(t); err != nil {
		return err
	}
	if err := p.checkCollections(t); err != nil {
		return err
	}
	if err := p.checkRoles(t); err != nil {
		return err
	}
	if err := p.checkCross(t); err != nil {
		return err
	}
	return p.checkLatencies(t)
}

// checkVersion enforces seed 003's client_version: the server splits pools by
// it, putting it in QueueKey.Version, so a ticket whose client_version
// attribute differs from its own key's version would land among clients it
// cannot play with.
func (p *Pool) checkVersion(t *cupid.Ticket) error {
	for i := range t.Players {
		v, ok := lookup(t, &t.Players[i], ruleset.KeyClientVersion)
		if !ok {
			continue
		}
		if v.Kind != cupid.KindString || v.String != t.Key.Version {
			field := "attributes." + ruleset.KeyClientVersion
			if _, own := t.Players[i].Attributes[ruleset.KeyClientVersion]; own {
				field = fmt.Sprintf("players[%d].%s", i, field)
			}
			return cupid.Invalid(field, "is %q but the ticket's key has version %q: the server must put client_version in QueueKey.Version", v.String, t.Key.Version)
		}
	}
	return nil
}

func (p *Pool) checkComparisons(t *cupid.Ticket) error {
	last := &p.r.envs[len(p.r.envs)-1]
	for ci, c := range p.r.comps {
		var first string
		for i := range t.Players {
			field := fmt.Sprintf("players[%d].attributes.%s", i, c.attr)
			v, ok := lookup(t, &t.Players[i], c.attr)
			if !ok {
				return cupid.Invalid(field, "required by %s", c.path)
			}
			switch {
			case c.gate && c.isStr:
				if v.Kind != cupid.KindString {
					return cupid.Invalid(field, "must be a string (%s)", c.path)
				}
				if (v.String == c.strVal) != (c.op == ruleset.OpEqual) {
					return cupid.Invalid(field, "%q is not %s %q (%s)", v.String, c.op, c.strVal, c.path)
				}
			case c.gate:
				if v.Kind != cupid.KindNumber || !cupid.Finite(v.Number) {
					return cupid.Invalid(field, "must be a finite number (%s)", c.path)
				}
				if !compareNum(v.Number, c.op, last.compNum[ci]) {
					return cupid.Invalid(field, "%v is not %s %v even after every relaxation (%s)", v.Number, c.op, last.compNum[ci], c.path)
				}
			default:
				k, ok := scalarKey(v)
				if !ok {
					return cupid.Invalid(field, "must be a string or a number (%s)", c.path)
				}
				if c.op == ruleset.OpEqual {
					if i > 0 && k != first {
						return cupid.Invalid(field, "players of one party must agree on %s (%s)", c.attr, c.path)
					}
					first = k
				}
			}
		}
	}
	return nil
}

func compareNum(v float64, op string, ref float64) bool {
	switch op {
	case ruleset.OpLess:
		return v < ref
	case ruleset.OpLessEqual:
		return v <= ref
	case ruleset.OpEqual:
		return v == ref
	case ruleset.OpNotEqual:
		return v != ref
	case ruleset.OpGreaterEqual:
		return v >= ref
	case ruleset.OpGreater:
		return v > ref
	}
	return false
}

func (p *Pool) checkOptions(t *cupid.Ticket) error {
	for _, o := range p.r.options {
		var firstSet []string
		var used []string
		for i := range t.Players {
			field := fmt.Sprintf("players[%d].attributes.%s", i, o.name)
			vals, ok, err := strs(t, i, o.name)
			if err != nil {
				return err
			}
			switch o.kind {
			case optAll:
				set := canonicalSet(vals)
				if i > 0 && !slices.Equal(set, firstSet) {
					return cupid.Invalid(field, "players of one party must choose the same %s (%s is \"all\")", o.name, o.path)
				}
				firstSet = set
			case optUnique:
				if !ok || len(vals) == 0 {
					return cupid.Invalid(field, "required: %s is \"unique\", every player needs a value", o.path)
				}
				for _, v := range vals {
					if slices.Contains(used, v) {
						return cupid.Invalid(field, "%q is already taken by another player of the party (%s is \"unique\")", v, o.path)
					}
					used = append(used, v)
				}
			}
		}
	}
	return nil
}

func canonicalSet(vals []string) []string {
	out := slices.Clone(vals)
	sort.Strings(out)
	return slices.Compact(out)
}

func (p *Pool) checkCollections(t *cupid.Ticket) error {
	last := &p.r.envs[len(p.r.envs)-1]
	for ci, c := range p.r.colls {
		common := []string(nil)
		for i := range t.Players {
			field := fmt.Sprintf("players[%d].attributes.%s", i, c.attr)
			vals, ok, err := strs(t, i, c.attr)
			if err != nil {
				return err
			}
			if c.contains {
				if !slices.Contains(vals, c.value) {
					return cupid.Invalid(field, "must contain %q (%s)", c.value, c.path)
				}
				continue
			}
			if !ok {
				if last.collMin[ci] > 0 {
					return cupid.Invalid(field, "required by %s", c.path)
				}
				continue
			}
			set := canonicalSet(vals)
			if i == 0 {
				common = set
			} else {
				common = intersectStrings(common, set)
			}
		}
		if !c.contains && len(common) < last.collMin[ci] {
			return cupid.Invalid("players", "the party shares %d values of %s, %s needs %d", len(common), c.attr, c.path, last.collMin[ci])
		}
	}
	return nil
}

func intersectStrings(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func (p *Pool) checkRoles(t *cupid.Ticket) error {
	rr := p.r.roles
	if rr == nil {
		return nil
	}
	for i := range t.Players {
		field := fmt.Sprintf("players[%d].attributes.%s", i, rr.attr)
		vals, ok, err := strs(t, i, rr.attr)
		if err != nil {
			return err
		}
		if !ok || len(vals) == 0 {
			return cupid.Invalid(field, "required by roles (one of %s)", strings.Join(rr.names, ", "))
		}
		known := false
		for _, v := range vals {
			if slices.Contains(rr.names, v) {
				known = true
			}
		}
		if !known {
			return cupid.Invalid(field, "none of %v is a role of this queue (%s)", vals, strings.Join(rr.names, ", "))
		}
	}
	return nil
}

func (p *Pool) checkCross(t *cupid.Ticket) error {
	c := p.r.cross
	if c == nil {
		return nil
	}
	cur := make([]string, len(t.Players))
	acc := make([][]string, len(t.Players))
	for i := range t.Players {
		field := fmt.Sprintf("players[%d].attributes.%s", i, c.Current)
		v, ok := lookup(t, &t.Players[i], c.Current)
		if !ok {
			return cupid.Invalid(field, "required by cross_play (the player's own platform)")
		}
		if v.Kind != cupid.KindString || v.String == "" {
			return cupid.Invalid(field, "must be a platform name (cross_play)")
		}
		cur[i] = v.String
		list, ok, err := strs(t, i, c.Accepted)
		if err != nil {
			return err
		}
		if !ok {
			list = []string{v.String}
		}
		acc[i] = list
	}
	for i := range cur {
		for j := range cur {
			if !slices.Contains(acc[j], cur[i]) {
				return cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", j, c.Accepted), "the party's own platform %q is not accepted", cur[i])
			}
		}
	}
	if len(p.platformsAfter(cur, acc)) > 64 {
		return cupid.Invalid("players", "more than 64 distinct platforms in one queue")
	}
	return nil
}

// platformsAfter lists the platforms the pool would know after adding a
// ticket's; only the new ones are collected, so the usual case is cheap.
func (p *Pool) platformsAfter(cur []string, acc [][]string) []string {
	var extra []string
	note := func(s string) {
		if _, ok := p.platforms[s]; !ok && !slices.Contains(extra, s) {
			extra = append(extra, s)
		}
	}
	for _, s := range cur {
		note(s)
	}
	for _, l := range acc {
		for _, s := range l {
			note(s)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	return append(extra, p.platformNames...)
}

func (p *Pool) checkLatencies(t *cupid.Ticket) error {
	l := p.r.lat
	for region, ms := range t.Latencies {
		if region == "" {
			return cupid.Invalid("latencies", "a region name is empty")
		}
		if ms < 0 {
			return cupid.Invalid("latencies."+region, "must not be negative")
		}
	}
	if l == nil {
		return nil
	}
	if len(t.Latencies) == 0 {
		return cupid.Invalid("latencies", "required: the queue matches by region latency")
	}
	best := int32(-1)
	newRegions := 0
	for region, ms := range t.Latencies {
		if best < 0 || ms < best {
			best = ms
		}
		if _, ok := p.regions[region]; !ok && int(ms) <= l.MaxMs {
			newRegions++
		}
	}
	if int(best) > l.MaxMs {
		return cupid.Invalid("latencies", "every region is above region_latency_max_ms (%d ms; best is %d ms), so the ticket could never match", l.MaxMs, best)
	}
	if len(p.regionNames)+newRegions > 64 {
		return cupid.Invalid("latencies", "more than 64 distinct regions in one queue")
	}
	return nil
}

// extract builds the entry and numeric features of a ticket that passed
// check, interning its strings into the pool's tables.
func (p *Pool) extract(t *cupid.Ticket, e *entry, nums []float64) {
	r := p.r
	n := float64(len(t.Players))
	for di, d := range r.dist {
		s := 0.0
		for i := range t.Players {
			v, _ := number(t, i, d.attr, "")
			s += v
		}
		nums[di] = s / n
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
		nums[gate], nums[gate+1] = lo, hi
		gate += 2
	}
	if !p.needsExtra {
		return
	}
	x := &extra{}
	e.x = x
	if r.lat != nil {
		for region, ms := range t.Latencies {
			if int(ms) > r.lat.MaxMs {
				continue
			}
			x.lats = append(x.lats, regLat{region: p.region(region), ms: ms})
		}
		sort.Slice(x.lats, func(i, j int) bool {
			a, b := x.lats[i], x.lats[j]
			return a.ms < b.ms || (a.ms == b.ms && p.regionNames[a.region] < p.regionNames[b.region])
		})
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
		v, _ := lookup(t, &t.Players[0], c.attr)
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
			v, _ := lookup(t, &t.Players[i], c.Current)
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
