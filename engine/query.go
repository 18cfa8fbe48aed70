package engine

import (
	"fmt"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Ticket queries (ruleset ticket_query): each ticket may carry its own query
// over the other tickets' attributes. A query is compiled once, when the
// ticket is checked or joins the pool, and shared by every ticket that sends
// the same text; the pair check then only evaluates it.
//
// Direction: one_way judges the anchor's query against each candidate in
// pairOK (the anchor is the ticket the match forms around, so its query
// accepts every other ticket); mutual also judges the candidate's query
// against the anchor there, and group.accepts judges every other pair, both
// ways, as a candidate joins.

// maxCachedQueries bounds the compiled queries a pool keeps: clients choose
// the text, so the cache must not grow with it. When full it is emptied and
// refilled by the queries still in use, each compiled again once.
const maxCachedQueries = 4096

// queryRule is the engine's view of ticket_query.
type queryRule struct {
	attr   string
	syntax string
	mutual bool
}

// compileQuery returns the compiled query for a ticket's text, from the
// pool's cache when another ticket sent it before.
func (p *Pool) compileQuery(text string) (*ruleset.Query, error) {
	if q, ok := p.queries[text]; ok {
		return q, nil
	}
	q, err := ruleset.ParseQuery(p.r.query.syntax, text)
	if err != nil {
		return nil, err
	}
	if p.queries == nil || len(p.queries) >= maxCachedQueries {
		p.queries = make(map[string]*ruleset.Query)
	}
	p.queries[text] = q
	return q, nil
}

// checkQuery refuses a ticket whose query the engine cannot honour: not a
// string, held by a player instead of the ticket, or not a valid query.
func (p *Pool) checkQuery(t *cupid.Ticket) error {
	qr := p.r.query
	if qr == nil {
		return nil
	}
	for i := range t.Players {
		if _, ok := t.Players[i].Attributes.Get(qr.attr); ok {
			return cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", i, qr.attr),
				"the query is the ticket's, not a player's: set attributes.%s (ticket_query)", qr.attr)
		}
	}
	v, ok := t.Attributes.Get(qr.attr)
	if !ok {
		return nil
	}
	field := "attributes." + qr.attr
	if v.Kind != cupid.KindString {
		return cupid.Invalid(field, "must be a string, a %s query, not %s (ticket_query)", qr.syntax, ruleset.KindName(v.Kind))
	}
	if _, err := p.compileQuery(v.String); err != nil {
		return cupid.Invalid(field, "%v (ticket_query)", err)
	}
	return nil
}

// ticketQuery is the compiled query a checked ticket carries; nil when it
// carries none (it accepts everyone).
func (p *Pool) ticketQuery(t *cupid.Ticket) *ruleset.Query {
	v, ok := t.Attributes.Get(p.r.query.attr)
	if !ok || v.Kind != cupid.KindString {
		return nil
	}
	q, err := p.compileQuery(v.String)
	if err != nil || q.AcceptsAll() {
		return nil
	}
	return q
}

// queryFailing is "" when a's query accepts ticket c, else the clause c
// fails.
func queryFailing(a, c *entry) string {
	q := a.x.query
	if q == nil {
		return ""
	}
	return q.Failing(c.h.attributes, c.h.players)
}

// queryOK judges the pair (anchor a, candidate c): a's query must accept c,
// and with mutual, c's must accept a.
func (p *Pool) queryOK(a, c *entry) reason {
	if queryFailing(a, c) != "" {
		return reason{rQuery, 0}
	}
	if p.r.query.mutual && queryFailing(c, a) != "" {
		return reason{rQuery, 1}
	}
	return reason{}
}

// queryText says which query refused the pair and on which clause.
func (p *Pool) queryText(r reason, a, c *entry) string {
	if r.i == 0 {
		return fmt.Sprintf("the anchor's query refuses it (%s)", queryFailing(a, c))
	}
	return fmt.Sprintf("its query refuses the anchor (%s)", queryFailing(c, a))
}

// rankingQuery is the query by whose score anchor e takes its candidates
// (sortCands), nil when it takes them in the pool's usual order: the pool
// has no ticket_query, or e's query has no optional clause. Only the
// anchor's query ranks, in mutual as in one_way: the match forms around the
// anchor, as a Nakama search around the searching ticket.
func (p *Pool) rankingQuery(e *entry) *ruleset.Query {
	if p.r.query == nil || e.x == nil || !e.x.query.Ranks() {
		return nil
	}
	return e.x.query
}

// scoresTop reports whether ticket s has the best score query q can give.
func (p *Pool) scoresTop(q *ruleset.Query, s int32) bool {
	h := p.entries[s].h
	return q.Score(h.attributes, h.players) >= q.MaxScore()
}
