package partysvc

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/ticketsvc"
	"github.com/cupid-match/cupid/sqlite"
)

// BenchmarkPartyOnSQLite forms a party of three on the real SQLite store
// (create, invite, accept, join by code: four durable writes), queues it
// (a ticket and a write) and has every member leave (three writes, the
// first cancelling the ticket): what a party costs the server, one
// change at a time, each stored before it is told.
func BenchmarkPartyOnSQLite(b *testing.B) {
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.DiscardHandler)
	mm, err := ticketsvc.New(ticketsvc.Options{Store: store, Documents: store, Logger: log, Seed: 1,
		Queues: []ticketsvc.Queue{{Name: "trios", TTL: time.Hour, Ruleset: []byte(trios)}}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := mm.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer mm.Close()
	svc, err := New(Options{Docs: store, Tickets: mm, Logger: log, Queues: map[string]party.QueueRules{"trios": {MaxParty: 3}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	b.ResetTimer()
	for i := range b.N {
		a, c, d := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i), fmt.Sprintf("c%d", i)
		p, err := svc.Create(ctx, party.Member{ID: a})
		if err != nil {
			b.Fatal(err)
		}
		steps := []func() (*party.Party, error){
			func() (*party.Party, error) { return svc.Invite(ctx, p.ID, a, c) },
			func() (*party.Party, error) { return svc.Answer(ctx, p.ID, party.Member{ID: c}, true) },
			func() (*party.Party, error) { return svc.JoinByCode(ctx, p.Code, party.Member{ID: d}) },
			func() (*party.Party, error) { return svc.Queue(ctx, p.ID, a, "trios") },
			func() (*party.Party, error) { return svc.Leave(ctx, p.ID, c) },
			func() (*party.Party, error) { return svc.Leave(ctx, p.ID, d) },
			func() (*party.Party, error) { return svc.Leave(ctx, p.ID, a) },
		}
		for _, step := range steps {
			if _, err := step(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*8), "µs/change")
}
