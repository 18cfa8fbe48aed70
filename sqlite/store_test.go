package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/storetest"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// openTemp opens a store in a new directory. When the test ends it checks
// that the player index holds exactly the players of the waiting tickets,
// then closes the store.
func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cupid.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		checkIndex(t, s)
		s.Close()
	})
	return s, path
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) cupid.Store {
		s, _ := openTemp(t)
		return s
	})
}

func TestDocumentsContract(t *testing.T) {
	storetest.RunDocuments(t, func(t *testing.T) cupid.DocumentStore {
		s, _ := openTemp(t)
		return s
	})
}

// checkIndex compares the live_players table with what the waiting
// tickets' bodies say it should hold.
func checkIndex(t *testing.T, s *Store) {
	t.Helper()
	if s.w.Ping() != nil {
		return // closed by the test
	}
	waiting, err := s.WaitingTickets(context.Background())
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
	var got []string
	err = scanEach(s.w.Query(`SELECT queue, player_id, ticket_id FROM live_players`))(func(r rowScanner) error {
		var q, p, id string
		err := r.Scan(&q, &p, &id)
		got = append(got, q+"/"+p+"="+id)
		return err
	})
	if err != nil {
		t.Errorf("check index: %v", err)
		return
	}
	slices.Sort(want)
	want = slices.Compact(want) // a ticket from before Validate may name a player twice
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the player index is out of step with the waiting tickets:\n index   %q\n tickets %q", got, want)
	}
}

// nts wraps tickets for CreateTickets, none asking to replace.
func nts(ts ...*cupid.Ticket) []cupid.NewTicket {
	out := make([]cupid.NewTicket, len(ts))
	for i, t := range ts {
		out[i] = cupid.NewTicket{Ticket: t}
	}
	return out
}

func ticket(id, rid string, age time.Duration) *cupid.Ticket {
	return &cupid.Ticket{
		ID: id, Key: cupid.QueueKey{Queue: "duel"}, RequestID: rid, State: cupid.StateWaiting,
		Players:   []cupid.Player{{ID: "p-" + id, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})}},
		CreatedAt: t0.Add(-age), ExpiresAt: t0.Add(time.Hour),
	}
}

func TestCreateIsIdempotentByRequestID(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	got, _, err := s.CreateTickets(ctx, nts(ticket("a", "r1", 0), ticket("b", "", 0)))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Ticket.ID != "a" || got[1].Ticket.ID != "b" || got[0].Existed || got[1].Existed {
		t.Fatalf("created %+v, %+v", got[0], got[1])
	}
	again, evs, err := s.CreateTickets(ctx, nts(ticket("c", "r1", 0)))
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Ticket.ID != "a" || !again[0].Existed || len(evs) != 0 {
		t.Fatalf("retry with request id r1 returned %+v and events %+v, want the first ticket a", again[0], evs)
	}
	if _, err := s.Ticket(ctx, "c"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("the retry stored a second ticket: err=%v", err)
	}
}

func TestCommitMatchesNeverPutsATicketInTwoMatches(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, _, err := s.CreateTickets(ctx, nts(ticket("a", "", 3), ticket("b", "", 2), ticket("c", "", 1))); err != nil {
		t.Fatal(err)
	}
	m1 := &cupid.Match{ID: "m1", Teams: []cupid.Team{{TicketIDs: []string{"a"}}, {TicketIDs: []string{"b"}}}, CreatedAt: t0}
	m2 := &cupid.Match{ID: "m2", Teams: []cupid.Team{{TicketIDs: []string{"c"}}, {TicketIDs: []string{"a"}}}, CreatedAt: t0}
	ok, events, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{m1, m2})
	if err != nil {
		t.Fatal(err)
	}
	if !ok[0].OK || ok[1].OK || !slices.Equal(ok[1].NotWaiting, []string{"a"}) {
		t.Fatalf("commit results %+v, want m1 stored, m2 refused for a", ok)
	}
	if len(events) != 2 {
		t.Fatalf("%d events, want 2 (a and b matched)", len(events))
	}
	c, err := s.Ticket(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if c.State != cupid.StateWaiting || c.MatchID != "" {
		t.Fatalf("refused match changed c: %+v", c)
	}
	if _, err := s.Match(ctx, "m2"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("refused match m2 was stored: %v", err)
	}
	a, _ := s.Ticket(ctx, "a")
	if a.State != cupid.StateMatched || a.MatchID != "m1" {
		t.Fatalf("a = %s/%s, want matched/m1", a.State, a.MatchID)
	}
}

func TestFinishTicket(t *testing.T) {
	cases := []struct {
		name  string
		state cupid.TicketState
		pre   func(s *Store)
		code  cupid.Code
	}{
		{"cancel waiting", cupid.StateCancelled, nil, ""},
		{"expire waiting", cupid.StateExpired, nil, ""},
		{"cancel twice", cupid.StateCancelled, func(s *Store) {
			lifecycle.Finish(context.Background(), s, cupid.Fence{}, "a", cupid.StateCancelled, "", t0)
		}, cupid.CodeConflict},
		{"cancel matched", cupid.StateCancelled, func(s *Store) {
			s.CreateTickets(context.Background(), nts(ticket("b", "", 0)))
			s.CommitMatches(context.Background(), cupid.Fence{}, []*cupid.Match{{ID: "m", Teams: []cupid.Team{{TicketIDs: []string{"a", "b"}}}}})
		}, cupid.CodeConflict},
		{"bad state", cupid.StateMatched, nil, cupid.CodeInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTemp(t)
			ctx := context.Background()
			s.CreateTickets(ctx, nts(ticket("a", "", 0)))
			if c.pre != nil {
				c.pre(s)
			}
			before, _ := s.Ticket(ctx, "a")
			tk, ev, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "a", c.state, "because", t0)
			if cupid.ErrorCode(err) != c.code && !(c.code == "" && err == nil) {
				t.Fatalf("err = %v, want code %q", err, c.code)
			}
			if c.code != "" {
				after, _ := s.Ticket(ctx, "a")
				if after.State != before.State {
					t.Fatalf("a failed finish changed the state from %s to %s", before.State, after.State)
				}
				return
			}
			if tk.State != c.state || ev.Seq == 0 || tk.Reason != "because" || ev.Reason != "because" {
				t.Fatalf("ticket %s, event %+v", tk.State, ev)
			}
		})
	}
}

func TestEventsSurviveReopenAndResumeAfterSeq(t *testing.T) {
	s, path := openTemp(t)
	ctx := context.Background()
	s.CreateTickets(ctx, nts(ticket("a", "", 10*time.Second), ticket("b", "", 5*time.Second)))
	s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{{ID: "m", Teams: []cupid.Team{{TicketIDs: []string{"a"}}, {TicketIDs: []string{"b"}}}, CreatedAt: t0}})
	s.Close()

	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	evs, err := s2.Events(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Kind != cupid.EventCreated || evs[1].Kind != cupid.EventMatched {
		t.Fatalf("events %+v", evs)
	}
	if evs[1].Match == nil || len(evs[1].Match.Teams) != 2 {
		t.Fatalf("matched event lost its match: %+v", evs[1].Match)
	}
	rest, _ := s2.Events(ctx, "a", evs[0].Seq)
	if len(rest) != 1 || rest[0].Seq != evs[1].Seq {
		t.Fatalf("after seq %d got %+v", evs[0].Seq, rest)
	}
	a, _ := s2.Ticket(ctx, "a")
	if !a.CreatedAt.Equal(t0.Add(-10 * time.Second)) {
		t.Fatalf("created_at %v lost across reopen", a.CreatedAt)
	}
}

func TestWaitingTicketsOldestFirst(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	var ts []*cupid.Ticket
	for i := 0; i < 5; i++ {
		ts = append(ts, ticket(fmt.Sprint(i), "", time.Duration(i)*time.Second))
	}
	s.CreateTickets(ctx, nts(ts...))
	lifecycle.Finish(ctx, s, cupid.Fence{}, "2", cupid.StateCancelled, "", t0)
	w, err := s.WaitingTickets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, t := range w {
		ids = append(ids, t.ID)
	}
	if fmt.Sprint(ids) != "[4 3 1 0]" {
		t.Fatalf("waiting %v, want [4 3 1 0]", ids)
	}
}

func TestDocuments(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	for _, id := range []string{"b", "a", "c"} {
		if err := s.PutDocument(ctx, cupid.Fence{}, "k", id, []byte(`{"v":"`+id+`"}`), t0); err != nil {
			t.Fatal(err)
		}
	}
	s.PutDocument(ctx, cupid.Fence{}, "k", "a", []byte(`{"v":"a2"}`), t0)
	s.DeleteDocument(ctx, cupid.Fence{}, "k", "c")
	docs, err := s.Documents(ctx, "k", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].ID != "a" || string(docs[0].Body) != `{"v":"a2"}` || docs[1].ID != "b" {
		t.Fatalf("documents %+v", docs)
	}
	page, _ := s.Documents(ctx, "k", "a", 1)
	if len(page) != 1 || page[0].ID != "b" {
		t.Fatalf("page after a: %+v", page)
	}
}

// TestLargeBatchesAndMatches crosses the multi-row statements' chunk sizes:
// a batch of 301 tickets (128 + 128 + 32 + 8 + 4 + 1) with request ids
// repeated inside the batch and from an earlier call (the careful path), a
// batch of 301 with one player already live (the optimistic attempt fails
// and the careful path reads 301 players in chunks), then a 131-ticket match
// whose players have tickets in another queue, and a match refused because
// one of its 131 tickets is taken.
func TestLargeBatchesAndMatches(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, _, err := s.CreateTickets(ctx, nts(ticket("early", "r-7", 0))); err != nil {
		t.Fatal(err)
	}
	var batch []*cupid.Ticket
	for i := range 301 {
		rid := ""
		switch {
		case i == 7:
			rid = "r-7" // taken by the earlier call
		case i%50 == 0:
			rid = "r-dup" // the first of these wins, inside this batch
		}
		batch = append(batch, ticket(fmt.Sprintf("t%03d", i), rid, time.Duration(301-i)*time.Second))
	}
	got, created, err := s.CreateTickets(ctx, nts(batch...))
	if err != nil {
		t.Fatal(err)
	}
	// One created event per ticket stored by this call, in seq order,
	// each at its ticket's creation time.
	if len(created) != 301-1-6 {
		t.Fatalf("%d created events, want %d", len(created), 301-1-6)
	}
	byID := map[string]*cupid.Ticket{}
	for _, tk := range batch {
		byID[tk.ID] = tk
	}
	for i, ev := range created {
		tk := byID[ev.TicketID]
		if tk == nil || ev.Kind != cupid.EventCreated || !ev.At.Equal(tk.CreatedAt) || (i > 0 && ev.Seq <= created[i-1].Seq) {
			t.Fatalf("created event %d: %+v", i, ev)
		}
		delete(byID, ev.TicketID)
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
	waiting, err := s.WaitingTickets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The earlier ticket, then 301 offered less the one whose request id
	// was taken and the 6 repeats of r-dup (i = 50, 100, …, 300).
	if want := 1 + 301 - 1 - 6; len(waiting) != want {
		t.Fatalf("%d waiting tickets, want %d", len(waiting), want)
	}

	// The same players in another queue: all stored but the one whose
	// player already waits there.
	if _, _, err := s.CreateTickets(ctx, nts(inQueue(ticket("o-first", "", 0), "other", "p-t005"))); err != nil {
		t.Fatal(err)
	}
	var others []*cupid.Ticket
	for i := range 301 {
		id := fmt.Sprintf("t%03d", i)
		others = append(others, inQueue(ticket("o-"+id, "", 0), "other", "p-"+id))
	}
	got, created, err = s.CreateTickets(ctx, nts(others...))
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 300 {
		t.Fatalf("%d created events in the other queue, want 300", len(created))
	}
	for i, g := range got {
		if (i == 5) != (cupid.ErrorCode(g.Err) == cupid.CodeAlreadyExists) || (i != 5 && (g.Ticket.ID != others[i].ID || g.Existed)) {
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
	clash := &cupid.Match{ID: "clash", Teams: []cupid.Team{{TicketIDs: []string{"t290", "t291"}}, {TicketIDs: append([]string{ids[130]}, "t292")}}, CreatedAt: t0}
	ok, events, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{big, clash})
	if err != nil {
		t.Fatal(err)
	}
	if !ok[0].OK || ok[1].OK || !slices.Equal(ok[1].NotWaiting, []string{ids[130]}) {
		t.Fatalf("commit results %+v, want big stored and clash refused for %s", ok, ids[130])
	}
	// Every matched player's ticket in the other queue is cancelled:
	// o-first for t005 (o-t005 was refused), o-tNNN for the others.
	if len(ok[0].Cancelled) != 131 {
		t.Fatalf("%d tickets cancelled in the other queue, want 131", len(ok[0].Cancelled))
	}
	if len(events) != 131+131 {
		t.Fatalf("%d events, want 262", len(events))
	}
	owner := func(id string) string {
		if id == "o-first" {
			return "t005"
		}
		return id[2:]
	}
	seen := map[string]bool{}
	for i, ev := range events {
		if i > 0 && ev.Seq <= events[i-1].Seq {
			t.Fatalf("events out of seq order at %d: %d after %d", i, ev.Seq, events[i-1].Seq)
		}
		switch {
		case i < 131 && (ev.Kind != cupid.EventMatched || ev.Match.ID != "big" || ev.TicketID != ids[i]):
			t.Fatalf("event %d: %s of %s for %v", i, ev.Kind, ev.TicketID, ev.Match)
		case i >= 131 && (ev.Kind != cupid.EventCancelled || ev.Reason != fmt.Sprintf("player p-%s was matched in queue duel (match big)", owner(ev.TicketID))):
			t.Fatalf("event %d: %s of %s (%q)", i, ev.Kind, ev.TicketID, ev.Reason)
		}
		seen[ev.TicketID] = true
	}
	for _, id := range ids {
		if !seen[id] {
			t.Fatalf("no matched event for %s", id)
		}
		tk, err := s.Ticket(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tk.State != cupid.StateMatched || tk.MatchID != "big" {
			t.Fatalf("%s is %s/%s, want matched/big", id, tk.State, tk.MatchID)
		}
	}
	if tk, _ := s.Ticket(ctx, "o-first"); tk.State != cupid.StateCancelled {
		t.Fatalf("o-first is %s, want cancelled", tk.State)
	}
	if tk, _ := s.Ticket(ctx, "o-t290"); tk.State != cupid.StateWaiting {
		t.Fatalf("o-t290 is %s: its player was not matched", tk.State)
	}
	for _, id := range []string{"t290", "t291", "t292"} {
		tk, err := s.Ticket(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tk.State != cupid.StateWaiting {
			t.Fatalf("refused match changed %s to %s", id, tk.State)
		}
		evs, err := s.Events(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 1 || evs[0].Kind != cupid.EventCreated {
			t.Fatalf("%s has events %+v, want only created", id, evs)
		}
	}
}

// inQueue moves a test ticket to another queue and names its one player.
func inQueue(t *cupid.Ticket, queue, player string) *cupid.Ticket {
	t.Key.Queue = queue
	t.Players[0].ID = player
	return t
}
