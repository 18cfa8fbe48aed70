package ticketsvc

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/internal/watchtest"
	"github.com/cupid-match/cupid/memstore"
)

// TestSpansFollowATicket: two players queue and are matched, a backend
// assigns the match. The spans tie each ticket's request to the group
// commit that stored it and to the commit of its match, under which the
// watchers are told; the hand-off is a span of its own.
func TestSpansFollowATicket(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	store := memstore.New()
	clk := testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	svc, err := New(Options{Store: store, Documents: store, Queues: queues(0), Now: clk.Now,
		Logger: slog.New(slog.DiscardHandler), Tracer: tp.Tracer("cupid")})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h := &harness{Service: svc, store: store, clock: clk}

	ctx := context.Background()
	a := h.create(t, ticket("duel", 1500, "ann"))
	evs, _ := watchtest.Collect(func(send func(cupid.Event) error) error { return h.Watch(ctx, a.ID, 0, send) })
	b := h.create(t, ticket("duel", 1510, "ben"))
	h.wait(time.Second)
	heard := []cupid.Event{watchtest.Next(t, evs), watchtest.Next(t, evs)}
	if got := kinds(heard); got != "created matched" {
		t.Fatalf("ann heard %q", got)
	}
	mid := heard[1].Match.ID
	if _, err := h.Handoff().AssignMatch(ctx, mid, cupid.Assignment{Server: "gs:1"}); err != nil {
		t.Fatal(err)
	}

	h.wait(0) // the pool has finished the step that committed the match, and its span
	spans := exp.GetSpans()
	byName := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
	}
	creates := byName["cupid.CreateTickets"]
	if len(creates) != 2 || len(byName["cupid.intake"]) != 2 || len(byName["cupid.commit"]) != 1 || len(byName["cupid.notify"]) != 1 || len(byName["cupid.AssignMatch"]) != 1 {
		t.Fatalf("spans: %v", names(spans))
	}
	linked := func(s tracetest.SpanStub) []string {
		var out []string
		for _, l := range s.Links {
			out = append(out, l.SpanContext.SpanID().String())
		}
		slices.Sort(out)
		return out
	}
	want := []string{creates[0].SpanContext.SpanID().String(), creates[1].SpanContext.SpanID().String()}
	slices.Sort(want)
	commit := byName["cupid.commit"][0]
	if got := linked(commit); !slices.Equal(got, want) {
		t.Errorf("the match's commit links %v, want both requests %v", got, want)
	}
	var intakes []string
	for _, s := range byName["cupid.intake"] {
		intakes = append(intakes, linked(s)...)
	}
	slices.Sort(intakes)
	if !slices.Equal(intakes, want) {
		t.Errorf("the group commits link %v, want the two requests %v", intakes, want)
	}
	if n := byName["cupid.notify"][0]; n.Parent.SpanID() != commit.SpanContext.SpanID() {
		t.Errorf("the watchers were told outside the commit's span")
	}
	// Matched tickets are no longer kept for linking.
	if got := h.trace.links([]string{a.ID, b.ID}, false); len(got) != 0 {
		t.Errorf("the matched tickets' request spans are still kept: %v", got)
	}
}

func names(ss tracetest.SpanStubs) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}
