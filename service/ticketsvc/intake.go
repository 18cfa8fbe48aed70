package ticketsvc

import (
	"context"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	cupid "github.com/cupid-match/cupid"
)

// createReq is one ticket on its way through the intake. The caller has
// reserved its pool; the intake hands the reservation over to the stored
// ticket or gives it back.
type createReq struct {
	t       *cupid.Ticket
	replace bool
	pool    *pool
	index   int // position in the caller's batch
	res     Created
	done    chan struct{}
	// span is the request's span (trace.go).
	span trace.SpanContext
}

// maxIntakeBatch bounds one group commit (but for one call's tickets,
// which are never split: a batch may reach maxIntakeBatch plus one bulk
// call). Bigger batches amortise the fsync further but make the first
// caller of the batch wait longer.
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
		case g := <-s.intake:
			batch = append(batch, g...)
		case <-s.ctx.Done():
			return
		}
	fill:
		for len(batch) < maxIntakeBatch {
			select {
			case g := <-s.intake:
				batch = append(batch, g...)
			default:
				break fill
			}
		}
		s.commitIntake(batch)
	}
}

func (s *Service) commitIntake(batch []*createReq) {
	nts := make([]cupid.NewTicket, len(batch))
	var links []trace.Link
	for i, r := range batch {
		nts[i] = cupid.NewTicket{Ticket: r.t, Replace: r.replace}
		if r.span.IsSampled() && (i == 0 || !batch[i-1].span.Equal(r.span)) {
			links = append(links, trace.Link{SpanContext: r.span})
		}
	}
	_, span := s.trace.start(s.ctx, "cupid.intake", links, attribute.Int("cupid.batch", len(batch)))
	defer span.End()
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	results, events, err := s.store.CreateTickets(ctx, nts)
	cancel()
	if err != nil {
		s.log.Error("storing tickets failed", "tickets", len(batch), "err", err)
		span.SetStatus(codes.Error, err.Error())
		s.ready.failed()
		for _, r := range batch {
			s.release(r.pool, 1)
			r.res = Created{Err: cupid.Errorf(cupid.CodeUnavailable, "", "the ticket could not be stored now; try again")}
			close(r.done)
		}
		return
	}
	s.metrics.intakeBatch.Observe(float64(len(batch)))
	// Before the pools see the tickets: a ticket's history in the hub must
	// begin with its created event, ahead of its match.
	s.hub.publish(events...)
	byPool := map[*pool][]*cupid.Ticket{}
	for i, r := range batch {
		res := results[i]
		switch {
		case res.Err != nil:
			r.res = Created{Err: res.Err}
		case res.Existed:
			if !res.Ticket.SameRequest(r.t) {
				r.res = Created{Err: cupid.Conflict("request_id",
					"request id %q was used for ticket %s with a different body; use a new request id for a new ticket", r.t.RequestID, res.Ticket.ID)}
			} else {
				r.res = Created{Ticket: res.Ticket, Existed: true}
			}
		default:
			r.res = Created{Ticket: res.Ticket}
			// The pool keeps the request's own ticket, the same values as
			// the store's answer: the answer is the caller's to drop, so a
			// waiting ticket is held once, not twice.
			byPool[r.pool] = append(byPool[r.pool], r.t)
			s.trace.remember(r.t.ID, r.span)
			s.metrics.tickets.WithLabelValues(res.Ticket.Key.Queue, string(cupid.StateWaiting)).Inc()
			for _, old := range res.Replaced {
				s.metrics.tickets.WithLabelValues(old.Key.Queue, string(cupid.StateCancelled)).Inc()
			}
			s.ended(nil, res.Replaced...)
			continue
		}
		s.release(r.pool, 1)
	}
	delete(byPool, nil) // tickets of pools other nodes run
	for p, ts := range byPool {
		p.do(func(p *pool) {
			for _, t := range ts {
				p.add(t)
			}
		})
	}
	for _, r := range batch {
		close(r.done)
	}
}

// newID returns a UUIDv7: sortable by creation time, which keeps the
// store's indexes append-mostly.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
