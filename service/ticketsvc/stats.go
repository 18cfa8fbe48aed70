package ticketsvc

import (
	"context"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// The queue statistics people watch are kept by package queuestats; this
// file feeds it (matches as pools commit them, arrivals from the tickets
// counter the service keeps for Prometheus) and answers with it.

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
	s.liveMatched(key, m, pr, waits, now) // shadows' and canaries' live figures (shadow.go)
	if s.statsRec.Due(now) {
		s.sampleArrivals(now)
	}
}

// sampleArrivals hands the statistics each configured queue's count of
// created tickets.
func (s *Service) sampleArrivals(now time.Time) {
	counts := map[string]float64{}
	for _, q := range s.Queues() {
		c, err := s.metrics.tickets.GetMetricWithLabelValues(q, string(cupid.StateWaiting))
		if err != nil {
			continue
		}
		var m dto.Metric
		if c.Write(&m) == nil {
			counts[q] = m.GetCounter().GetValue()
		}
	}
	s.statsRec.Arrivals(counts, now)
}

// QueueStatistics reports every configured queue (or one), each with its
// arrivals, matches, waits and quality, and its queue keys'. Waiting
// counts come from the pools as Stats gives them.
func (s *Service) QueueStatistics(ctx context.Context, queue string) ([]queuestats.QueueStats, error) {
	pools, err := s.Stats(ctx, queue)
	if err != nil {
		return nil, err
	}
	now := s.now()
	s.sampleArrivals(now)
	held := make([]queuestats.Pool, len(pools))
	for i, p := range pools {
		held[i] = queuestats.Pool{Key: p.Key, Waiting: p.Waiting, Players: p.Players, OldestWait: p.OldestWait, RulesetVersion: p.RulesetVersion}
	}
	return s.statsRec.Report(s.Queues(), queue, held, now), nil
}

// RecentMatches returns the most recent matches, newest first: of one queue
// when queue is set, those with a ticket or player id when who is set, at
// most limit (all kept when limit ≤ 0).
func (s *Service) RecentMatches(queue, who string, limit int) ([]queuestats.RecentMatch, error) {
	if queue != "" && s.queue(queue) == nil {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	return s.statsRec.Recent(queue, who, limit), nil
}

// MaxPlayerSearch bounds the tickets a search by player returns.
const MaxPlayerSearch = 20

// PlayerTickets finds a player's tickets: those waiting (a scan of the
// waiting tickets, for an operator's occasional search) and those of the
// recent matches, newest first, at most MaxPlayerSearch.
func (s *Service) PlayerTickets(ctx context.Context, player string) ([]*cupid.Ticket, error) {
	player = strings.TrimSpace(player)
	if player == "" {
		return nil, cupid.Invalid("player", "required")
	}
	if len(player) > 256 {
		return nil, cupid.Invalid("player", "at most 256 bytes")
	}
	waiting, err := s.store.WaitingTickets(ctx)
	if err != nil {
		return nil, s.storeError(err)
	}
	var out []*cupid.Ticket
	seen := map[string]bool{}
	for i := len(waiting) - 1; i >= 0 && len(out) < MaxPlayerSearch; i-- {
		if slices.Contains(waiting[i].PlayerIDs(), player) {
			out = append(out, waiting[i])
			seen[waiting[i].ID] = true
		}
	}
	ms, _ := s.RecentMatches("", player, MaxPlayerSearch)
	for _, m := range ms {
		for _, team := range m.Teams {
			for _, id := range team.Tickets {
				if seen[id] || len(out) >= MaxPlayerSearch {
					continue
				}
				t, err := s.store.Ticket(ctx, id)
				if err != nil || !slices.Contains(t.PlayerIDs(), player) {
					continue // another player's ticket, or gone from the store
				}
				seen[id] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}
