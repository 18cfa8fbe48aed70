package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/service/retentionsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
	"github.com/cupid-match/cupid/sim"
)

// retentionQueues keep ended tickets and matches an hour; the passes'
// interval is long, so the test runs the passes it wants itself.
const retentionQueues = `
queues:
  - name: duel
    ticket_ttl: 24h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
retention:
  tickets: 1h
  matches: 1h
  interval: 24h
  export: {dir: export}
`

// TestRetentionThroughTheServer: what ended more than an hour ago goes,
// written first to the export beside the configuration file; what lives
// stays; a backend resuming from before the horizon is told where to
// resume, and the Go client resumes there after re-reading.
func TestRetentionThroughTheServer(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { retentionScenario(t, "") })
	t.Run("postgres", func(t *testing.T) { retentionScenario(t, postgresURL(t)) })
}

func retentionScenario(t *testing.T, store string) {
	cfg := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(cfg, []byte(retentionQueues), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := &clockServer{clock: testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))}
	started := make(chan *ticketsvc.Service, 1)
	var ret *retentionsvc.Service
	cs.testServer = startServer(t, serveFlags{config: cfg, data: t.TempDir(), store: store, hooks: &serveHooks{
		now:       cs.clock.Now,
		started:   func(mm *ticketsvc.Service) { started <- mm },
		retention: func(r *retentionsvc.Service) { ret = r },
	}})
	cs.mm = <-started
	cs.c = cs.connectClient()
	ctx := context.Background()
	evs := backend(t, cs.testServer, "duel", 0)

	ann, ben := create(t, cs.c, "duel", player("ann", 1500)), create(t, cs.c, "duel", player("ben", 1510))
	formed := nextMatchEvent(t, evs)
	if formed.GetKind() != "formed" {
		t.Fatalf("first event %v", formed)
	}
	mc := cs.matchClient()
	if _, err := mc.EndSession(ctx, connect.NewRequest(&cupidv1.EndSessionRequest{Id: formed.GetMatch().GetId()})); err != nil {
		t.Fatal(err)
	}
	ended := nextMatchEvent(t, evs)
	cat := create(t, cs.c, "duel", player("cat", 2900))
	if _, err := cs.c.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: cat.GetId()})); err != nil {
		t.Fatal(err)
	}
	dan := create(t, cs.c, "duel", player("dan", 2900)) // waits: nobody near his skill

	cs.clock.Advance(2 * time.Hour)
	rep, err := ret.Pass(ctx, cupid.Fence{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kinds[0].Removed != 3 || rep.Kinds[1].Removed != 1 || rep.Kinds[0].Exported != 3 || rep.Kinds[1].Exported != 1 {
		t.Fatalf("the pass removed %+v", rep.Kinds)
	}
	tr, err := sim.ReadExport(filepath.Join(filepath.Dir(cfg), "export"), "duel", cs.clock.Now().Add(-3*time.Hour), cs.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Tickets) != 3 || len(tr.Matches) != 1 || !tr.HasActual() || tr.Matches[0].ID != formed.GetMatch().GetId() {
		t.Fatalf("the export read back: %+v", tr)
	}
	for _, id := range []string{ann.GetId(), ben.GetId(), cat.GetId()} {
		_, err := cs.c.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
		if connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("ticket %s after retention: %v", id, err)
		}
	}
	if res, err := cs.c.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: dan.GetId()})); err != nil || res.Msg.GetTicket().GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("the waiting ticket after retention: %v, %v", res, err)
	}

	// A backend that resumes from 0 is told where to resume.
	cl := client.New(cs.url)
	err = cl.WatchMatches(ctx, "duel", 0, func(*cupidv1.MatchEvent) error { return nil })
	h, ok := client.PastHorizon(err)
	if !ok || h != ended.GetSeq() {
		t.Fatalf("resuming from 0: %v (resume after %d, %v), want out_of_range naming %d", err, h, ok, ended.GetSeq())
	}
	// So is one over the match WebSocket: closed with out_of_range and the
	// number, not "try again later".
	wsCtx, wsCancel := context.WithTimeout(ctx, 30*time.Second) // a failure guard
	defer wsCancel()
	ws, _, err := websocket.Dial(wsCtx, "ws"+strings.TrimPrefix(cs.url, "http")+"/v1/queues/duel/matches/ws?after_seq=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.Read(wsCtx)
	want := fmt.Sprintf("out_of_range: resume after %d", ended.GetSeq())
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != api.StatusOutOfRange || ce.Reason != want {
		t.Fatalf("the match WebSocket from 0: %v, want close %d %q", err, api.StatusOutOfRange, want)
	}
	// The Go client re-reads and resumes there, and hears the next match.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gaps := make(chan int64, 1)
	got := make(chan *cupidv1.MatchEvent, 4)
	done := make(chan error, 1)
	go func() {
		done <- cl.WatchMatchesPastHorizon(wctx, "duel", 0,
			func(_ context.Context, after int64) error { gaps <- after; return nil },
			func(ev *cupidv1.MatchEvent) error { got <- ev; return nil })
	}()
	guard := time.After(30 * time.Second) // a failure guard, not a timing
	select {
	case g := <-gaps:
		if g != ended.GetSeq() {
			t.Fatalf("gap at %d, want %d", g, ended.GetSeq())
		}
	case <-guard:
		t.Fatal("no gap reported")
	}
	create(t, cs.c, "duel", player("eve", 2910))
	select {
	case ev := <-got:
		if ev.GetKind() != "formed" || ev.GetSeq() <= ended.GetSeq() {
			t.Fatalf("after the gap: %v", ev)
		}
	case err := <-done:
		t.Fatalf("the watch ended: %v", err)
	case <-guard:
		t.Fatal("no match after the gap")
	}
}
