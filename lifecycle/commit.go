package lifecycle

import (
	"cmp"
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

// Committing new matches is decided here and written by each store's
// group commit: a store reads which of a batch's tickets wait and the other
// live tickets of their players, PlanCommit decides, the store writes. The
// rules:
//
//   - a match is stored only if every ticket it names waits; otherwise it
//     is refused whole (NotWaiting lists the others) and changes nothing;
//   - a stored match takes its tickets (matched, or proposed when the
//     match waits for its players to accept it) and cancels its players'
//     live tickets in other queues, so no player is in two matches; each
//     such ticket is named by the smallest player it shares with the
//     match, then the smallest queue, "player … was matched in queue …";
//   - a player is in one live match at most (pending, formed or assigned,
//     until released or ended): a match naming a ticket whose player is in
//     another live match is refused (Busy), and its tickets still wait;
//   - the batch is decided in order, as if each match were stored before
//     the next is looked at.

// CheckMatches refuses a CommitMatches batch that is a caller bug: no
// match, a match with no tickets or naming one twice. It returns each
// match's ticket ids, team by team.
func CheckMatches(ms []*cupid.Match) ([][]string, error) {
	all := make([][]string, len(ms))
	for i, m := range ms {
		if m == nil {
			return nil, cupid.Invalid(fmt.Sprintf("matches[%d]", i), "no match")
		}
		ids := m.TicketIDs()
		if len(ids) == 0 {
			return nil, cupid.Invalid(fmt.Sprintf("matches[%d]", i), "match %s has no tickets", m.ID)
		}
		for j, id := range ids {
			if slices.Contains(ids[:j], id) {
				return nil, cupid.Invalid(fmt.Sprintf("matches[%d]", i), "match %s names ticket %s twice", m.ID, id)
			}
		}
		all[i] = ids
	}
	return all, nil
}

// Other is a live ticket that shares Player with a ticket of the batch
// (Mine), which waits in Queue: the ticket a commit of Mine's match would
// cancel.
type Other struct {
	Mine, Player, Queue, Ticket string
}

// CommitPlan is the outcome of a batch of matches.
type CommitPlan struct {
	// Out has one result per match; Out[i].Cancelled is left for the
	// store, which holds the cancelled tickets' rows.
	Out []cupid.Committed
	// Matched maps each ticket a stored match takes to the match's index.
	Matched map[string]int
	// Cancels are the tickets the stored matches cancel, match by match,
	// each match's in ticket id order.
	Cancels []Cancel
	// Events are the tickets' events in the order their sequence numbers
	// follow: each stored match's tickets, then those it cancelled.
	Events []cupid.Event
	// copies are the stored matches as the events (and Formed's match
	// events) carry them: a copy of the caller's, once per match, so that
	// watchers and the pool that proposed the match share no memory.
	copies []*cupid.Match
}

// Cancel is a live ticket a stored match cancels.
type Cancel struct {
	Match  int
	Ticket string
	Reason string
}

// PlanCommit decides a batch of matches in order. ids are each match's
// tickets (CheckMatches), waiting reports whether a ticket of the batch
// waited when the store read it, others are the other live tickets of the
// batch's players, and busy the batch's tickets whose players are in a
// live match. Only a ticket another match of the batch took or cancelled
// stops waiting meanwhile.
func PlanCommit(ms []*cupid.Match, ids [][]string, waiting func(id string) bool, others []Other, busy []cupid.Busy) *CommitPlan {
	n := 0
	for _, t := range ids {
		n += len(t)
	}
	p := &CommitPlan{Out: make([]cupid.Committed, len(ms)), Matched: make(map[string]int, n), Events: make([]cupid.Event, 0, n),
		copies: make([]*cupid.Match, len(ms))}
	byMine := make(map[string][]Other, len(others))
	for _, o := range others {
		byMine[o.Mine] = append(byMine[o.Mine], o)
	}
	busy = slices.Clone(busy)
	slices.SortFunc(busy, func(a, b cupid.Busy) int {
		return cmp.Or(cmp.Compare(a.Ticket, b.Ticket), cmp.Compare(a.Player, b.Player), cmp.Compare(a.Match, b.Match))
	})
	cancelled := map[string]bool{}
	still := func(id string) bool {
		_, taken := p.Matched[id]
		return !taken && !cancelled[id]
	}
	for i, m := range ms {
		for _, id := range ids[i] {
			if !waiting(id) || !still(id) {
				p.Out[i].NotWaiting = append(p.Out[i].NotWaiting, id)
			}
		}
		if len(p.Out[i].NotWaiting) > 0 {
			continue
		}
		for _, b := range busy {
			if slices.Contains(ids[i], b.Ticket) {
				p.Out[i].Busy = append(p.Out[i].Busy, b)
			}
		}
		if len(p.Out[i].Busy) > 0 {
			continue
		}
		p.Out[i].OK = true
		c := m.Clone()
		p.copies[i] = c
		kind := cupid.EventMatched
		if !m.AcceptBy.IsZero() {
			kind = cupid.EventProposed // it waits for its players' answers
		}
		for _, id := range ids[i] {
			p.Matched[id] = i
			p.Events = append(p.Events, cupid.Event{TicketID: id, Kind: kind, At: m.CreatedAt, Match: c})
		}
		var why map[string]Other // most matches cancel nothing: made when needed
		for _, id := range ids[i] {
			for _, o := range byMine[id] {
				if why == nil {
					why = map[string]Other{}
				}
				if slices.Contains(ids[i], o.Ticket) || !still(o.Ticket) {
					continue
				}
				w, ok := why[o.Ticket]
				if !ok || cmp.Or(cmp.Compare(o.Player, w.Player), cmp.Compare(o.Queue, w.Queue)) < 0 {
					why[o.Ticket] = o
				}
			}
		}
		if why == nil {
			continue
		}
		keys := make([]string, 0, len(why))
		for k := range why {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, oid := range keys {
			w := why[oid]
			reason := MatchedElsewhereReason(w.Player, w.Queue, m.ID)
			cancelled[oid] = true
			p.Cancels = append(p.Cancels, Cancel{Match: i, Ticket: oid, Reason: reason})
			p.Events = append(p.Events, cupid.Event{TicketID: oid, Kind: cupid.EventCancelled, At: m.CreatedAt, Reason: reason})
		}
	}
	return p
}

// Formed are the match log's events of a plan's stored matches: "formed"
// for each, but for a match that waits for its players to accept it, which
// backends hear of when it forms (see Answer).
func (p *CommitPlan) Formed(ms []*cupid.Match) []*cupid.MatchEvent {
	var evs []*cupid.MatchEvent
	for i, m := range ms {
		if p.Out[i].OK && m.AcceptBy.IsZero() {
			p.Out[i].Formed = cupid.MatchEvent{MatchID: m.ID, Queue: m.Key.Queue, Kind: cupid.MatchEventFormed, At: m.CreatedAt.UTC(), Match: p.copies[i]}
			evs = append(evs, &p.Out[i].Formed)
		}
	}
	return evs
}

// MatchedElsewhereReason is the reason of a ticket cancelled because one of
// its players was matched in another queue.
func MatchedElsewhereReason(player, queue, match string) string {
	return fmt.Sprintf("player %s was matched in queue %s (match %s)", player, queue, match)
}
