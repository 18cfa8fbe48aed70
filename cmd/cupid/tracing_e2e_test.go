package main

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/cupid-match/cupid/internal/tracing"
)

// collector is an OTLP/HTTP trace receiver: it keeps every span it is
// sent and tells the test each time more arrive.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	more  chan struct{}
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if r.URL.Path != "/v1/traces" || err != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
	c.mu.Unlock()
	select {
	case c.more <- struct{}{}:
	default:
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(b)
}

// named returns the spans received so far by name.
func (c *collector) named() map[string][]*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]*tracepb.Span{}
	for _, s := range c.spans {
		out[s.GetName()] = append(out[s.GetName()], s)
	}
	return out
}

// TestTracesReachACollector: a server started with --otlp-endpoint sends
// the spans of two players' tickets, from their CreateTicket calls to the
// commit of their match, to an OTLP collector; the commit links both
// requests.
func TestTracesReachACollector(t *testing.T) {
	col := &collector{more: make(chan struct{}, 1)}
	srv := httptest.NewServer(col)
	defer srv.Close()
	s := startServer(t, serveFlags{tracing: tracing.Config{Endpoint: srv.URL, Ratio: 1, BatchTimeout: 50 * time.Millisecond}})
	c := s.connectClient()
	a := create(t, c, "duel", player("ann", 1500))
	create(t, c, "duel", player("ben", 1510))
	if ev := waitFinal(t, c, a.GetId(), 0); ev.GetKind() != "matched" {
		t.Fatalf("ann's ticket: %v", ev)
	}
	want := []string{"cupid.v1.TicketService/CreateTicket", "cupid.CreateTickets", "cupid.intake", "cupid.commit", "cupid.notify"}
	deadline := time.After(30 * time.Second)
	for {
		got := col.named()
		missing := ""
		for _, name := range want {
			if len(got[name]) == 0 {
				missing = name
				break
			}
		}
		if missing == "" {
			creates := map[string]bool{}
			for _, sp := range got["cupid.CreateTickets"] {
				creates[string(sp.GetSpanId())] = true
			}
			links := 0
			for _, l := range got["cupid.commit"][0].GetLinks() {
				if creates[string(l.GetSpanId())] {
					links++
				}
			}
			if links != 2 {
				t.Errorf("the match's commit links %d of the two requests", links)
			}
			return
		}
		select {
		case <-col.more:
		case <-deadline:
			t.Fatalf("no %s span reached the collector within 30s; got %v", missing, slices.Collect(maps.Keys(got)))
		}
	}
}

// TestTracingFlagsRefused: a tracing setting that cannot work stops the
// server before it starts, naming the flag.
func TestTracingFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  tracing.Config
		flag string
	}{
		{tracing.Config{Endpoint: "collector:4318", Ratio: 1}, "--otlp-endpoint"},
		{tracing.Config{Endpoint: "ftp://collector", Ratio: 1}, "--otlp-endpoint"},
		{tracing.Config{Endpoint: "http://collector:4318", Ratio: 1.5}, "--trace-sample-ratio"},
	} {
		err := serve(context.Background(), serveFlags{addr: "127.0.0.1:0", data: t.TempDir(), tracing: c.cfg}, slog.New(slog.DiscardHandler), nil)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%+v: %v, want a refusal naming %s", c.cfg, err, c.flag)
		}
	}
}
