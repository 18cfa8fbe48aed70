package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cupid-match/cupid/ruleset"
)

// Nakama reads a Nakama matchmaker request — the fields of the realtime
// matchmaker_add message, as JSON, and optionally the server's
// matchmaker.rev_precision setting:
//
//	{"query": "+properties.region:eu +properties.rank:>=5 -properties.mode:casual",
//	 "min_count": 2, "max_count": 4, "count_multiple": 2,
//	 "string_properties": {"region": "eu"}, "numeric_properties": {"rank": 7},
//	 "rev_precision": false}
//
// and writes the ruleset of a queue whose tickets carry the properties as
// ticket-wide attributes and their own query in the attribute "query", judged
// by the ticket_query rule (one way, or mutual with rev_precision); the
// counts become the alliance. In Nakama every client builds its own query
// ("my region, my rank ± 2"), so the query is carried per ticket rather than
// read into fixed rules from one sample.
func Nakama(src []byte) *Result {
	rep := Report{From: "nakama"}
	var req nkRequest
	dec := json.NewDecoder(strings.NewReader(string(src)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		rep.Refused = "not a Nakama matchmaker request (query, min_count, max_count, count_multiple, string_properties, numeric_properties): " + err.Error()
		return finish(nil, rep)
	}
	lines := newLineFinder(string(src))
	rs := &ruleset.Ruleset{}
	n := nkBuilder{req: req, rs: rs, rep: &rep, lines: lines}
	if !n.counts() {
		return finish(nil, rep)
	}
	n.query()
	return finish(rs, rep)
}

type nkRequest struct {
	Query             string             `json:"query"`
	MinCount          int                `json:"min_count"`
	MaxCount          int                `json:"max_count"`
	CountMultiple     int                `json:"count_multiple"`
	StringProperties  map[string]string  `json:"string_properties"`
	NumericProperties map[string]float64 `json:"numeric_properties"`
	// RevPrecision is Nakama's matchmaker.rev_precision server setting,
	// when the sample says the server sets it.
	RevPrecision bool `json:"rev_precision"`
}

type nkBuilder struct {
	req   nkRequest
	rs    *ruleset.Ruleset
	rep   *Report
	lines *lineFinder
}

// counts turns min_count, max_count and count_multiple into the alliance.
// Nakama's matches have no teams; a multiple becomes teams of that many
// players, so every match holds a multiple of it.
func (n *nkBuilder) counts() bool {
	r := n.req
	line, _ := n.lines.key("min_count", 0)
	if r.MinCount < 2 || r.MaxCount < r.MinCount {
		n.rep.Refused = fmt.Sprintf("min_count %d, max_count %d: Nakama needs 2 ≤ min_count ≤ max_count", r.MinCount, r.MaxCount)
		return false
	}
	if r.CountMultiple > 1 {
		m := r.CountMultiple
		if r.MinCount%m != 0 || r.MaxCount%m != 0 {
			n.rep.Refused = fmt.Sprintf("count_multiple %d must divide min_count %d and max_count %d", m, r.MinCount, r.MaxCount)
			return false
		}
		n.rs.Alliance = ruleset.Alliance{MinNumber: r.MinCount / m, MaxNumber: r.MaxCount / m, PlayerMinNumber: m, PlayerMaxNumber: m}
		mline, _ := n.lines.key("count_multiple", 0)
		n.rep.add(line, fmt.Sprintf("min_count %d, max_count %d", r.MinCount, r.MaxCount), "alliance", Exact, "")
		n.rep.add(mline, fmt.Sprintf("count_multiple %d", m), "alliance", Approximate,
			"teams of %d players, so a match holds a multiple of %d; Cupid balances those teams and never splits a party, so a party larger than %d is refused", m, m, m)
		return true
	}
	n.rs.Alliance = ruleset.Alliance{MinNumber: 1, MaxNumber: 1, PlayerMinNumber: r.MinCount, PlayerMaxNumber: r.MaxCount}
	n.rep.add(line, fmt.Sprintf("min_count %d, max_count %d", r.MinCount, r.MaxCount), "alliance", Exact, "one team of min_count to max_count players")
	return true
}

// QueryAttribute is the ticket attribute an imported Nakama queue reads each
// ticket's query from: the name of the request's own field.
const QueryAttribute = "query"

// query carries the query over as it is: each ticket sends its own, in the
// attribute QueryAttribute, judged by Cupid's ticket_query rule in Nakama's
// syntax and direction. That is exact for who may match whom, whatever each
// client puts in its query; the sample's query is only checked, so that the
// report says at once when clients send what Cupid refuses (a wildcard, a
// regular expression, a field other than properties.NAME…). A query with
// optional clauses also ranks, as in Nakama: the report says how.
func (n *nkBuilder) query() {
	qline, _ := n.lines.key("query", 0)
	dir, how := ruleset.QueryOneWay, "one way, Nakama's default: the query of the ticket a match forms around must accept every other ticket"
	if n.req.RevPrecision {
		dir, how = ruleset.QueryMutual, "mutual, as rev_precision asks: every ticket's query must accept every other ticket"
	}
	n.rs.TicketQuery = &ruleset.TicketQuery{Attribute: QueryAttribute, Syntax: ruleset.QuerySyntaxNakama, Direction: dir}
	src := fmt.Sprintf("query %q", n.req.Query)
	q, err := ruleset.ParseQuery(ruleset.QuerySyntaxNakama, n.req.Query)
	switch {
	case err != nil:
		n.rep.add(qline, src, "ticket_query", Approximate,
			"each ticket sends its own query in attributes.%s, judged %s; but Cupid refuses this one when a ticket is created: %v", QueryAttribute, how, err)
	case q.Ranks():
		n.rep.add(qline, src, "ticket_query", Exact, "each ticket sends its own query in attributes.%s, judged %s", QueryAttribute, how)
		n.rep.add(qline, "the query's optional clauses and boosts", "ticket_query", Approximate,
			"they rank, as in Nakama: the ticket a match forms around takes its best-scoring candidates first, as Nakama's search takes its best hits, equal scores oldest first; "+
				"a candidate scores the sum of the boosts (1 when not written) of the optional clauses it satisfies, where Nakama's relevance also weighs how rare a value is among the waiting tickets")
	default:
		n.rep.add(qline, src, "ticket_query", Exact, "each ticket sends its own query in attributes.%s, judged %s", QueryAttribute, how)
	}
	if n.req.RevPrecision {
		line, _ := n.lines.key("rev_precision", 0)
		n.rep.add(line, "rev_precision true", "ticket_query.direction", Approximate,
			"mutual from the start and for good: Nakama's rev_threshold, after which it falls back to one way, has no counterpart")
	}
	if len(n.req.StringProperties)+len(n.req.NumericProperties) > 0 {
		line, at := n.lines.key("string_properties", 0)
		if at < 0 {
			line, _ = n.lines.key("numeric_properties", 0)
		}
		n.rep.add(line, "string_properties, numeric_properties", "attributes", Exact,
			"each ticket sends its properties as ticket-wide attributes of the same names (not the players'), read by the queries' properties.NAME")
	}
}
