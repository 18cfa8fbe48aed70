package ticketsvc

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
	"github.com/cupid-match/cupid/service/ticketsvc/stats"
)

// The queue statistics people watch are kept by package queuestats; this
// file feeds it with matches as pools commit them, and package stats
// answers with it (Service.Statistics).

// recordMatch records a committed match with its tickets' waits. It runs on
// the pool's goroutine (one call in pool.committed); the tickets' creation
// times come from the engine's proposal, whose tickets are in the match's
// order, team by team. Without them (pr nil) the waits are unknown.
func (s *Service) recordMatch(key cupid.QueueKey, m *cupid.Match, pr *engine.Proposal, now time.Time) {
	n := 0
	for _, team := range m.Teams {
		n += len(team.TicketIDs)
	}
	waits := make([]time.Duration, n)
	for i := range waits {
		waits[i] = -1
		if pr != nil && pr.Len() == n {
			waits[i] = max(now.Sub(pr.CreatedAt(i)), 0)
		}
	}
	s.statsRec.Matched(key, m, waits, now)
	s.roll.LiveMatched(key, m, pr, waits, now) // shadows' and canaries' live figures (package canary)
	if s.statsRec.Due(now) {
		s.stats.SampleArrivals(now)
	}
}

// statsPools is this service's side of stats.Pools: what each pool holds
// now, as Stats reports it.
type statsPools struct{ s *Service }

var _ stats.Pools = statsPools{}

// Held reports the pools of a queue (every queue for "").
func (h statsPools) Held(ctx context.Context, queue string) ([]queuestats.Pool, error) {
	pools, err := h.s.Stats(ctx, queue)
	if err != nil {
		return nil, err
	}
	held := make([]queuestats.Pool, len(pools))
	for i, p := range pools {
		held[i] = queuestats.Pool{Key: p.Key, Waiting: p.Waiting, Players: p.Players, OldestWait: p.OldestWait, RulesetVersion: p.RulesetVersion}
	}
	return held, nil
}
