package ticketsvc

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	cupid "github.com/cupid-match/cupid"
)

// Traces follow a ticket from its request to the player being told (see
// docs/deployment.md): the request's span (CreateTickets, under the
// caller's RPC span), the intake's group commit (one span for the batch,
// linked to every request in it), the match commit (one span for the
// pool's batch of matches, linked to the requests of the tickets it
// matched) and the notification of the watchers within it. A match's
// hand-off is a span under the backend's AssignMatch call. Spans of one
// ticket are tied by links, not parentage: one group commit serves many
// requests, and the commit of a match serves its tickets' requests.
//
// To link a commit to its tickets' requests the service keeps the request
// span of each sampled ticket while it is live: nothing when tracing is
// off or the ticket is not sampled.

// tracing holds the tracer and the live tickets' request spans.
type tracing struct {
	tracer trace.Tracer
	mu     sync.Mutex
	live   map[string]trace.SpanContext
}

func newTracing(t trace.Tracer) *tracing {
	if t == nil {
		t = noop.NewTracerProvider().Tracer("")
	}
	return &tracing{tracer: t, live: map[string]trace.SpanContext{}}
}

// start begins a span; kv are its attributes.
func (tr *tracing) start(ctx context.Context, name string, links []trace.Link, kv ...attribute.KeyValue) (context.Context, trace.Span) {
	return tr.tracer.Start(ctx, name, trace.WithLinks(links...), trace.WithAttributes(kv...))
}

// remember keeps a stored ticket's request span, when it was sampled.
func (tr *tracing) remember(id string, sc trace.SpanContext) {
	if !sc.IsSampled() {
		return
	}
	tr.mu.Lock()
	tr.live[id] = sc
	tr.mu.Unlock()
}

// links returns the request spans of tickets and, when forget is set,
// stops keeping them (the tickets left waiting).
func (tr *tracing) links(ids []string, forget bool) []trace.Link {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.live) == 0 {
		return nil
	}
	var out []trace.Link
	for _, id := range ids {
		if sc, ok := tr.live[id]; ok {
			out = append(out, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{attribute.String("cupid.ticket_id", id)}})
			if forget {
				delete(tr.live, id)
			}
		}
	}
	return out
}

// forget stops keeping the request spans of tickets that ended.
func (tr *tracing) forget(ts ...*cupid.Ticket) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.live) == 0 {
		return
	}
	for _, t := range ts {
		delete(tr.live, t.ID)
	}
}
