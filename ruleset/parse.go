package ruleset

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cupid-match/cupid"
)

// Parse reads a ruleset document strictly: the text must be JSON (no
// trailing commas, no comments), every key must be a field Cupid knows, and
// every value must have the field's type. On failure the error is Problems,
// each with its JSON path, line and column; all unknown fields and wrong
// types are reported together, a syntax error alone (nothing after it can be
// trusted).
//
// Parse does not check that the values make sense together; Validate does,
// and uses the positions Parse remembered to point into the text.
func Parse(data []byte) (*Ruleset, error) {
	root, probs := readJSON(data)
	if root == nil {
		return nil, probs
	}
	d := &decoder{pos: map[string]Pos{}, probs: probs}
	rs := d.ruleset(root)
	if len(d.probs) > 0 {
		// Validation will not run, so say here what it would say first
		// about a document that is not a ruleset at all.
		if root.kind == kindObject && !contains(root.keys, "alliance") {
			d.problem(root, "alliance", "required: the number of teams and of players per team")
		}
		d.probs.sortByPosition()
		return nil, d.probs.capped()
	}
	rs.src = &source{pos: d.pos, root: root.pos}
	return rs, nil
}

// source remembers where each value of a parsed ruleset was written, by JSON
// path, so that later checks can point at the line and column. A path that
// is absent from pos was not written in the text.
type source struct {
	pos  map[string]Pos
	root Pos
}

// decoder turns the node tree into a Ruleset, collecting problems instead of
// stopping at the first.
type decoder struct {
	pos   map[string]Pos
	probs Problems
}

func (d *decoder) problem(n *node, path, format string, args ...any) {
	d.probs = append(d.probs, Problem{Path: path, Line: n.pos.Line, Column: n.pos.Column, Message: fmt.Sprintf(format, args...)})
}

// join appends a key to a JSON path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index appends an array index to a JSON path.
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// present records a value's position and reports whether it carries a value;
// null counts as "not given", which is what encoders write for empty
// optional fields.
func (d *decoder) present(n *node, path string) bool {
	if n.kind == kindNull {
		return false
	}
	d.pos[path] = n.pos
	return true
}

func (d *decoder) wrongType(n *node, path, want string) {
	d.problem(n, path, "must be %s, not %s", want, kindNames[n.kind])
}

// object walks an object's members, reporting keys not in known (with a
// suggestion when one is close) and handing the others to each.
func (d *decoder) object(n *node, path string, known []string, each func(key string, v *node, path string)) bool {
	if !d.present(n, path) {
		return false
	}
	if n.kind != kindObject {
		d.wrongType(n, path, "an object")
		return false
	}
	for i, key := range n.keys {
		p := join(path, key)
		if !contains(known, key) {
			msg := "unknown field"
			// Suggestions cost an edit distance each; past the report
			// limit nobody reads them.
			if len(d.probs) <= MaxProblems {
				if s := suggest(key, known); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
			}
			d.probs = append(d.probs, Problem{Path: p, Line: n.keyPos[i].Line, Column: n.keyPos[i].Column, Message: msg})
			continue
		}
		each(key, n.elems[i], p)
	}
	return true
}

// array walks an array's elements.
func (d *decoder) array(n *node, path string, each func(i int, v *node, path string)) {
	if !d.present(n, path) {
		return
	}
	if n.kind != kindArray {
		d.wrongType(n, path, "an array")
		return
	}
	if len(n.elems) > maxListLen {
		d.problem(n, path, "has %d entries, more than the limit of %d", len(n.elems), maxListLen)
		return
	}
	for i, v := range n.elems {
		each(i, v, index(path, i))
	}
}

// maxListLen bounds every list in a ruleset; real rulesets have a handful of
// entries and the engine's work grows with them.
const maxListLen = 256

func (d *decoder) boolean(n *node, path string) bool {
	if !d.present(n, path) {
		return false
	}
	if n.kind != kindBool {
		d.wrongType(n, path, "true or false")
		return false
	}
	return n.boolean
}

func (d *decoder) optBool(n *node, path string) *bool {
	if n.kind == kindNull {
		return nil
	}
	b := d.boolean(n, path)
	return &b
}

func (d *decoder) str(n *node, path string) string {
	if !d.present(n, path) {
		return ""
	}
	if n.kind != kindString {
		d.wrongType(n, path, "a string")
		return ""
	}
	return n.text
}

func (d *decoder) number(n *node, path string) float64 {
	if !d.present(n, path) {
		return 0
	}
	if n.kind != kindNumber {
		d.wrongType(n, path, "a number")
		return 0
	}
	return n.number
}

func (d *decoder) optNumber(n *node, path string) *float64 {
	if n.kind == kindNull {
		return nil
	}
	f := d.number(n, path)
	return &f
}

// maxInt bounds integer fields so that arithmetic on them (milliseconds,
// seconds turned into durations) cannot overflow.
const maxInt = 1_000_000_000

func (d *decoder) integer(n *node, path string) int {
	if !d.present(n, path) {
		return 0
	}
	if n.kind != kindNumber {
		d.wrongType(n, path, "an integer")
		return 0
	}
	if n.number != math.Trunc(n.number) {
		d.problem(n, path, "must be an integer, not %s", n.text)
		return 0
	}
	if math.Abs(n.number) > maxInt {
		d.problem(n, path, "%s is out of range (at most %d in absolute value)", n.text, maxInt)
		return 0
	}
	return int(n.number)
}

func (d *decoder) optInt(n *node, path string) *int {
	if n.kind == kindNull {
		return nil
	}
	i := d.integer(n, path)
	return &i
}

func (d *decoder) literal(n *node, path string) *Literal {
	if !d.present(n, path) {
		return nil
	}
	switch n.kind {
	case kindString:
		return &Literal{IsString: true, String: n.text}
	case kindNumber:
		return &Literal{Number: n.number}
	}
	d.wrongType(n, path, "a number or a string")
	return nil
}

var rulesetKeys = []string{
	"auto_backfill", "alliance", "alliance_flexing_rule", "matching_rule", "flexing_rule",
	"match_options", "match_options_referred_for_backfill",
	"region_latency_initial_range_ms", "region_expansion_range_ms", "region_expansion_rate_ms",
	"region_latency_max_ms", "disable_bidirectional_latency_after_ms",
	"comparison_rule", "collection_rule", "team_rule", "match_total", "roles", "cross_play", "ticket_query",
	"filter", "score", "quality", "team_sizes", "compound_rule", "attribute_defaults", "region_latency_flexing", "region_latency_spread_ms", "region_choice",
	"teams", "team_comparison", "sort_rule",
}

func (d *decoder) ruleset(n *node) *Ruleset {
	rs := &Ruleset{}
	if n.kind != kindObject {
		d.problem(n, "", "a ruleset must be a JSON object, not %s", kindNames[n.kind])
		return rs
	}
	d.object(n, "", rulesetKeys, func(key string, v *node, p string) {
		switch key {
		case "auto_backfill":
			rs.AutoBackfill = d.boolean(v, p)
		case "alliance":
			d.alliance(v, p, &rs.Alliance)
		case "alliance_flexing_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				var f AllianceFlex
				d.object(e, p, allianceFlexKeys, func(key string, v *node, p string) {
					if key == "duration" {
						f.Duration = d.integer(v, p)
						return
					}
					d.allianceField(key, v, p, &f.Alliance)
				})
				rs.AllianceFlexingRule = append(rs.AllianceFlexingRule, f)
			})
		case "matching_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.MatchingRule = append(rs.MatchingRule, d.matchingRule(e, p))
			})
		case "flexing_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.FlexingRule = append(rs.FlexingRule, d.flexingRule(e, p))
			})
		case "match_options":
			rs.MatchOptions = d.matchOptions(v, p)
		case "match_options_referred_for_backfill":
			rs.MatchOptionsReferredForBackfill = d.boolean(v, p)
		case "region_latency_initial_range_ms":
			rs.RegionLatencyInitialRangeMs = d.integer(v, p)
		case "region_expansion_range_ms":
			rs.RegionExpansionRangeMs = d.integer(v, p)
		case "region_expansion_rate_ms":
			rs.RegionExpansionRateMs = d.integer(v, p)
		case "region_latency_max_ms":
			rs.RegionLatencyMaxMs = d.integer(v, p)
		case "disable_bidirectional_latency_after_ms":
			rs.DisableBidirectionalLatencyAfterMs = d.integer(v, p)
		case "comparison_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.ComparisonRule = append(rs.ComparisonRule, d.comparisonRule(e, p))
			})
		case "collection_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.CollectionRule = append(rs.CollectionRule, d.collectionRule(e, p))
			})
		case "team_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.TeamRule = append(rs.TeamRule, d.teamRule(e, p))
			})
		case "match_total":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.MatchTotal = append(rs.MatchTotal, d.matchTotal(e, p))
			})
		case "roles":
			rs.Roles = d.roles(v, p)
		case "cross_play":
			rs.CrossPlay = d.crossPlay(v, p)
		case "ticket_query":
			rs.TicketQuery = d.ticketQuery(v, p)
		case "filter":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.Filter = append(rs.Filter, d.exprRule(e, p))
			})
		case "score":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.Score = append(rs.Score, d.exprRule(e, p))
			})
		case "quality":
			rs.Quality = d.quality(v, p)
		case "region_choice":
			rs.RegionChoice = d.str(v, p)
		case "region_latency_spread_ms":
			rs.RegionLatencySpreadMs = d.integer(v, p)
		case "region_latency_flexing":
			rs.RegionLatencyFlexing = d.flexList(v, p)
		case "attribute_defaults":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.AttributeDefaults = append(rs.AttributeDefaults, d.attributeDefault(e, p))
			})
		case "team_sizes":
			rs.TeamSizes = d.str(v, p)
		case "compound_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.CompoundRule = append(rs.CompoundRule, d.compoundRule(e, p))
			})
		case "teams":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.Teams = append(rs.Teams, d.namedTeam(e, p))
			})
		case "team_comparison":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.TeamComparison = append(rs.TeamComparison, d.teamComparison(e, p))
			})
		case "sort_rule":
			d.array(v, p, func(_ int, e *node, p string) {
				rs.SortRule = append(rs.SortRule, d.sortRule(e, p))
			})
		}
	})
	return rs
}

var allianceKeys = []string{"min_number", "max_number", "player_min_number", "player_max_number"}

var allianceFlexKeys = append([]string{"duration"}, allianceKeys...)

func (d *decoder) alliance(n *node, path string, a *Alliance) {
	d.object(n, path, allianceKeys, func(key string, v *node, p string) {
		d.allianceField(key, v, p, a)
	})
}

func (d *decoder) allianceField(key string, v *node, p string, a *Alliance) {
	switch key {
	case "min_number":
		a.MinNumber = d.integer(v, p)
	case "max_number":
		a.MaxNumber = d.integer(v, p)
	case "player_min_number":
		a.PlayerMinNumber = d.integer(v, p)
	case "player_max_number":
		a.PlayerMaxNumber = d.integer(v, p)
	}
}

var matchingRuleKeys = []string{"attribute", "criteria", "reference", "max", "weight", "is_for_balancing", "party_aggregate", "min_distance"}

func (d *decoder) matchingRule(n *node, path string) MatchingRule {
	var m MatchingRule
	d.object(n, path, matchingRuleKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			m.Attribute = d.str(v, p)
		case "criteria":
			m.Criteria = d.str(v, p)
		case "reference":
			m.Reference = d.number(v, p)
		case "max":
			m.Max = d.number(v, p)
		case "weight":
			m.Weight = d.optNumber(v, p)
		case "is_for_balancing":
			m.IsForBalancing = d.boolean(v, p)
		case "party_aggregate":
			m.PartyAggregate = d.str(v, p)
		case "min_distance":
			m.MinDistance = d.optNumber(v, p)
		}
	})
	return m
}

var flexingRuleKeys = []string{"duration", "attribute", "criteria", "reference", "min_distance"}

func (d *decoder) flexingRule(n *node, path string) FlexingRule {
	var f FlexingRule
	d.object(n, path, flexingRuleKeys, func(key string, v *node, p string) {
		switch key {
		case "duration":
			f.Duration = d.integer(v, p)
		case "attribute":
			f.Attribute = d.str(v, p)
		case "criteria":
			f.Criteria = d.str(v, p)
		case "reference":
			f.Reference = d.number(v, p)
		case "min_distance":
			f.MinDistance = d.optNumber(v, p)
		}
	})
	return f
}

func (d *decoder) matchOptions(n *node, path string) *MatchOptions {
	mo := &MatchOptions{}
	ok := d.object(n, path, []string{"options"}, func(_ string, v *node, p string) {
		d.array(v, p, func(_ int, e *node, p string) {
			var o MatchOption
			d.object(e, p, []string{"name", "type"}, func(key string, v *node, p string) {
				if key == "name" {
					o.Name = d.str(v, p)
				} else {
					o.Type = d.str(v, p)
				}
			})
			mo.Options = append(mo.Options, o)
		})
	})
	if !ok {
		return nil
	}
	return mo
}

// flexList reads a Cupid extension's "flexing" list of {duration, value}.
func (d *decoder) flexList(n *node, path string) []Flex {
	var out []Flex
	d.array(n, path, func(_ int, e *node, p string) {
		var f Flex
		d.object(e, p, []string{"duration", "value"}, func(key string, v *node, p string) {
			if key == "duration" {
				f.Duration = d.integer(v, p)
			} else {
				f.Value = d.number(v, p)
			}
		})
		out = append(out, f)
	})
	return out
}

var comparisonKeys = []string{"attribute", "operator", "value", "flexing", "party_aggregate"}

func (d *decoder) comparisonRule(n *node, path string) ComparisonRule {
	var c ComparisonRule
	d.object(n, path, comparisonKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			c.Attribute = d.str(v, p)
		case "operator":
			c.Operator = d.str(v, p)
		case "value":
			c.Value = d.literal(v, p)
		case "flexing":
			c.Flexing = d.flexList(v, p)
		case "party_aggregate":
			c.PartyAggregate = d.str(v, p)
		}
	})
	return c
}

var namedTeamKeys = []string{"name", "player_min_number", "player_max_number"}

func (d *decoder) namedTeam(n *node, path string) NamedTeam {
	var t NamedTeam
	d.object(n, path, namedTeamKeys, func(key string, v *node, p string) {
		switch key {
		case "name":
			t.Name = d.str(v, p)
		case "player_min_number":
			t.PlayerMinNumber = d.integer(v, p)
		case "player_max_number":
			t.PlayerMaxNumber = d.integer(v, p)
		}
	})
	return t
}

var teamComparisonKeys = []string{"team", "attribute", "aggregate", "party_aggregate", "operator", "value", "reference", "flexing"}

var teamValueKeys = []string{"team", "attribute", "aggregate"}

func (d *decoder) teamComparison(n *node, path string) TeamComparisonRule {
	var c TeamComparisonRule
	d.object(n, path, teamComparisonKeys, func(key string, v *node, p string) {
		switch key {
		case "team":
			c.Team = d.str(v, p)
		case "attribute":
			c.Attribute = d.str(v, p)
		case "aggregate":
			c.Aggregate = d.str(v, p)
		case "party_aggregate":
			c.PartyAggregate = d.str(v, p)
		case "operator":
			c.Operator = d.str(v, p)
		case "value":
			c.Value = d.optNumber(v, p)
		case "reference":
			r := &TeamValue{}
			if d.object(v, p, teamValueKeys, func(key string, v *node, p string) {
				switch key {
				case "team":
					r.Team = d.str(v, p)
				case "attribute":
					r.Attribute = d.str(v, p)
				case "aggregate":
					r.Aggregate = d.str(v, p)
				}
			}) {
				c.Reference = r
			}
		case "flexing":
			c.Flexing = d.flexList(v, p)
		}
	})
	return c
}

var collectionKeys = []string{"attribute", "operation", "value", "min_count", "max_count", "scope", "flexing", "disable_after"}

func (d *decoder) collectionRule(n *node, path string) CollectionRule {
	var c CollectionRule
	d.object(n, path, collectionKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			c.Attribute = d.str(v, p)
		case "operation":
			c.Operation = d.str(v, p)
		case "value":
			c.Value = d.str(v, p)
		case "min_count":
			c.MinCount = d.optInt(v, p)
		case "max_count":
			c.MaxCount = d.optInt(v, p)
		case "scope":
			c.Scope = d.str(v, p)
		case "flexing":
			c.Flexing = d.flexList(v, p)
		case "disable_after":
			c.DisableAfter = d.integer(v, p)
		}
	})
	return c
}

var teamRuleKeys = []string{"attribute", "aggregate", "party_aggregate", "max_difference", "flexing", "against"}

func (d *decoder) teamRule(n *node, path string) TeamRule {
	var t TeamRule
	d.object(n, path, teamRuleKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			t.Attribute = d.str(v, p)
		case "aggregate":
			t.Aggregate = d.str(v, p)
		case "party_aggregate":
			t.PartyAggregate = d.str(v, p)
		case "max_difference":
			t.MaxDifference = d.number(v, p)
		case "against":
			t.Against = d.str(v, p)
		case "flexing":
			t.Flexing = d.flexList(v, p)
		}
	})
	return t
}

var matchTotalKeys = []string{"attribute", "aggregate", "min", "max", "flexing"}

func (d *decoder) matchTotal(n *node, path string) MatchTotalRule {
	var m MatchTotalRule
	d.object(n, path, matchTotalKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			m.Attribute = d.str(v, p)
		case "aggregate":
			m.Aggregate = d.str(v, p)
		case "min":
			m.Min = d.optNumber(v, p)
		case "max":
			m.Max = d.optNumber(v, p)
		case "flexing":
			d.array(v, p, func(_ int, e *node, p string) {
				var f RangeFlex
				d.object(e, p, []string{"duration", "min", "max"}, func(key string, v *node, p string) {
					switch key {
					case "duration":
						f.Duration = d.integer(v, p)
					case "min":
						f.Min = d.optNumber(v, p)
					case "max":
						f.Max = d.optNumber(v, p)
					}
				})
				m.Flexing = append(m.Flexing, f)
			})
		}
	})
	return m
}

func (d *decoder) roles(n *node, path string) *RoleRule {
	rr := &RoleRule{}
	ok := d.object(n, path, []string{"attribute", "quotas"}, func(key string, v *node, p string) {
		if key == "attribute" {
			rr.Attribute = d.str(v, p)
			return
		}
		d.array(v, p, func(_ int, e *node, p string) {
			var q RoleQuota
			d.object(e, p, []string{"name", "min", "max", "flexing"}, func(key string, v *node, p string) {
				switch key {
				case "name":
					q.Name = d.str(v, p)
				case "min":
					q.Min = d.integer(v, p)
				case "max":
					q.Max = d.optInt(v, p)
				case "flexing":
					q.Flexing = d.flexList(v, p)
				}
			})
			rr.Quotas = append(rr.Quotas, q)
		})
	})
	if !ok {
		return nil
	}
	return rr
}

func (d *decoder) crossPlay(n *node, path string) *CrossPlay {
	cp := &CrossPlay{}
	ok := d.object(n, path, []string{"accepted_attribute", "current_attribute"}, func(key string, v *node, p string) {
		if key == "accepted_attribute" {
			cp.AcceptedAttribute = d.str(v, p)
		} else {
			cp.CurrentAttribute = d.str(v, p)
		}
	})
	if !ok {
		return nil
	}
	return cp
}

var ticketQueryKeys = []string{"attribute", "syntax", "direction"}

func (d *decoder) ticketQuery(n *node, path string) *TicketQuery {
	tq := &TicketQuery{}
	ok := d.object(n, path, ticketQueryKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			tq.Attribute = d.str(v, p)
		case "syntax":
			tq.Syntax = d.str(v, p)
		case "direction":
			tq.Direction = d.str(v, p)
		}
	})
	if !ok {
		return nil
	}
	return tq
}

var exprRuleKeys = []string{"name", "scope", "expr", "weight", "disable_after"}

func (d *decoder) exprRule(n *node, path string) ExprRule {
	var e ExprRule
	d.object(n, path, exprRuleKeys, func(key string, v *node, p string) {
		switch key {
		case "name":
			e.Name = d.str(v, p)
		case "scope":
			e.Scope = d.str(v, p)
		case "expr":
			e.Expr = d.str(v, p)
		case "weight":
			e.Weight = d.optNumber(v, p)
		case "disable_after":
			e.DisableAfter = d.integer(v, p)
		}
	})
	return e
}

var defaultKeys = []string{"name", "value"}

func (d *decoder) attributeDefault(n *node, path string) AttributeDefault {
	var a AttributeDefault
	d.object(n, path, defaultKeys, func(key string, v *node, p string) {
		switch key {
		case "name":
			a.Name = d.str(v, p)
		case "value":
			if !d.present(v, p) {
				return
			}
			switch v.kind {
			case kindNumber:
				a.Value = cupid.Number(v.number)
			case kindString:
				a.Value = cupid.String(v.text)
			case kindArray:
				list := []string{}
				d.array(v, p, func(_ int, e *node, p string) {
					list = append(list, d.str(e, p))
				})
				a.Value = cupid.Strings(list...)
			case kindObject:
				// A map of numbers: FlexMatch's string_number_map.
				m := make(map[string]float64, len(v.keys))
				for i, key := range v.keys {
					m[key] = d.number(v.elems[i], join(p, key))
				}
				a.Value = cupid.Numbers(m)
			default:
				d.wrongType(v, p, "a number, a string, a list of strings or a map of numbers")
			}
		}
	})
	return a
}

var compoundKeys = []string{"name", "statement", "disable_after"}

func (d *decoder) compoundRule(n *node, path string) CompoundRule {
	var c CompoundRule
	d.object(n, path, compoundKeys, func(key string, v *node, p string) {
		switch key {
		case "name":
			c.Name = d.str(v, p)
		case "statement":
			c.Statement = d.str(v, p)
		case "disable_after":
			c.DisableAfter = d.integer(v, p)
		}
	})
	return c
}

var qualityKeys = []string{
	"skill_gap", "skill_spread", "parties", "ping", "variety", "wait", "roles",
	"skill_attribute", "ping_ok_ms", "ping_bad_ms", "wait_bad_seconds", "sqrt",
}

func (d *decoder) quality(n *node, path string) *QualityWeights {
	q := &QualityWeights{}
	ok := d.object(n, path, qualityKeys, func(key string, v *node, p string) {
		switch key {
		case "skill_gap":
			q.SkillGap = d.optNumber(v, p)
		case "skill_spread":
			q.SkillSpread = d.optNumber(v, p)
		case "parties":
			q.Parties = d.optNumber(v, p)
		case "ping":
			q.Ping = d.optNumber(v, p)
		case "variety":
			q.Variety = d.optNumber(v, p)
		case "wait":
			q.Wait = d.optNumber(v, p)
		case "roles":
			q.Roles = d.optNumber(v, p)
		case "skill_attribute":
			q.SkillAttribute = d.str(v, p)
		case "ping_ok_ms":
			q.PingOkMs = d.optInt(v, p)
		case "ping_bad_ms":
			q.PingBadMs = d.optInt(v, p)
		case "wait_bad_seconds":
			q.WaitBadSeconds = d.optInt(v, p)
		case "sqrt":
			q.Sqrt = d.optBool(v, p)
		}
	})
	if !ok {
		return nil
	}
	return q
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns the known name closest to a misspelt one when it is close
// enough to be a likely typo, or "".
func suggest(got string, known []string) string {
	if len(got) > 64 {
		return ""
	}
	best, bestDist := "", max(2, len([]rune(got))/3)+1
	for _, k := range known {
		if dist := editDistance(strings.ToLower(got), k); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two short strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
