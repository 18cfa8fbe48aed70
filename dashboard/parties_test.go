package dashboard

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// The parties page's stream lists the parties with their members, ready
// flags, invites and state, live; a server without parties says so.
func TestPartiesStream(t *testing.T) {
	store := memstore.New()
	log := slog.New(slog.DiscardHandler)
	ts, err := ticketsvc.New(ticketsvc.Options{Store: store, Documents: store, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules)}}})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := partysvc.New(partysvc.Options{Docs: store, Tickets: ts, Logger: log, Limits: party.Limits{MaxMembers: 4}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, start := range []func(context.Context) error{ts.Start, ps.Start} {
		if err := start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(ts.Close)
	t.Cleanup(ps.Close)
	srv := httptest.NewServer(New(Options{Tickets: ts, Parties: ps, Logger: log, Interval: 10 * time.Millisecond}))
	defer srv.Close()

	p, err := ps.Create(ctx, party.Member{ID: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	s, status := openStream(t, ctx, srv.URL+APIPrefix+"stream?page=parties")
	if status != http.StatusOK {
		t.Fatalf("stream: %d", status)
	}
	defer s.res.Body.Close()
	if _, snap := s.next(t); snap["total"] != 1.0 || snap["members"] != 1.0 {
		t.Fatalf("first snapshot %v", snap)
	}
	if _, err := ps.Invite(ctx, p.ID, "ann", "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.SetReady(ctx, p.ID, "ann", true); err != nil {
		t.Fatal(err)
	}
	for {
		_, snap := s.next(t)
		row := snap["parties"].([]any)[0].(map[string]any)
		members := row["members"].([]any)
		if len(row["invites"].([]any)) == 1 && members[0].(map[string]any)["ready"] == true {
			if row["leader"] != "ann" || row["phase"] != "idle" || row["code"] != nil {
				t.Fatalf("the party's row %v", row)
			}
			break
		}
	}

	bare := httptest.NewServer(New(Options{Tickets: ts, Logger: log}))
	defer bare.Close()
	b := &fixture{url: bare.URL}
	b.do(t, "GET", APIPrefix+"stream?page=parties", "").refused(t, 404, "not_found", "page")
	if a := b.do(t, "GET", APIPrefix+"overview", "").ok(t); a.body["parties"] != false {
		t.Fatalf("overview without parties: %s", a.raw)
	}
}
