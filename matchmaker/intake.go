package matchmaker

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
)

type createReq struct {
	t    *cupid.Ticket
	done chan createRes
}

type createRes struct {
	t   *cupid.Ticket
	err error
}

// maxIntakeBatch bounds one group commit. Bigger batches amortise the fsync
// further but make the first caller of the batch wait longer.
const maxIntakeBatch = 1024

// runIntake makes tickets durable in batches: it takes every create request
// waiting at the moment (up to maxIntakeBatch), stores them in one
// transaction — one fsync for all — then hands the new tickets to their
// pools and answers the callers. Under light load a batch is one ticket, so
// nobody waits for company.
func (s *Service) runIntake() {
	defer s.wg.Done()
	batch := make([]*createReq, 0, maxIntakeBatch)
	for {
		batch = batch[:0]
		select {
		case r := <-s.intake:
			batch = append(batch, r)
		case <-s.ctx.Done():
			return
		}
	fill:
		for len(batch) < maxIntakeBatch {
			select {
			case r := <-s.intake:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		s.commitIntake(batch)
	}
}

func (s *Service) commitIntake(batch []*createReq) {
	ts := make([]*cupid.Ticket, len(batch))
	for i, r := range batch {
		ts[i] = r.t
	}
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	stored, created, err := s.store.CreateTickets(ctx, ts)
	cancel()
	if err != nil {
		s.log.Error("storing tickets failed", "tickets", len(ts), "err", err)
		for _, r := range batch {
			r.done <- createRes{err: cupid.Errorf(cupid.CodeUnavailable, "", "the ticket could not be stored; try again")}
		}
		return
	}
	s.metrics.intakeBatch.Observe(float64(len(batch)))
	// Before the pools see the tickets: a ticket's history in the hub must
	// begin with its created event, ahead of its match.
	s.hub.publish(created...)
	byPool := map[*pool][]*cupid.Ticket{}
	for i, t := range stored {
		if t.ID == ts[i].ID {
			byPool[s.pool(t.Key)] = append(byPool[s.pool(t.Key)], t)
			s.metrics.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateWaiting)).Inc()
		}
	}
	for p, ts := range byPool {
		p.do(func(p *pool) {
			for _, t := range ts {
				p.add(t)
			}
		})
	}
	for i, r := range batch {
		r.done <- createRes{t: stored[i]}
	}
}
