package importer

import (
	"fmt"
	"strconv"
	"strings"
)

// FlexMatch rules name what they measure with property expressions:
// teams[red].players.attributes[skill], avg(teams[*].players.attributes[skill]),
// flatten(teams[*].players[playerId]), count(teams[blue].players) … This file
// reads them into prop and writes the Cupid match-filter expression (expr-lang)
// that computes the same value, for rules no native Cupid rule expresses.

// prop is a parsed property expression.
type prop struct {
	// fns are the functions applied, outermost first: avg, min, max, sum,
	// count, flatten.
	fns []string
	// team is the team named, or "*" for every team.
	team string
	// attr is the player attribute read, as a Cupid rule names it; empty
	// with ids or a bare count. For one key of a map attribute
	// (attributes[skills][sword]) it is the path "skills.sword", and mapName
	// and key hold its two parts.
	attr         string
	mapName, key string
	// ids: the expression reads player ids (players[playerId]).
	ids bool
}

// literal is what a referenceValue may also be: a plain number or string.
type literal struct {
	isNum bool
	num   float64
	str   string
}

func parseProp(s string) (prop, error) {
	s = strings.TrimSpace(s)
	var p prop
	for {
		open := strings.IndexByte(s, '(')
		if open < 0 || !strings.HasSuffix(s, ")") {
			break
		}
		fn := strings.TrimSpace(s[:open])
		switch fn {
		case "avg", "min", "max", "sum", "count", "flatten":
		default:
			return prop{}, fmt.Errorf("function %q is not one Cupid reads (avg, min, max, sum, count, flatten)", fn)
		}
		p.fns = append(p.fns, fn)
		s = strings.TrimSpace(s[open+1 : len(s)-1])
	}
	rest, ok := strings.CutPrefix(s, "teams[")
	if !ok {
		return prop{}, fmt.Errorf("%q does not start with teams[…]", s)
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return prop{}, fmt.Errorf("teams[ is never closed")
	}
	p.team = strings.TrimSpace(rest[:end])
	rest = rest[end+1:]
	rest, ok = strings.CutPrefix(rest, ".players")
	if !ok {
		return prop{}, fmt.Errorf("expected .players after teams[%s]", p.team)
	}
	switch {
	case rest == "":
		// count(teams[x].players)
		if len(p.fns) == 0 || p.fns[len(p.fns)-1] != "count" {
			return prop{}, fmt.Errorf("teams[%s].players is only read through count(…)", p.team)
		}
	case rest == "[playerId]":
		p.ids = true
	case strings.HasPrefix(rest, ".attributes[") && strings.HasSuffix(rest, "]"):
		p.attr = strings.TrimSpace(rest[len(".attributes[") : len(rest)-1])
		// attributes[skills][sword]: one key of a map attribute, which
		// Cupid's rules read by the path skills.sword.
		if name, key, ok := strings.Cut(p.attr, "]["); ok {
			p.mapName, p.key = strings.TrimSpace(name), strings.TrimSpace(key)
			if p.mapName == "" || p.key == "" || strings.ContainsAny(p.mapName+p.key, "[]") {
				return prop{}, fmt.Errorf("cannot read attributes[%s]: a map attribute is read one key at a time, attributes[name][key]", p.attr)
			}
			p.attr = p.mapName + "." + p.key
		} else if strings.ContainsAny(p.attr, "[]") {
			return prop{}, fmt.Errorf("cannot read attributes[%s]", p.attr)
		}
	default:
		return prop{}, fmt.Errorf("cannot read %q", rest)
	}
	return p, nil
}

// shape returns the outermost aggregate (avg, min, max, sum), ignoring
// flatten and count, and whether the expression flattens the teams into one
// list first.
func (p prop) shape() (agg string, flat bool) {
	for _, f := range p.fns {
		switch f {
		case "flatten":
			flat = true
		case "count":
			// count(teams[*].players) is a per-team list of sizes.
		default:
			if agg == "" {
				agg = f
			}
		}
	}
	return agg, flat
}

// plainAttr reports whether p is just one attribute of every player (with
// or without flatten): what Cupid's native rules read.
func (p prop) plainAttr() bool {
	if p.attr == "" || p.team != "*" {
		return false
	}
	for _, f := range p.fns {
		if f != "flatten" {
			return false
		}
	}
	return true
}

// teamAvg reports whether p is avg(teams[*].players.attributes[a]): the
// list of the teams' averages.
func (p prop) teamAvg() bool {
	return p.attr != "" && p.team == "*" && len(p.fns) == 1 && p.fns[0] == "avg"
}

// matchAvg reports whether p is avg(flatten(teams[*].players.attributes[a])):
// the average of every player of the match.
func (p prop) matchAvg() bool {
	return p.attr != "" && p.team == "*" && len(p.fns) == 2 && p.fns[0] == "avg" && p.fns[1] == "flatten"
}

// teamSizes reports whether p is count(teams[*].players), maybe under
// max or min: the list of team sizes, or its extreme.
func (p prop) teamSizes() (extreme string, ok bool) {
	if p.attr != "" || p.ids || p.team != "*" || len(p.fns) == 0 || p.fns[len(p.fns)-1] != "count" {
		return "", false
	}
	switch len(p.fns) {
	case 1:
		return "", true
	case 2:
		if p.fns[0] == "max" || p.fns[0] == "min" {
			return p.fns[0], true
		}
	}
	return "", false
}

// teamIndexes resolves a team name to the indexes of Cupid's teams (a
// FlexMatch team with a quantity is several teams).
type teamIndex map[string][]int

// expr writes p as an expr-lang expression of a match filter, and whether
// its value is a list.
func (p prop) expr(teams teamIndex) (string, bool, error) {
	// The innermost value: a list of per-player values, per team or for
	// the match.
	var src string
	list := true
	scope := "match"
	if p.team != "*" {
		idx, ok := teams[p.team]
		if !ok {
			return "", false, fmt.Errorf("no team is named %q", p.team)
		}
		if len(idx) != 1 {
			return "", false, fmt.Errorf("team %q has a quantity; a rule on one of several such teams is not imported", p.team)
		}
		scope = "teams[" + strconv.Itoa(idx[0]) + "]"
	}
	fns := p.fns
	switch {
	case p.ids:
		if scope == "match" {
			src = "flatten(map(match.tickets, .player_ids))"
		} else {
			src = "flatten(map(" + scope + ".tickets, .player_ids))"
		}
	case p.attr == "":
		// count(teams[..].players)
		fns = fns[:len(fns)-1]
		if scope == "match" {
			src = "map(teams, .size)"
		} else {
			src, list = scope+".size", false
		}
	case scope == "match":
		// teams[*]: a list per team unless flattened; a plain list of
		// every player's value is what all consumers want, so the per-team
		// form is kept only under an aggregate.
		src = "map(match.players, " + p.access() + ")"
		agg, flat := p.shape()
		if flat {
			// A list attribute flattens into one list of values.
			src = "flatten(" + src + ")"
		}
		if agg != "" && !flat {
			src = "map(teams, {" + aggExpr(agg, "map(.players, "+p.access()+")") + "})"
			fns = nil
		}
	default:
		src = "map(" + scope + ".players, " + p.access() + ")"
		if _, flat := p.shape(); flat {
			src = "flatten(" + src + ")"
		}
	}
	for i := len(fns) - 1; i >= 0; i-- {
		switch fns[i] {
		case "flatten":
		case "count":
			if !list {
				return "", false, fmt.Errorf("count of a single value")
			}
			src, list = "len("+src+")", false
		default:
			if !list {
				return "", false, fmt.Errorf("%s of a single value", fns[i])
			}
			src, list = aggExpr(fns[i], src), false
		}
	}
	return src, list, nil
}

// access is the expression reading p's attribute of the player #: a map
// attribute's key is read inside the map, as expressions see it.
func (p prop) access() string {
	if p.key != "" {
		return "#[" + strconv.Quote(p.mapName) + "][" + strconv.Quote(p.key) + "]"
	}
	return "#[" + strconv.Quote(p.attr) + "]"
}

func aggExpr(fn, list string) string {
	switch fn {
	case "avg":
		return "mean(" + list + ")"
	case "sum":
		return "sum(" + list + ")"
	}
	return fn + "(" + list + ")"
}

// exprOp is a FlexMatch comparison operator in expr-lang.
func exprOp(op string) (string, bool) {
	switch op {
	case "=":
		return "==", true
	case "!=", "<>":
		return "!=", true
	case "<", "<=", ">", ">=":
		return op, true
	}
	return "", false
}

func (l literal) expr() string {
	if l.isNum {
		return fmtNum(l.num)
	}
	return strconv.Quote(l.str)
}

// measured reads a rule's one measurement as a property expression, refusing
// what no Cupid rule can read (several measurements, an expression it does
// not parse, a map attribute).
func (b *fmBuilder) measured(r fmRule) (prop, error) {
	return b.measuredAs(r, false)
}

// measuredAs is measured; with keys, a whole map attribute is read as the
// list of its keys, as Cupid reads a map wherever it reads a list of
// strings (collection rules).
func (b *fmBuilder) measuredAs(r fmRule, keys bool) (prop, error) {
	m, err := measurement(r.Measurements)
	if err != nil {
		return prop{}, err
	}
	mp, err := parseProp(m)
	if err != nil {
		return prop{}, err
	}
	if b.mapAttr(mp.attr) && !keys {
		return prop{}, fmt.Errorf("%s is a map attribute: a rule reads one key of it, attributes[%s][key]", mp.attr, mp.attr)
	}
	if mp.key != "" && !b.mapAttr(mp.mapName) {
		return prop{}, fmt.Errorf("attributes[%s][%s] reads a key of %s, which is not declared a string_number_map", mp.mapName, mp.key, mp.mapName)
	}
	return mp, nil
}
