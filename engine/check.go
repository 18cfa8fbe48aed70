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
