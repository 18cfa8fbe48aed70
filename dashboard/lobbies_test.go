package dashboard

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cupid-match/cupid/lobby"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// The lobbies page's snapshot lists the lobbies with their teams, who is
// ready, and counts them by state; the code is not shown.
func TestLobbiesSnapshot(t *testing.T) {
	store := memstore.New()
	log := slog.New(slog.DiscardHandler)
	ts, err := ticketsvc.New(ticketsvc.Options{Store: store, Documents: store, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules)}}})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := lobbysvc.New(lobbysvc.Options{Docs: store, Matches: lobbysvc.FromTickets(ts), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ts.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ls.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ts.Close)
	t.Cleanup(ls.Close)
	v, err := ls.CreateLobby(ctx, lobbysvc.NewLobby{Host: "ann", Settings: lobby.Settings{Name: "scrim", Queue: "duel", Teams: 2, TeamSize: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Join(ctx, v.ID, "", "bob", nil, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.SetReady(ctx, v.ID, "bob", true); err != nil {
		t.Fatal(err)
	}
	h, s := newServer(Options{Tickets: ts, Lobbies: ls, Logger: log})
	snap := s.lobbies()
	out := snap["lobbies"].([]lobbyOut)
	if len(out) != 1 || snap["total"] != 1 || snap["states"].(map[string]int)["open"] != 1 {
		t.Fatalf("snapshot %+v", snap)
	}
	l := out[0]
	if l.Name != "scrim" || l.Seats != 4 || l.Free != 2 || len(l.Teams) != 2 || l.Teams[0][0].ID != "ann" || l.Teams[0][0].Ready || !l.Teams[1][0].Ready {
		t.Fatalf("lobby %+v", l)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, status := openStream(t, sctx, srv.URL+APIPrefix+"stream?page=lobbies"); status != http.StatusOK {
		t.Fatalf("the lobbies stream: %d", status)
	}
}
