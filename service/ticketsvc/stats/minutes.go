package stats

import (
	"slices"
	"time"

	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// QueueMinutes returns every configured queue's figures for each whole
// minute starting in [from, to) that this node saw (only the last hour is
// held), oldest first per queue: what a history kept in the store is made
// of.
func (s *Service) QueueMinutes(from, to time.Time) []queuestats.Minute {
	s.SampleArrivals(s.now())
	var out []queuestats.Minute
	for _, q := range s.queues {
		out = append(out, s.rec.Minutes(q, from, to)...)
	}
	return out
}

// Queues lists the configured queues, in order: those QueueMinutes and
// QueueStatistics report.
func (s *Service) Queues() []string { return slices.Clone(s.queues) }
