package lifecycle

import (
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

// Creating tickets is decided here and written by each store's group
// commit, where a batch of thousands goes in a few multi-row statements: a
// store reads what a batch depends on (a Lookup), PlanCreate decides ticket
// by ticket, and the store writes the plan. The rules:
//
//   - a ticket whose request id is stored already is that ticket (Existed);
//     the caller compares the bodies;
//   - a ticket naming a player twice is refused, that ticket alone;
//   - a player has at most one live (waiting) ticket per queue: a ticket
//     naming a player who has one is refused (already_exists, naming him
//     and that ticket), unless it asks to replace, in which case the old
//     ticket is cancelled, "replaced by ticket …";
//   - the batch is decided in order, as if each ticket were stored before
//     the next is looked at: a later ticket of the batch may replace an
//     earlier one, which is then stored cancelled.

// CheckNewTickets refuses a CreateTickets batch that is a caller bug, before
// a store reads or writes anything: no ticket, no id, an id given twice.
func CheckNewTickets(ts []cupid.NewTicket) error {
	seen := make(map[string]bool, len(ts))
	for i, n := range ts {
		switch {
		case n.Ticket == nil:
			return cupid.Invalid(fmt.Sprintf("tickets[%d]", i), "no ticket")
		case n.Ticket.ID == "":
			return cupid.Invalid(fmt.Sprintf("tickets[%d].id", i), "a ticket needs an id")
		case seen[n.Ticket.ID]:
			return cupid.Invalid(fmt.Sprintf("tickets[%d].id", i), "ticket id %q is given twice", n.Ticket.ID)
		}
		seen[n.Ticket.ID] = true
	}
	return nil
}

// Fresh is each ticket of a batch as a store keeps it when it is created:
// waiting, unmatched, no reason, updated when created. Shallow copies: the
// caller's slices are only read.
func Fresh(ts []cupid.NewTicket) []*cupid.Ticket {
	out := make([]*cupid.Ticket, len(ts))
	for i, n := range ts {
		c := *n.Ticket
		c.State, c.MatchID, c.Reason, c.UpdatedAt = cupid.StateWaiting, "", "", c.CreatedAt
		out[i] = &c
	}
	return out
}

// LivePair is a key of the player index: a player in a queue.
type LivePair struct{ Queue, Player string }

// Simple reports whether a batch, on its own, stores every ticket as it
// comes: no request id and no (queue, player) twice. Only then can a store
// try it optimistically, writing without reading first and counting on its
// constraints (the request id's, the player index's) to fail the attempt
// where PlanCreate would have decided otherwise.
func Simple(ts []cupid.NewTicket) bool {
	rids := make(map[string]bool, len(ts))
	pairs := make(map[LivePair]bool, len(ts))
	for _, n := range ts {
		t := n.Ticket
		if t.RequestID != "" {
			if rids[t.RequestID] {
				return false
			}
			rids[t.RequestID] = true
		}
		for _, p := range t.Players {
			k := LivePair{t.Key.Queue, p.ID}
			if pairs[k] {
				return false
			}
			pairs[k] = true
		}
	}
	return true
}

// Lookup is what a batch depends on, as a store read it: the live tickets
// of the batch's (queue, player) pairs, the stored tickets with its
// request ids, and, where the store cannot count on a constraint for it,
// which of its ticket ids are taken.
type Lookup struct {
	Live      map[LivePair]string      // (queue, player) → live ticket id
	ByRequest map[string]string        // request id → ticket id
	Tickets   map[string]*cupid.Ticket // the tickets those name, as read
	Taken     map[string]bool          // ticket ids of the batch already stored
}

// NewLookup returns an empty Lookup.
func NewLookup() *Lookup {
	return &Lookup{Live: map[LivePair]string{}, ByRequest: map[string]string{}, Tickets: map[string]*cupid.Ticket{}, Taken: map[string]bool{}}
}

// Pairs lists the distinct (queue, player) pairs and request ids a batch
// depends on, for a store's lookup.
func Pairs(ts []cupid.NewTicket) (pairs []LivePair, rids []string) {
	seenPair := map[LivePair]bool{}
	seenRID := map[string]bool{}
	for _, n := range ts {
		t := n.Ticket
		if t.RequestID != "" && !seenRID[t.RequestID] {
			seenRID[t.RequestID] = true
			rids = append(rids, t.RequestID)
		}
		for _, p := range t.Players {
			if k := (LivePair{t.Key.Queue, p.ID}); !seenPair[k] {
				seenPair[k] = true
				pairs = append(pairs, k)
			}
		}
	}
	return pairs, rids
}

// CreatePlan is the outcome of a batch, decided before anything is
// written.
type CreatePlan struct {
	// Rows are the new tickets to insert, in their final state (a ticket
	// replaced later in its own batch goes in cancelled), each with its
	// index in the batch.
	Rows []NewRow
	// Cancels are stored tickets the batch replaced, as they are to be
	// stored: cancelled, with their reason and time. They are written
	// before Rows, so that their players are free for the new tickets.
	Cancels []*cupid.Ticket
	// Events are every event of the batch, in the order their sequence
	// numbers follow.
	Events []cupid.Event

	out      []cupid.Created
	resultID []string   // the ticket each result shows; "" when refused
	replaced [][]string // the tickets each new ticket replaced
	tickets  map[string]*cupid.Ticket
}

// NewRow is a ticket to insert and its index in the batch.
type NewRow struct {
	Ticket *cupid.Ticket
	Index  int
}

// SimplePlan is the plan of a simple batch on a store that holds none of
// its request ids and players: every ticket stored as it comes. fresh are
// the batch's tickets as Fresh returns them.
func SimplePlan(fresh []*cupid.Ticket) *CreatePlan {
	p := &CreatePlan{out: make([]cupid.Created, len(fresh)), Rows: make([]NewRow, len(fresh)), Events: make([]cupid.Event, len(fresh))}
	for i, t := range fresh {
		p.out[i].Ticket = t
		p.Rows[i] = NewRow{t, i}
		p.Events[i] = cupid.Event{TicketID: t.ID, Kind: cupid.EventCreated, At: t.CreatedAt}
	}
	return p
}

// PlanCreate decides a batch ticket by ticket, in order, given what the
// store holds (lk, which it updates as it goes). fresh are the batch's
// tickets as Fresh returns them; refuse, when set, is a store's own refusal
// of a ticket it cannot hold (checked after the duplicate players). The
// only call-level outcome is a ticket id already stored (Lookup.Taken).
func PlanCreate(ts []cupid.NewTicket, fresh []*cupid.Ticket, lk *Lookup, refuse func(*cupid.Ticket) error) (*CreatePlan, error) {
	p := &CreatePlan{
		out: make([]cupid.Created, len(ts)), resultID: make([]string, len(ts)), replaced: make([][]string, len(ts)),
		tickets: make(map[string]*cupid.Ticket, len(ts)+len(lk.Tickets)), Events: make([]cupid.Event, 0, len(ts)),
	}
	stored := make(map[string]bool, len(lk.Tickets))
	for id, t := range lk.Tickets {
		c := *t
		p.tickets[id] = &c
		stored[id] = true
	}
	for i, n := range ts {
		t := n.Ticket
		if t.RequestID != "" {
			if id, ok := lk.ByRequest[t.RequestID]; ok {
				p.resultID[i], p.out[i].Existed = id, true
				continue
			}
		}
		if err := duplicatePlayer(t); err != nil {
			p.out[i].Err = err
			continue
		}
		if refuse != nil {
			if err := refuse(t); err != nil {
				p.out[i].Err = err
				continue
			}
		}
		q := t.Key.Queue
		var conflicts []string
		for j, pl := range t.Players {
			id, ok := lk.Live[LivePair{q, pl.ID}]
			if !ok || slices.Contains(conflicts, id) {
				continue
			}
			if !n.Replace {
				p.out[i].Err = liveTicketExists(j, pl.ID, id, q)
				break
			}
			conflicts = append(conflicts, id)
		}
		if p.out[i].Err != nil {
			continue
		}
		if lk.Taken[t.ID] {
			return nil, cupid.Conflict("id", "ticket id %q is taken", t.ID)
		}
		for _, id := range conflicts {
			// A ticket of this batch replaced here is inserted
			// cancelled: its row is this same value.
			old := p.tickets[id]
			old.State, old.Reason, old.UpdatedAt = cupid.StateCancelled, ReplacedReason(t.ID), t.CreatedAt.UTC()
			for _, pl := range old.Players {
				if k := (LivePair{old.Key.Queue, pl.ID}); lk.Live[k] == id {
					delete(lk.Live, k)
				}
			}
			if stored[id] {
				p.Cancels = append(p.Cancels, old)
			}
			p.Events = append(p.Events, cupid.Event{TicketID: id, Kind: cupid.EventCancelled, At: t.CreatedAt, Reason: old.Reason})
		}
		nt := fresh[i]
		p.tickets[t.ID] = nt
		p.Rows = append(p.Rows, NewRow{nt, i})
		if t.RequestID != "" {
			lk.ByRequest[t.RequestID] = t.ID
		}
		for _, pl := range t.Players {
			lk.Live[LivePair{q, pl.ID}] = t.ID
		}
		p.Events = append(p.Events, cupid.Event{TicketID: t.ID, Kind: cupid.EventCreated, At: t.CreatedAt})
		p.resultID[i], p.replaced[i] = t.ID, conflicts
	}
	return p, nil
}

// Results are the plan's answers, each with its own copy of its ticket as
// stored at the end of the call. A store calls it once, after its commit.
func (p *CreatePlan) Results() []cupid.Created {
	if p.tickets == nil {
		return p.out // a simple plan's results hold their own tickets
	}
	for i, id := range p.resultID {
		if id == "" {
			continue
		}
		p.out[i].Ticket = copyTicket(p.tickets[id])
		for _, r := range p.replaced[i] {
			p.out[i].Replaced = append(p.out[i].Replaced, copyTicket(p.tickets[r]))
		}
	}
	return p.out
}

func copyTicket(t *cupid.Ticket) *cupid.Ticket {
	c := *t
	return &c
}

// duplicatePlayer refuses a ticket naming a player twice, that ticket
// alone: the player index holds one entry per player and queue.
func duplicatePlayer(t *cupid.Ticket) error {
	for j, p := range t.Players {
		for k := range j {
			if t.Players[k].ID == p.ID {
				return cupid.Invalid(fmt.Sprintf("players[%d].id", j), "player %q is already players[%d]", p.ID, k)
			}
		}
	}
	return nil
}

// liveTicketExists is the error of a create refused because players[j]
// already has a live ticket in the queue.
func liveTicketExists(j int, player, ticket, queue string) error {
	return cupid.Errorf(cupid.CodeAlreadyExists, fmt.Sprintf("players[%d].id", j),
		"player %q already has live ticket %s in queue %q; cancel it or ask to replace it", player, ticket, queue)
}

// ReplacedReason is the reason of a ticket cancelled because a new ticket
// took its place.
func ReplacedReason(newTicket string) string { return "replaced by ticket " + newTicket }
