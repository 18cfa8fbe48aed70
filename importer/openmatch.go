package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/cupid-match/cupid/ruleset"
)

// OpenMatch reads an Open Match MatchProfile (its protobuf JSON, field names
// in camelCase or snake_case) and writes a Cupid configuration with one
// queue per pool: the pool's filters become the queue's rules.
//
//	{"name": "ctf", "pools": [{"name": "veterans",
//	  "doubleRangeFilters": [{"doubleArg": "mmr", "min": 1000, "max": 2000}],
//	  "stringEqualsFilters": [{"stringArg": "mode", "value": "ctf"}],
//	  "tagPresentFilters": [{"tag": "beta"}]}]}
//
// A ticket's search fields become its attributes: double_args and
// string_args by name, tags as the list attribute "tags". What Open Match
// leaves to the match function — written in code, so not imported — is the
// match's shape: the queues get one against one, to be edited. With a single
// pool, Result.Ruleset is that queue's ruleset as well.
func OpenMatch(src []byte) *Result {
	rep := Report{From: "openmatch"}
	var raw any
	if err := json.Unmarshal(src, &raw); err != nil {
		rep.Refused = "not an Open Match profile in JSON: " + err.Error()
		return finish(nil, rep)
	}
	norm, err := json.Marshal(normaliseKeys(raw))
	if err != nil {
		rep.Refused = err.Error()
		return finish(nil, rep)
	}
	var prof omProfile
	dec := json.NewDecoder(bytes.NewReader(norm))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&prof); err != nil {
		rep.Refused = "not an Open Match MatchProfile: " + err.Error()
		return finish(nil, rep)
	}
	lines := newLineFinder(string(src))
	if len(prof.Pools) > maxList {
		rep.Refused = fmt.Sprintf("%d pools, more than %d", len(prof.Pools), maxList)
		return finish(nil, rep)
	}
	for _, p := range prof.Pools {
		if n := len(p.DoubleRangeFilters) + len(p.StringEqualsFilters) + len(p.TagPresentFilters); n > maxList {
			rep.Refused = fmt.Sprintf("pool %s has %d filters, more than %d", p.Name, n, maxList)
			return finish(nil, rep)
		}
	}
	if len(prof.Pools) == 0 {
		rep.Refused = "the profile has no pools"
		return finish(nil, rep)
	}
	nameLine, _ := lines.key("name", 0)
	rep.add(nameLine, fmt.Sprintf("profile %q", prof.Name), "", Approximate,
		"the match function that serves this profile is code and is not imported; its match shape is not in the profile, so each queue is written as one against one (edit alliance), and combining pools (one player from each) is not carried over: each pool becomes its own queue")
	if len(prof.Extensions) > 0 {
		l, _ := lines.key("extensions", 0)
		rep.add(l, "extensions", "", Dropped, "read only by the match function")
	}
	_, poolsAt := lines.key("pools", 0)
	var cfg strings.Builder
	cfg.WriteString("queues:\n")
	var single []byte
	for pi, pool := range prof.Pools {
		rs := &ruleset.Ruleset{Alliance: ruleset.Alliance{MinNumber: 2, MaxNumber: 2, PlayerMinNumber: 1, PlayerMaxNumber: 1}}
		line, at := lines.namedAt(pool.Name, poolsAt)
		queue := queueName(pool.Name, pi)
		rep.add(line, fmt.Sprintf("pools[%s]", pool.Name), "queue "+queue, Exact, "")
		for _, f := range pool.DoubleRangeFilters {
			lo, hi := ">=", "<="
			switch strings.ToUpper(f.Exclude) {
			case "MIN":
				lo = ">"
			case "MAX":
				hi = "<"
			case "BOTH":
				lo, hi = ">", "<"
			}
			rs.ComparisonRule = append(rs.ComparisonRule,
				ruleset.ComparisonRule{Attribute: f.DoubleArg, Operator: lo, Value: &ruleset.Literal{Number: f.Min}},
				ruleset.ComparisonRule{Attribute: f.DoubleArg, Operator: hi, Value: &ruleset.Literal{Number: f.Max}})
			n := len(rs.ComparisonRule)
			rep.add(filterLine(lines, "doubleArg", "double_arg", f.DoubleArg, line, at), fmt.Sprintf("pools[%s] doubleRange %s %s..%s", pool.Name, f.DoubleArg, fmtNum(f.Min), fmtNum(f.Max)),
				fmt.Sprintf("%s comparison_rule[%d], [%d]", queue, n-2, n-1), Exact, "a bound left out of the JSON is 0, as in Open Match")
		}
		for _, f := range pool.StringEqualsFilters {
			rs.ComparisonRule = append(rs.ComparisonRule, ruleset.ComparisonRule{Attribute: f.StringArg, Operator: ruleset.OpEqual, Value: &ruleset.Literal{IsString: true, String: f.Value}})
			rep.add(filterLine(lines, "stringArg", "string_arg", f.StringArg, line, at), fmt.Sprintf("pools[%s] stringEquals %s = %q", pool.Name, f.StringArg, f.Value),
				fmt.Sprintf("%s comparison_rule[%d]", queue, len(rs.ComparisonRule)-1), Exact, "")
		}
		for _, f := range pool.TagPresentFilters {
			rs.CollectionRule = append(rs.CollectionRule, ruleset.CollectionRule{Attribute: "tags", Operation: ruleset.CollectionContains, Value: f.Tag})
			rep.add(filterLine(lines, "tag", "tag", f.Tag, line, at), fmt.Sprintf("pools[%s] tagPresent %s", pool.Name, f.Tag),
				fmt.Sprintf("%s collection_rule[%d]", queue, len(rs.CollectionRule)-1), Exact, "the ticket's tags are its list attribute \"tags\"")
		}
		if pool.CreatedBefore != "" || pool.CreatedAfter != "" {
			l := line
			for _, k := range []string{"createdBefore", "createdAfter", "created_before", "created_after"} {
				if kl, _ := lines.key(k, max(at, 0)); kl > 0 {
					l = kl
					break
				}
			}
			rep.add(l, fmt.Sprintf("pools[%s] creation time range", pool.Name), "", Dropped,
				"a range of absolute times; Cupid's rules look at how long a ticket has waited (flexing, filters' disable_after), and expire tickets by the queue's ticket_ttl")
		}
		data, err := encodeRuleset(rs)
		if err != nil {
			rep.Refused = err.Error()
			return finish(nil, rep)
		}
		if ps := ruleset.Check(data); ps != nil {
			rep.Refused = fmt.Sprintf("pool %s: the ruleset written does not load: %s", pool.Name, strings.TrimSpace(ruleset.FormatProblems("ruleset", ps)))
			return finish(nil, rep)
		}
		if len(prof.Pools) == 1 {
			single = data
		}
		flat := bytes.TrimSpace(compactJSON(data))
		fmt.Fprintf(&cfg, "  - name: %s\n    ruleset: %s\n", queue, flat)
	}
	rep.sort()
	return &Result{Ruleset: single, Config: []byte(cfg.String()), Report: rep}
}

type omProfile struct {
	Name       string          `json:"name"`
	Pools      []omPool        `json:"pools"`
	Extensions json.RawMessage `json:"extensions"`
}

type omPool struct {
	Name               string `json:"name"`
	DoubleRangeFilters []struct {
		DoubleArg string  `json:"doublearg"`
		Min       float64 `json:"min"`
		Max       float64 `json:"max"`
		Exclude   string  `json:"exclude"`
	} `json:"doublerangefilters"`
	StringEqualsFilters []struct {
		StringArg string `json:"stringarg"`
		Value     string `json:"value"`
	} `json:"stringequalsfilters"`
	TagPresentFilters []struct {
		Tag string `json:"tag"`
	} `json:"tagpresentfilters"`
	CreatedBefore string `json:"createdbefore"`
	CreatedAfter  string `json:"createdafter"`
}

// normaliseKeys lowercases keys and drops underscores, so that protobuf
// JSON's camelCase and the proto's snake_case names decode alike.
func normaliseKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ToLower(strings.ReplaceAll(k, "_", ""))] = normaliseKeys(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = normaliseKeys(x[i])
		}
	}
	return v
}

var queueNameRE = regexp.MustCompile(`[^a-z0-9_-]+`)

// queueName makes a pool's name a queue name.
func queueName(pool string, i int) string {
	q := strings.Trim(queueNameRE.ReplaceAllString(strings.ToLower(pool), "_"), "_")
	if q == "" {
		q = fmt.Sprintf("pool%d", i)
	}
	return q
}

// filterLine finds the line of a filter by its argument, after the pool.
func filterLine(lines *lineFinder, camel, snake, arg string, poolLine, from int) int {
	from = max(from, 0)
	for _, k := range []string{camel, snake} {
		re := regexp.MustCompile(`"` + k + `"\s*:\s*"` + regexp.QuoteMeta(arg) + `"`)
		if loc := re.FindStringIndex(lines.text[from:]); loc != nil {
			return lines.lineAt(from + loc[0])
		}
	}
	return poolLine
}

func encodeRuleset(rs *ruleset.Ruleset) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rs); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func compactJSON(data []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, data) != nil {
		return data
	}
	return buf.Bytes()
}
