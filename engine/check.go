package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// check validates a ticket against the pool's rules without changing the
// pool: first the ticket's own rules (Ticket.Validate, their one owner),
// then what this pool's ruleset needs of it. Every error is a *cupid.Error
// naming the field.
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
	// The ticket's own rules (ids, sizes, attribute values, latencies)
	// belong to Ticket.Validate; the engine checks what its rules need.
	if err := t.Validate(); err != nil {
		return err
	}
	if len(t.Players) > r.maxParty {
		return cupid.Invalid("players", "a party of %d does not fit a team of at most %d players", len(t.Players), r.maxParty)
	}
	if err := checkReserved(t); err != nil {
		return err
	}
	if err := p.checkVersion(t); err != nil {
		return err
	}
	for i := range t.Players {
		for _, d := range r.dist {
			if err := checkNumber(t, i, d.attr, d.path); err != nil {
				return err
			}
			if err := checkMax(t, i, d); err != nil {
				return err
			}
		}
		for k, tr := range r.teams {
			if err := checkNumber(t, i, tr.Attribute, ruleIndex("team_rule", k)); err != nil {
				return err
			}
		}
		for k, tr := range r.totals {
			if err := checkNumber(t, i, tr.Attribute, ruleIndex("match_total", k)); err != nil {
				return err
			}
		}
	}
	if err := p.checkComparisons(t); err != nil {
		return err
	}
	if err := p.checkTeamComparisons(t); err != nil {
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
	if err := p.checkQuery(t); err != nil {
		return err
	}
	return p.checkLatencies(t)
}

// checkNumber checks a numeric attribute a rule needs. A boolean is never a
// number (true is not 1), and the message says so.
func checkNumber(t *cupid.Ticket, i int, name, rule string) error {
	if v, ok := lookup(t.Attributes, &t.Players[i], name); ok && v.Kind == cupid.KindBool {
		return cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", i, name), "must be a number, not a boolean (%s)", rule)
	}
	_, err := number(t, i, name, rule)
	return err
}

// checkReserved refuses a reserved ticket key of AccelByte's match rulesets
// that holds a kind of value it never holds: new_session_only is true or
// false, not "true" or 1.
func checkReserved(t *cupid.Ticket) error {
	bad := func(field string, a cupid.Attribute) error {
		r, ok := ruleset.Reserved(a.Name)
		if !ok || r.Holds(a.Value.Kind) {
			return nil
		}
		return cupid.Invalid(field+"."+a.Name, "must be %s, not %s: %s is a reserved ticket key",
			r.Kind, ruleset.KindName(a.Value.Kind), a.Name)
	}
	for _, a := range t.Attributes {
		if err := bad("attributes", a); err != nil {
			return err
		}
	}
	for i := range t.Players {
		for _, a := range t.Players[i].Attributes {
			if err := bad(fmt.Sprintf("players[%d].attributes", i), a); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkVersion enforces client_version, the reserved key of AccelByte's match
// rulesets: the server splits pools by it, putting it in QueueKey.Version, so
// a ticket whose client_version attribute differs from its own key's version
// would land among clients it cannot play with.
func (p *Pool) checkVersion(t *cupid.Ticket) error {
	for i := range t.Players {
		v, ok := lookup(t.Attributes, &t.Players[i], ruleset.KeyClientVersion)
		if !ok {
			continue
		}
		if v.Kind != cupid.KindString || v.String != t.Key.Version {
			field := "attributes." + ruleset.KeyClientVersion
			if _, own := t.Players[i].Attributes.Get(ruleset.KeyClientVersion); own {
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
			v, ok := lookup(t.Attributes, &t.Players[i], c.attr)
			if !ok {
				return cupid.Invalid(field, "required by %s", c.path)
			}
			if v.Kind == cupid.KindBool {
				need := "a string or a number"
				switch {
				case c.gate && c.isStr:
					need = "a string"
				case c.gate:
					need = "a number"
				}
				return cupid.Invalid(field, "must be %s, not a boolean (%s)", need, c.path)
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
				if c.party != "" {
					// The party passes as one, once every player's
					// value is read.
					if i == len(t.Players)-1 {
						if agg := partyValue(t, c.attr, c.party); !compareNum(agg, c.op, last.compNum[ci]) {
							return cupid.Invalid(fmt.Sprintf("attributes.%s", c.attr), "the party's %s %v is not %s %v even after every relaxation (%s)", c.party, agg, c.op, last.compNum[ci], c.path)
						}
					}
					continue
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
		if o.kind == optAny {
			if err := checkAnyOption(t, o); err != nil {
				return err
			}
			continue
		}
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

// checkAnyOption enforces AccelByte's "any": players are matched only with
// others who have the same option and at least one value in common. A
// ticket without the option, or with no value, can match no ticket (not
// even one without it either), and a party's players must have a value in
// common themselves, since the party plays as one.
func checkAnyOption(t *cupid.Ticket, o optionRule) error {
	_, wide := t.Attributes.Get(o.name)
	var common []string
	for i := range t.Players {
		field := fmt.Sprintf("players[%d].attributes.%s", i, o.name)
		if _, own := t.Players[i].Attributes.Get(o.name); !own && (wide || i == 0) {
			// The value is (or would be) the ticket's own.
			field = "attributes." + o.name
		}
		vals, ok, err := strs(t, i, o.name)
		switch {
		case err != nil:
			return err
		case !ok:
			return cupid.Invalid(field, "required: %s is \"any\", so a ticket matches only tickets that share one of its values", o.path)
		case len(vals) == 0:
			return cupid.Invalid(field, "must list at least one value: %s is \"any\", so a ticket matches only tickets that share one of its values", o.path)
		}
		if i == 0 {
			common = canonicalSet(vals)
		} else {
			common = intersectStrings(common, vals)
		}
	}
	if len(common) == 0 {
		return cupid.Invalid("players", "the party's players share no value of %s, so it could never match (%s is \"any\")", o.name, o.path)
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
	return p.checkPartyRoles(t)
}

// maxCheckedRoles bounds the role sets checkPartyRoles walks (2^n of them).
const maxCheckedRoles = 12

// checkPartyRoles refuses a party that could never be staffed on one team
// (a party plays on one team): for some set of roles, more of its players
// accept only roles of that set than one team has slots for them, at the
// largest team the ruleset ever allows — two players who only tank under
// "at most one tank a team". Such a ticket would wait its whole time to
// live; better to say so now.
func (p *Pool) checkPartyRoles(t *cupid.Ticket) error {
	rr := p.r.roles
	nr := len(rr.names)
	if len(t.Players) < 2 || nr > maxCheckedRoles {
		return nil
	}
	masks := make([]uint64, len(t.Players))
	for i := range t.Players {
		vals, _, _ := strs(t, i, rr.attr)
		for _, v := range vals {
			if r := slices.Index(rr.names, v); r >= 0 {
				masks[i] |= 1 << r
			}
		}
	}
	for set := uint64(1); set < 1<<nr; set++ {
		players := 0
		for _, m := range masks {
			if m&^set == 0 {
				players++
			}
		}
		slots := 0
		for r := 0; r < nr; r++ {
			if set&(1<<r) == 0 {
				continue
			}
			if m := rr.max[r]; m >= 0 {
				slots += m
			} else {
				slots += p.r.maxParty
			}
		}
		if players > slots {
			var names []string
			for r := 0; r < nr; r++ {
				if set&(1<<r) != 0 {
					names = append(names, rr.names[r])
				}
			}
			return cupid.Invalid("players", "the party could never be staffed on one team: %d of its players accept only %s, and a team holds at most %d of them", players, strings.Join(names, " or "), slots)
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
		v, ok := lookup(t.Attributes, &t.Players[i], c.Current)
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
