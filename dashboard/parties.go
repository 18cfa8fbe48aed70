package dashboard

import (
	"time"

	"github.com/cupid-match/cupid/party"
)

// maxListedParties bounds the parties a snapshot lists.
const maxListedParties = 200

// partyRow is one party as the parties page lists it. The join code is
// left out: it lets anyone join, and an operator has no use for it.
type partyRow struct {
	ID        string      `json:"id"`
	Leader    string      `json:"leader"`
	Members   []memberRow `json:"members"`
	Invites   []string    `json:"invites"`
	Phase     string      `json:"phase"`
	Queue     string      `json:"queue,omitempty"`
	TicketID  string      `json:"ticket_id,omitempty"`
	MatchID   string      `json:"match_id,omitempty"`
	Events    int64       `json:"events"`
	CreatedAt time.Time   `json:"created_at"`
}

type memberRow struct {
	ID    string `json:"id"`
	Ready bool   `json:"ready"`
}

// parties is the parties page's snapshot: the first parties by id and how
// many there are in all, with the totals the page sums up.
func (s *server) parties() (any, error) {
	all := s.o.Parties.List("", 0)
	out := struct {
		Parties []partyRow `json:"parties"`
		Total   int        `json:"total"`
		Members int        `json:"members"`
		Invites int        `json:"invites"`
		Queued  int        `json:"queued"`
	}{Parties: []partyRow{}, Total: len(all)}
	for _, p := range all {
		out.Members += len(p.Members)
		out.Invites += len(p.Invites)
		if p.Phase != party.Idle {
			out.Queued++
		}
		if len(out.Parties) == maxListedParties {
			continue
		}
		r := partyRow{ID: p.ID, Leader: p.Leader, Phase: string(p.Phase), Queue: p.Queue, TicketID: p.TicketID,
			MatchID: p.MatchID, Events: p.Seq, CreatedAt: p.CreatedAt, Invites: []string{}}
		for _, m := range p.Members {
			r.Members = append(r.Members, memberRow{ID: m.ID, Ready: m.Ready})
		}
		for _, i := range p.Invites {
			r.Invites = append(r.Invites, i.Player)
		}
		out.Parties = append(out.Parties, r)
	}
	return out, nil
}
