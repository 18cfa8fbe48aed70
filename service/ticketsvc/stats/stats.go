// Package stats answers for the queue statistics people watch: every
// queue's arrivals, matches, waits and quality (QueueStatistics, the
// dashboard's), its last matches (RecentMatches), a player's tickets
// (PlayerTickets, an operator's search) and each minute's figures
// (QueueMinutes, which package statshistory keeps).
//
// The figures themselves are package queuestats's (bounded rings, time as
// an input); package ticketsvc feeds its Recorder as pools commit matches
// and tickets leave, and this package reads it. It reaches the pools only
// through the one-method Pools interface below (what each pool holds now),
// so its tests run over the in-memory store with a stand-in.
package stats

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// Store is what the statistics read of the store: the waiting tickets and
// one ticket (a player's search).
type Store interface {
	WaitingTickets(ctx context.Context) ([]*cupid.Ticket, error)
	Ticket(ctx context.Context, id string) (*cupid.Ticket, error)
}

// Pools tells what the pools of a queue (every queue when queue is "")
// hold now; an unknown queue is refused with not_found naming "queue".
type Pools interface {
	Held(ctx context.Context, queue string) ([]queuestats.Pool, error)
}

// Options configure a Service.
type Options struct {
	// Recorder holds the figures; the ticket service feeds it.
	Recorder *queuestats.Recorder
	Store    Store
	Pools    Pools
	// Queues are the configured queues' names.
	Queues []string
	// Tickets is the ticket service's cupid_tickets_total (by queue and
	// state): the arrivals are its "waiting" counts.
	Tickets *prometheus.CounterVec
	Logger  *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service answers for the queue statistics.
type Service struct {
	rec     *queuestats.Recorder
	store   Store
	pools   Pools
	queues  []string // sorted
	tickets *prometheus.CounterVec
	log     *slog.Logger
	now     func() time.Time
}

// New builds the statistics' reader.
func New(o Options) (*Service, error) {
	if o.Recorder == nil || o.Store == nil || o.Pools == nil || o.Tickets == nil {
		return nil, errors.New("stats: a recorder, a store, the pools and the tickets counter are required")
	}
	s := &Service{rec: o.Recorder, store: o.Store, pools: o.Pools, queues: slices.Sorted(slices.Values(o.Queues)),
		tickets: o.Tickets, log: o.Logger, now: o.Now}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// SampleArrivals hands the figures each configured queue's count of
// created tickets. The ticket service calls it when the recorder says a
// sample is due; every read here takes one first.
func (s *Service) SampleArrivals(now time.Time) {
	counts := map[string]float64{}
	for _, q := range s.queues {
		c, err := s.tickets.GetMetricWithLabelValues(q, string(cupid.StateWaiting))
		if err != nil {
			continue
		}
		var m dto.Metric
		if c.Write(&m) == nil {
			counts[q] = m.GetCounter().GetValue()
		}
	}
	s.rec.Arrivals(counts, now)
}

// QueueStatistics reports every configured queue (or one), each with its
// arrivals, matches, waits and quality, and its queue keys'. Waiting
// counts come from the pools.
func (s *Service) QueueStatistics(ctx context.Context, queue string) ([]queuestats.QueueStats, error) {
	held, err := s.pools.Held(ctx, queue)
	if err != nil {
		return nil, err
	}
	now := s.now()
	s.SampleArrivals(now)
	return s.rec.Report(s.queues, queue, held, now), nil
}

// RecentMatches returns the most recent matches, newest first: of one queue
// when queue is set, those with a ticket or player id when who is set, at
// most limit (all kept when limit ≤ 0).
func (s *Service) RecentMatches(queue, who string, limit int) ([]queuestats.RecentMatch, error) {
	if queue != "" && !slices.Contains(s.queues, queue) {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	return s.rec.Recent(queue, who, limit), nil
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
		return nil, storeerr.Domain(s.log, err)
	}
	var out []*cupid.Ticket
	seen := map[string]bool{}
	for i := len(waiting) - 1; i >= 0 && len(out) < MaxPlayerSearch; i-- {
		if slices.Contains(waiting[i].PlayerIDs(), player) {
			out = append(out, waiting[i])
			seen[waiting[i].ID] = true
		}
	}
	for _, m := range s.rec.Recent("", player, MaxPlayerSearch) {
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
