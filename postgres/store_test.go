package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// openTemp opens a store in a new schema. When the test ends it checks that
// the player index holds exactly the players of the waiting tickets, then
// closes the store.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s := openAt(t, newSchema(t))
	t.Cleanup(func() { checkIndex(t, s) })
	return s
}

func TestContract(t *testing.T) {
	needServer(t)
	storetest.Run(t, func(t *testing.T) cupid.Store { return openTemp(t) })
}

func TestDocumentsContract(t *testing.T) {
	needServer(t)
	storetest.RunDocuments(t, func(t *testing.T) cupid.DocumentStore { return openTemp(t) })
}

// checkIndex compares live_players with what the waiting tickets' bodies
// say it should hold.
func checkIndex(t testing.TB, s *Store) {
	t.Helper()
	ctx := context.Background()
	waiting, err := s.WaitingTickets(ctx)
	if err != nil {
		t.Errorf("check index: %v", err)
		return
	}
	var want []string
	for _, tk := range waiting {
		for _, p := range tk.Players {
			want = append(want, tk.Key.Queue+"/"+p.ID+"="+tk.ID)
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT queue || '/' || player_id || '=' || ticket_id FROM live_players`)
	if err != nil {
		t.Errorf("check index: %v", err)
		return
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Errorf("check index: %v", err)
		return
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the player index is out of step with the waiting tickets:\n index   %q\n tickets %q", got, want)
	}
}

func nts(ts ...*cupid.Ticket) []cupid.NewTicket {
	out := make([]cupid.NewTicket, len(ts))
	for i, t := range ts {
		out[i] = cupid.NewTicket{Ticket: t}
	}
	return out
}

func ticket(id, rid string, age time.Duration, players ...string) *cupid.Ticket {
	if len(players) == 0 {
		players = []string{"p-" + id}
	}
	t := &cupid.Ticket{
		ID: id, Key: cupid.QueueKey{Queue: "duel"}, RequestID: rid, State: cupid.StateWaiting,
		CreatedAt: t0.Add(-age), ExpiresAt: t0.Add(time.Hour),
	}
	for _, p := range players {
		t.Players = append(t.Players, cupid.Player{ID: p, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})})
	}
	return t
}

func inQueue(t *cupid.Ticket, queue string) *cupid.Ticket {
	t.Key.Queue = queue
	return t
}

func pair(id string, a, b string) *cupid.Match {
	return &cupid.Match{ID: id, CreatedAt: t0, Teams: []cupid.Team{{TicketIDs: []string{a}}, {TicketIDs: []string{b}}}}
}

// TestReopenKeepsEverything closes a store and opens the same schema again:
// the migrations are not applied twice, and tickets, events with their
// match, times to the nanosecond and documents are all there.
func TestReopenKeepsEverything(t *testing.T) {
	url := newSchema(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	a := ticket("a", "r1", 10*time.Second)
	a.CreatedAt = a.CreatedAt.Add(123 * time.Nanosecond)
	if _, _, err := s.CreateTickets(ctx, nts(a, ticket("b", "", 5*time.Second), ticket("c", "", 0))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{pair("m", "a", "b")}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDocument(ctx, cupid.Fence{}, "k", "d", []byte("not even JSON \x00\xff"), t0); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2 := openAt(t, url)
	evs, err := s2.Events(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Kind != cupid.EventCreated || evs[1].Kind != cupid.EventMatched || evs[1].Match == nil || len(evs[1].Match.Teams) != 2 {
		t.Fatalf("events %+v", evs)
	}
	got, err := s2.Ticket(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreatedAt.Equal(a.CreatedAt) || got.State != cupid.StateMatched || got.MatchID != "m" || got.RequestID != "r1" {
		t.Fatalf("a came back as %+v", got)
	}
	if w, _ := s2.WaitingTickets(ctx); len(w) != 1 || w[0].ID != "c" {
		t.Fatalf("waiting %v", w)
	}
	docs, err := s2.Documents(ctx, "k", "", 0)
	if err != nil || len(docs) != 1 || string(docs[0].Body) != "not even JSON \x00\xff" {
		t.Fatalf("documents %q, %v", docs, err)
	}
	var n int
	if err := s2.pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations) {
		t.Fatalf("%d migrations recorded (%v), want %d", n, err, len(migrations))
	}
}

// TestUnstorableStrings: PostgreSQL text cannot hold NUL bytes or invalid
// UTF-8, which SQLite takes. Such a ticket is refused alone, like a player
// named twice, instead of failing the whole batch; lookups by such a
// string find nothing, as they would in the other stores.
func TestUnstorableStrings(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	bad := []*cupid.Ticket{
		ticket("nul\x00id", "", 0),
		inQueue(ticket("q", "", 0), "du\x00el"),
		ticket("r", "req\x00", 0),
		ticket("p", "", 0, "ok", "pl\x00ayer"),
		ticket("u", "", 0, "\xff"),
	}
	fields := []string{"id", "queue", "request_id", "players[1].id", "players[0].id"}
	batch := append(slices.Clone(bad), ticket("good", "", 0))
	out, evs, err := s.CreateTickets(ctx, nts(batch...))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fields {
		var e *cupid.Error
		if !asCupid(out[i].Err, &e) || e.Code != cupid.CodeInvalid || e.Field != f || out[i].Ticket != nil {
			t.Fatalf("ticket %d: %+v, want invalid on %s", i, out[i], f)
		}
	}
	if out[5].Err != nil || len(evs) != 1 || evs[0].TicketID != "good" {
		t.Fatalf("the good ticket: %+v, events %+v", out[5], evs)
	}
	if _, err := s.Ticket(ctx, "nul\x00id"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("Ticket of a NUL id: %v", err)
	}
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "nul\x00id", cupid.StateCancelled, "", t0); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("FinishTicket of a NUL id: %v", err)
	}
	if evs, err := s.Events(ctx, "nul\x00id", 0); err != nil || len(evs) != 0 {
		t.Fatalf("Events of a NUL id: %v %v", evs, err)
	}
	res, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{pair("m", "good", "nul\x00id")})
	if err != nil || res[0].OK || !slices.Equal(res[0].NotWaiting, []string{"nul\x00id"}) {
		t.Fatalf("commit with a NUL ticket id: %+v %v", res, err)
	}
	if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{pair("m\x00", "good", "x")}); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("commit with a NUL match id: %v", err)
	}
	if err := s.PutDocument(ctx, cupid.Fence{}, "k", "a\x00", []byte("{}"), t0); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("PutDocument with a NUL id: %v", err)
	}
	for _, id := range []string{"a", "ab", "abc", "b"} {
		if err := s.PutDocument(ctx, cupid.Fence{}, "k", id, []byte("{}"), t0); err != nil {
			t.Fatal(err)
		}
	}
	// The cursor "ab\x00c" is after "ab" and before "abc".
	docs, err := s.Documents(ctx, "k", "ab\x00c", 0)
	if err != nil || len(docs) != 2 || docs[0].ID != "abc" || docs[1].ID != "b" {
		t.Fatalf("documents after a NUL cursor: %+v %v", docs, err)
	}
}

func asCupid(err error, e **cupid.Error) bool {
	ce, ok := err.(*cupid.Error)
	*e = ce
	return ok
}

// TestLargeBatchesAndMatches goes beyond what storetest's batches hold: 301
// tickets with request ids repeated inside the batch and from an earlier
// call, 301 more in another queue with one player already live there (the
// optimistic attempt fails and the careful path reads 301 players), then a
// 131-ticket match whose players have tickets in that queue, and a match
// refused because one of its tickets is taken by the first.
func TestLargeBatchesAndMatches(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, _, err := s.CreateTickets(ctx, nts(ticket("early", "r-7", 0))); err != nil {
		t.Fatal(err)
	}
	var batch []*cupid.Ticket
	for i := range 301 {
		rid := ""
		switch {
		case i == 7:
			rid = "r-7"
		case i%50 == 0:
			rid = "r-dup"
		}
		batch = append(batch, ticket(fmt.Sprintf("t%03d", i), rid, time.Duration(301-i)*time.Second))
	}
	got, created, err := s.CreateTickets(ctx, nts(batch...))
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 301-1-6 {
		t.Fatalf("%d created events, want %d", len(created), 301-1-6)
	}
	for i, ev := range created {
		if ev.Kind != cupid.EventCreated || (i > 0 && ev.Seq <= created[i-1].Seq) {
			t.Fatalf("created event %d: %+v", i, ev)
		}
	}
	for i, g := range got {
		want, existed := batch[i].ID, false
		switch {
		case i == 7:
			want, existed = "early", true
		case i%50 == 0 && i > 0:
			want, existed = "t000", true
		}
		if g.Err != nil || g.Ticket.ID != want || g.Existed != existed {
			t.Fatalf("ticket %d: got %+v, want %s (existed %v)", i, g, want, existed)
		}
	}

	first := ticket("o-first", "", 0, "p-t005")
	if _, _, err := s.CreateTickets(ctx, nts(inQueue(first, "other"))); err != nil {
		t.Fatal(err)
	}
	var others []*cupid.Ticket
	for i := range 301 {
		id := fmt.Sprintf("t%03d", i)
		others = append(others, inQueue(ticket("o-"+id, "", 0, "p-"+id), "other"))
	}
	got, created, err = s.CreateTickets(ctx, nts(others...))
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 300 {
		t.Fatalf("%d created events in the other queue, want 300", len(created))
	}
	for i, g := range got {
		if (i == 5) != (cupid.ErrorCode(g.Err) == cupid.CodeAlreadyExists) {
			t.Fatalf("other ticket %d: %+v (err %v)", i, g, g.Err)
		}
	}

	var ids []string
	for i := 1; len(ids) < 131; i++ {
		if i != 7 && i%50 != 0 {
			ids = append(ids, fmt.Sprintf("t%03d", i))
		}
	}
	big := &cupid.Match{ID: "big", Teams: []cupid.Team{{TicketIDs: ids[:65]}, {TicketIDs: ids[65:]}}, CreatedAt: t0}
	clash := &cupid.Match{ID: "clash", Teams: []cupid.Team{{TicketIDs: []string{"t290", "t291"}}, {TicketIDs: []string{ids[130], "t292"}}}, CreatedAt: t0}
	res, events, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{big, clash})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].OK || res[1].OK || !slices.Equal(res[1].NotWaiting, []string{ids[130]}) {
		t.Fatalf("commit results %+v", res)
	}
	if len(res[0].Cancelled) != 131 || len(events) != 262 {
		t.Fatalf("%d cancelled, %d events; want 131 and 262", len(res[0].Cancelled), len(events))
	}
	for i, ev := range events {
		if i > 0 && ev.Seq <= events[i-1].Seq {
			t.Fatalf("events out of order at %d", i)
		}
		if i < 131 && (ev.Kind != cupid.EventMatched || ev.TicketID != ids[i]) {
			t.Fatalf("event %d: %s %s", i, ev.Kind, ev.TicketID)
		}
		if i >= 131 && (ev.Kind != cupid.EventCancelled || !strings.HasSuffix(ev.Reason, "was matched in queue duel (match big)")) {
			t.Fatalf("event %d: %s %s %q", i, ev.Kind, ev.TicketID, ev.Reason)
		}
	}
	if tk, _ := s.Ticket(ctx, "o-first"); tk.State != cupid.StateCancelled || tk.Reason != "player p-t005 was matched in queue duel (match big)" {
		t.Fatalf("o-first is %s (%q)", tk.State, tk.Reason)
	}
	if tk, _ := s.Ticket(ctx, "o-t290"); tk.State != cupid.StateWaiting {
		t.Fatalf("o-t290 is %s", tk.State)
	}
}

// TestExpectRowsGuard: the server-side check behind the pipelined COMMIT
// refuses an update that changed another number of rows than promised,
// and the transaction does not commit.
func TestExpectRowsGuard(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, _, err := s.CreateTickets(ctx, nts(ticket("a", "", 0), ticket("b", "", 0))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "b", cupid.StateCancelled, "", t0); err != nil {
		t.Fatal(err)
	}
	err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
		b := &pgx.Batch{}
		queueBegin(b)
		queueFinish(b, "test step", []finishRow{
			{id: "a", state: "matched", matchID: "m", at: 1},
			{id: "b", state: "matched", matchID: "m", at: 1},
		})
		b.Queue(commitSQL)
		return send(ctx, conn, b)
	})
	if err == nil || !strings.Contains(err.Error(), "test step changed 1 rows where the locks held promised 2") {
		t.Fatalf("err = %v", err)
	}
	if a, _ := s.Ticket(ctx, "a"); a.State != cupid.StateWaiting {
		t.Fatalf("a is %s after a refused transaction", a.State)
	}
	// The connection went back to the pool usable.
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestFrozenNodeReleasesItsLocks: a node that stops between the round
// trips of a transaction, holding tickets locked, holds them only until
// the server ends its idle transaction; another node then goes on.
func TestFrozenNodeReleasesItsLocks(t *testing.T) {
	defer func(old string) { idleInTransaction = old }(idleInTransaction)
	idleInTransaction = "500ms"
	url := newSchema(t)
	frozen, other := openAt(t, url), openAt(t, url)
	ctx := context.Background()
	if _, _, err := frozen.CreateTickets(ctx, nts(ticket("a", "", 0))); err != nil {
		t.Fatal(err)
	}
	locked := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- frozen.inTx(ctx, func(conn *pgxpool.Conn) error {
			b := &pgx.Batch{}
			queueBegin(b)
			b.Queue(lockTicketsSQL, []string{"a"})
			if err := send(ctx, conn, b); err != nil {
				return err
			}
			close(locked)
			time.Sleep(3 * time.Second) // frozen, holding a
			b = &pgx.Batch{}
			b.Queue(commitSQL)
			return send(ctx, conn, b)
		})
	}()
	<-locked
	start := time.Now()
	if _, _, err := lifecycle.Finish(ctx, other, cupid.Fence{}, "a", cupid.StateCancelled, "", t0); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 2500*time.Millisecond {
		t.Fatalf("the other node waited %v for the frozen one's lock", waited)
	}
	if err := <-done; err == nil {
		t.Fatal("the frozen node's transaction committed after the server ended it")
	}
	if err := frozen.Ping(ctx); err != nil {
		t.Fatalf("the frozen node's store did not recover: %v", err)
	}
}
