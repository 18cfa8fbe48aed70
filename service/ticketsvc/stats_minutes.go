package ticketsvc

import (
	"time"

	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// QueueMinutes returns every configured queue's figures for each whole
// minute starting in [from, to) that this node saw (only the last hour is
// held), oldest first per queue: what a history kept in the store is made
// of.
func (s *Service) QueueMinutes(from, to time.Time) []queuestats.Minute {
	s.sampleArrivals(s.now())
	var out []queuestats.Minute
	for _, q := range s.Queues() {
		out = append(out, s.statsRec.Minutes(q, from, to)...)
	}
	return out
}
