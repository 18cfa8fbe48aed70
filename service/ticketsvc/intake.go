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
	// sent is when the request was handed to the intake (commitWindow).
	sent time.Time
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
// pools and answers the callers. Under light load a batch would be one
// ticket and every ticket would pay a commit of its own; the commit window
// (commitWindow) lets a batch wait a moment for company when the last
// batches show that more creates are on their way, so several share one
// commit. Nobody waits for company that is not coming.
func (s *Service) runIntake() {
	defer s.wg.Done()
	batch := make([]*createReq, 0, maxIntakeBatch)
	var timer *time.Timer
	var stored time.Time // when the last batch was stored
	for {
		batch = batch[:0]
		select {
		case g := <-s.intake:
			batch = append(batch, g...)
		case <-s.ctx.Done():
			return
		}
		// A request sent before the last batch was stored arrived while
		// it was being stored: creates come from more than one caller.
		queued := batch[0].sent.Before(stored)
		batch = s.drainIntake(batch)
		gathered := false
		if s.window.wait(queued, len(batch)) {
			if timer == nil {
				timer = time.NewTimer(s.window.max)
			} else {
				timer.Reset(s.window.max)
			}
			n := len(batch)
		gather:
			for len(batch) < s.window.enough {
				select {
				case g := <-s.intake:
					batch = s.drainIntake(append(batch, g...))
				case <-timer.C:
					break gather
				case <-s.ctx.Done():
					break gather
				}
			}
			timer.Stop()
			gathered = len(batch) > n
		}
		s.window.waited(gathered)
		stored = s.commitIntake(batch)
	}
}

// drainIntake adds the create requests waiting now to batch, up to
// maxIntakeBatch (a bulk call's tickets are never split).
func (s *Service) drainIntake(batch []*createReq) []*createReq {
	for len(batch) < maxIntakeBatch {
		select {
		case g := <-s.intake:
			batch = append(batch, g...)
		default:
			return batch
		}
	}
	return batch
}

// DefaultCommitWindow is how long a batch of new tickets may wait for
// company before it is stored, when company is likely (commitWindow). A
// commit costs the server about as much CPU as a ticket's whole trip
// through the API, so at a few hundred creates a second sharing it halves
// the CPU per ticket; the wait adds at most this to a create's answer.
const DefaultCommitWindow = 2 * time.Millisecond

// commitEnough is the batch size at which a batch stops waiting for
// company: its commit is then a small share of each ticket's cost.
const commitEnough = 32

// commitWindow decides whether a batch of new tickets waits for company.
// Waiting pays when another create is likely to arrive within the window,
// and costs a caller latency for nothing otherwise: a lone caller creating
// tickets one after another is never followed by anyone while it waits
// for its answer. So a batch waits only on evidence of other callers: a
// request that arrived while the last batch was being stored, or company
// that the last wait gathered. Evidence is taken afresh at every batch, so
// when the creates thin out the batches stop waiting at once. Only the
// intake goroutine uses it.
type commitWindow struct {
	max    time.Duration // zero: never wait
	enough int           // stop waiting at this many tickets
	// company says the last wait gathered more tickets.
	company bool
}

// wait says whether a batch of n tickets waits for company; queued says a
// request was waiting when the batch was taken.
func (w *commitWindow) wait(queued bool, n int) bool {
	return w.max > 0 && n < w.enough && (queued || w.company)
}

// waited records whether the batch's wait gathered company (false when it
// did not wait).
func (w *commitWindow) waited(gathered bool) { w.company = gathered }

// commitIntake stores a batch and answers its callers. It returns when
// the store was done with it, taken before any caller is answered: a
// caller's next request is then always sent after it, so the commit window
// does not read a lone caller's next create as company (it would wait the
// whole window for nobody).
func (s *Service) commitIntake(batch []*createReq) (durable time.Time) {
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
	durable = time.Now()
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
	s.hub.Publish(events...)
	byPool := map[*pool][]*cupid.Ticket{}
	var stored []*cupid.Ticket // the new tickets, for the hub's keys
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
			stored = append(stored, r.t)
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
	s.hub.setKeys(stored)
	delete(byPool, nil) // tickets of pools other nodes run
	if s.hub.own != nil {
		// The created events of the tickets this node's pools take in
		// now; those of queues other nodes run go round the database
		// as before, which also covers a queue this node takes over
		// before their notifications come.
		local := map[string]bool{}
		for _, ts := range byPool {
			for _, t := range ts {
				local[t.ID] = true
			}
		}
		s.hub.rememberOwn(events, func(ev cupid.Event) bool { return ev.Kind == cupid.EventCreated && local[ev.TicketID] })
	}
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
	return durable
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
