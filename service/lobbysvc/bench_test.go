package lobbysvc

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cupid-match/cupid/lobby"
	"github.com/cupid-match/cupid/service/ticketsvc"
	"github.com/cupid-match/cupid/sqlite"
)

// BenchmarkJoinLeaveSQLite: one join and one leave of a lobby on the
// embedded store, each a durable document write (the cost of a lobby
// change is the store's fsync, not the rules).
func BenchmarkJoinLeaveSQLite(b *testing.B) {
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.DiscardHandler)
	mm, err := ticketsvc.New(ticketsvc.Options{Store: store, Documents: store, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules)}}})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := New(Options{Docs: store, Matches: FromTickets(mm), Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	ctx := context.Background()
	l, err := svc.CreateLobby(ctx, NewLobby{Host: "host", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 64}})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		p := fmt.Sprintf("p%d", i)
		if _, err := svc.Join(ctx, l.ID, "", p, nil, lobby.AnyTeam); err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Leave(ctx, l.ID, p); err != nil {
			b.Fatal(err)
		}
	}
}
