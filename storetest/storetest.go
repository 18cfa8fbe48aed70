// Package storetest is the contract of cupid.Store and cupid.DocumentStore
// written as tests, so that every implementation (sqlite, memstore) is held
// to the same rules and a service tested against the in-memory store sees
// what production will do.
//
// Run it from an implementation's tests:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) cupid.Store { return openTemp(t) })
//	}
//
// Where the doc comments of store.go leave a choice open, the suite pins the
// reading both implementations follow:
//
//   - Created.Ticket (a new ticket, or the earlier one when Existed) is the
//     ticket as stored when the call returns: a ticket replaced later in
//     the same batch comes back cancelled. A refused ticket has no Ticket.
//   - A ticket replaced by another is cancelled at the replacing ticket's
//     CreatedAt (its UpdatedAt and its event's At); tickets cancelled
//     because their player was matched elsewhere are cancelled at the
//     match's CreatedAt.
//   - Per ticket, the events of a create batch are the cancellations of
//     the tickets it replaces, in the order of its players, then its own
//     created event; a commit's events are a match's matched events in
//     the order of Match.TicketIDs, then its cancellations, match by match.
//   - A commit cancels the other live tickets of the match's players in
//     ticket id order; the reason names the smallest player id the ticket
//     shares with the match, and the queue of that player's matched ticket.
//   - NotWaiting lists the refused match's tickets that were not waiting,
//     unknown ids included, in the order of Match.TicketIDs.
//   - A player named twice in one ticket refuses that ticket alone
//     (CodeInvalid on players[i].id): the store cannot index it twice.
//   - A match's hand-off: every committed match is formed, with a
//     "formed" entry in its queue's match log written with it; assign and
//     release are allowed only from formed. Their tickets' events are in
//     the order of Match.TicketIDs. A released match's tickets lose their
//     match id, requeued or cancelled alike.
//   - Caller bugs that make the batch meaningless are call-level errors,
//     and nothing is stored: CodeInvalid for a nil ticket, an empty ticket
//     id or one given twice in the batch, a nil match, a match with no
//     tickets or with a ticket twice; CodeConflict for a ticket id already
//     stored (when that ticket would be stored: not for a repeated request
//     or a refused ticket) or a match id already stored.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// T0 is the time the suite's tickets are created around.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Run runs the Store contract against stores made by open. Each subtest
// opens its own empty store; open registers its closing with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) cupid.Store) {
	for _, c := range []struct {
		name string
		f    func(*testing.T, opener)
	}{
		{"CreateAndRead", one(testCreateAndRead)},
		{"CreateRules", testCreateRules},
		{"CreateCallErrors", one(testCreateCallErrors)},
		{"Finish", testFinish},
		{"CommitMatches", one(testCommitMatches)},
		{"CommitRefusals", testCommitRefusals},
		{"CrossQueueCancel", one(testCrossQueueCancel)},
		{"CrossQueueCancelTwiceInABatch", one(testCrossQueueCancelTwice)},
		{"CommitCallErrors", one(testCommitCallErrors)},
		{"Events", one(testEvents)},
		{"Listing", one(testListing)},
		{"WaitingOldestFirst", one(testWaitingOldestFirst)},
		{"Ping", one(testPing)},
		{"Copies", one(testCopies)},
		{"ConcurrentCreates", one(testConcurrentCreates)},
		{"MatchLog", one(testMatchLog)},
		{"AssignMatch", one(testAssignMatch)},
		{"ReleaseMatch", testReleaseMatch},
		{"ReleaseRequeueTaken", one(testReleaseRequeueTaken)},
		{"AcceptAll", one(testAcceptAll)},
		{"Decline", testDecline},
		{"ReleasePending", one(testReleasePending)},
		{"Sessions", one(testSessions)},
		{"SessionTeams", one(testSessionTeams)},
		{"OneLiveMatch", one(testOneLiveMatch)},
		{"Amend", one(testAmend)},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, open) })
	}
}

type opener = func(t *testing.T) cupid.Store

// one adapts a test that needs a single store; table-driven tests take the
// opener and open a store per case.
func one(f func(*testing.T, cupid.Store)) func(*testing.T, opener) {
	return func(t *testing.T, open opener) { f(t, open(t)) }
}

// maker hands out tickets created one second apart, so that the order in
// which a test builds them is their age order.
type maker struct{ n int }

// tk builds a waiting ticket in queue with the given players; rid is its
// request id ("" for none).
func (m *maker) tk(id, queue, rid string, players ...string) *cupid.Ticket {
	m.n++
	t := &cupid.Ticket{
		ID: id, Key: cupid.QueueKey{Queue: queue}, RequestID: rid,
		CreatedAt: T0.Add(time.Duration(m.n) * time.Second), ExpiresAt: T0.Add(time.Hour),
		State:     cupid.StateWaiting,
		Latencies: map[string]int32{"eu": 20},
	}
	for _, p := range players {
		t.Players = append(t.Players, cupid.Player{ID: p, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})})
	}
	return t
}

func nt(t *cupid.Ticket) cupid.NewTicket  { return cupid.NewTicket{Ticket: t} }
func rep(t *cupid.Ticket) cupid.NewTicket { return cupid.NewTicket{Ticket: t, Replace: true} }

func match(id string, at time.Time, teams ...[]string) *cupid.Match {
	m := &cupid.Match{ID: id, CreatedAt: at, Quality: cupid.Quality{Score: 0.5}}
	for _, ids := range teams {
		m.Teams = append(m.Teams, cupid.Team{TicketIDs: ids})
	}
	return m
}

var bg = context.Background()

func create(t *testing.T, s cupid.Store, ts ...cupid.NewTicket) ([]cupid.Created, []cupid.Event) {
	t.Helper()
	out, evs, err := s.CreateTickets(bg, ts)
	if err != nil {
		t.Fatalf("CreateTickets: %v", err)
	}
	if len(out) != len(ts) {
		t.Fatalf("CreateTickets returned %d results for %d tickets", len(out), len(ts))
	}
	checkSeqOrder(t, evs)
	return out, evs
}

func commit(t *testing.T, s cupid.Store, ms ...*cupid.Match) ([]cupid.Committed, []cupid.Event) {
	t.Helper()
	out, evs, err := s.CommitMatches(bg, cupid.Fence{}, ms)
	if err != nil {
		t.Fatalf("CommitMatches: %v", err)
	}
	if len(out) != len(ms) {
		t.Fatalf("CommitMatches returned %d results for %d matches", len(out), len(ms))
	}
	checkSeqOrder(t, evs)
	return out, evs
}

func get(t *testing.T, s cupid.Store, id string) *cupid.Ticket {
	t.Helper()
	tk, err := s.Ticket(bg, id)
	if err != nil {
		t.Fatalf("Ticket(%s): %v", id, err)
	}
	return tk
}

func checkSeqOrder(t *testing.T, evs []cupid.Event) {
	t.Helper()
	for i := range evs {
		if evs[i].Seq <= 0 || (i > 0 && evs[i].Seq <= evs[i-1].Seq) {
			t.Fatalf("events not in sequence order: %s", eventStrings(evs))
		}
	}
}

// eventString renders an event as "kind ticket" or "kind ticket: reason",
// so tests compare order, kinds and reasons in one line.
func eventString(e cupid.Event) string {
	s := string(e.Kind) + " " + e.TicketID
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

func eventStrings(evs []cupid.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = eventString(e)
	}
	return out
}

func ids(ts []*cupid.Ticket) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func waitingIDs(t *testing.T, s cupid.Store) []string {
	t.Helper()
	w, err := s.WaitingTickets(bg)
	if err != nil {
		t.Fatalf("WaitingTickets: %v", err)
	}
	return ids(w)
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func wantCode(t *testing.T, what string, err error, code cupid.Code) {
	t.Helper()
	if err == nil || cupid.ErrorCode(err) != code {
		t.Fatalf("%s: err = %v, want code %s", what, err, code)
	}
}

func testCreateAndRead(t *testing.T, s cupid.Store) {
	var m maker
	a, b := m.tk("a", "duel", "", "pa"), m.tk("b", "duel", "rb", "pb1", "pb2")
	a.State, a.Reason, a.MatchID = "", "stale", "stale" // the store stores new tickets waiting, whatever they say
	out, evs := create(t, s, nt(a), nt(b))
	for i, want := range []*cupid.Ticket{a, b} {
		c := out[i]
		if c.Err != nil || c.Existed || len(c.Replaced) != 0 || c.Ticket == nil {
			t.Fatalf("result %d: %+v", i, c)
		}
		for _, got := range []*cupid.Ticket{c.Ticket, get(t, s, want.ID)} {
			if got.ID != want.ID || got.Key != want.Key || got.RequestID != want.RequestID || got.State != cupid.StateWaiting ||
				got.Reason != "" || got.MatchID != "" || !got.CreatedAt.Equal(want.CreatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
				!slices.Equal(got.PlayerIDs(), want.PlayerIDs()) || got.Latencies["eu"] != 20 || !got.SameRequest(want) {
				t.Fatalf("ticket %s stored as %+v", want.ID, got)
			}
		}
	}
	eq(t, "events", eventStrings(evs), []string{"created a", "created b"})
	for i, e := range evs {
		want := []*cupid.Ticket{a, b}[i]
		if !e.At.Equal(want.CreatedAt) || e.Match != nil {
			t.Fatalf("created event %+v, want at %v", e, want.CreatedAt)
		}
	}
	_, err := s.Ticket(bg, "nope")
	wantCode(t, "Ticket(nope)", err, cupid.CodeNotFound)
	_, err = s.Match(bg, "nope")
	wantCode(t, "Match(nope)", err, cupid.CodeNotFound)
	evs2, err := s.Events(bg, "nope", 0)
	if err != nil || len(evs2) != 0 {
		t.Fatalf("Events of an unknown ticket: %v, %v", evs2, err)
	}
}

// want is what one Created should say.
type want struct {
	id       string // of Created.Ticket; "" when refused
	existed  bool
	state    cupid.TicketState // of Created.Ticket; waiting when empty
	replaced []string
	code     cupid.Code // of Err
	field    string     // of Err
	msg      []string   // substrings of Err's message
}

func testCreateRules(t *testing.T, open opener) {
	// The cases build their tickets from one maker each, in order, so a
	// ticket built earlier is older. before are earlier calls.
	type tcase struct {
		name   string
		before [][]cupid.NewTicket
		batch  []cupid.NewTicket
		want   []want
		events []string // of the batch, in sequence order
		// waiting after the batch, oldest first
		waiting []string
		// reasons of tickets that are cancelled after the batch
		cancelled map[string]string
	}
	var cases []tcase
	add := func(name string, f func(m *maker) tcase) {
		c := f(&maker{})
		c.name = name
		cases = append(cases, c)
	}
	add("request id seen in an earlier call", func(m *maker) tcase {
		return tcase{
			before:  [][]cupid.NewTicket{{nt(m.tk("a", "duel", "r1", "p1"))}},
			batch:   []cupid.NewTicket{nt(m.tk("b", "duel", "r1", "p1")), nt(m.tk("c", "duel", "", "p2"))},
			want:    []want{{id: "a", existed: true}, {id: "c"}},
			events:  []string{"created c"},
			waiting: []string{"a", "c"},
		}
	})
	add("request id repeated within the batch", func(m *maker) tcase {
		return tcase{
			batch:   []cupid.NewTicket{nt(m.tk("a", "duel", "r1", "p1")), nt(m.tk("b", "duel", "r1", "p1")), rep(m.tk("c", "duel", "r1", "p9"))},
			want:    []want{{id: "a"}, {id: "a", existed: true}, {id: "a", existed: true}},
			events:  []string{"created a"},
			waiting: []string{"a"},
		}
	})
	add("request id of a ticket that ended", func(m *maker) tcase {
		a := m.tk("a", "duel", "r1", "p1")
		return tcase{
			before: [][]cupid.NewTicket{{nt(a)}, {rep(m.tk("x", "duel", "", "p1"))}},
			batch:  []cupid.NewTicket{nt(m.tk("b", "duel", "r1", "p1"))},
			want:   []want{{id: "a", existed: true, state: cupid.StateCancelled}},
			// a was replaced by x: the retry is still the same request
			waiting:   []string{"x"},
			cancelled: map[string]string{"a": "replaced by ticket x"},
		}
	})
	add("request id of a refused ticket is free", func(m *maker) tcase {
		return tcase{
			before: [][]cupid.NewTicket{{nt(m.tk("a", "duel", "", "p1"))}},
			batch:  []cupid.NewTicket{nt(m.tk("b", "duel", "r1", "p1")), nt(m.tk("c", "duel", "r1", "p2"))},
			want: []want{
				{code: cupid.CodeAlreadyExists, field: "players[0].id", msg: []string{`"p1"`, " a ", `"duel"`}},
				{id: "c"},
			},
			events:  []string{"created c"},
			waiting: []string{"a", "c"},
		}
	})
	add("existed shows the ticket as stored at the end of the call", func(m *maker) tcase {
		return tcase{
			batch: []cupid.NewTicket{nt(m.tk("a", "duel", "r1", "p1")), nt(m.tk("b", "duel", "r1", "p1")), rep(m.tk("c", "duel", "", "p1"))},
			want: []want{
				{id: "a", state: cupid.StateCancelled}, {id: "a", existed: true, state: cupid.StateCancelled},
				{id: "c", replaced: []string{"a"}},
			},
			events:    []string{"created a", "cancelled a: replaced by ticket c", "created c"},
			waiting:   []string{"c"},
			cancelled: map[string]string{"a": "replaced by ticket c"},
		}
	})
	add("already exists, from an earlier call, whatever the version or custom key", func(m *maker) tcase {
		b := m.tk("b", "duel", "", "p2")
		b.Key.Version = "1.2"
		c := m.tk("c", "duel", "", "p3", "p2")
		c.Key.Custom = "eu"
		return tcase{
			before: [][]cupid.NewTicket{{nt(m.tk("a", "duel", "", "p1"))}, {nt(b)}},
			batch:  []cupid.NewTicket{nt(c), nt(m.tk("d", "other", "", "p1", "p2")), nt(m.tk("e", "duel", "", "p4"))},
			want: []want{
				{code: cupid.CodeAlreadyExists, field: "players[1].id", msg: []string{`"p2"`, " b ", `"duel"`, "replace"}},
				{id: "d"}, {id: "e"},
			},
			events:  []string{"created d", "created e"},
			waiting: []string{"b", "a", "d", "e"},
		}
	})
	add("already exists within the batch", func(m *maker) tcase {
		return tcase{
			batch: []cupid.NewTicket{nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2", "p1")), nt(m.tk("c", "duel", "", "p2"))},
			want: []want{
				{id: "a"},
				{code: cupid.CodeAlreadyExists, field: "players[1].id", msg: []string{`"p1"`, " a ", `"duel"`}},
				{id: "c"},
			},
			events:  []string{"created a", "created c"},
			waiting: []string{"a", "c"},
		}
	})
	add("the replacing ticket holds the players", func(m *maker) tcase {
		a := m.tk("a", "duel", "", "p1")
		return tcase{
			before:  [][]cupid.NewTicket{{nt(a)}, {rep(m.tk("b", "duel", "", "p1"))}},
			batch:   []cupid.NewTicket{nt(m.tk("c", "duel", "", "p1"))},
			want:    []want{{code: cupid.CodeAlreadyExists, field: "players[0].id", msg: []string{`"p1"`, " b "}}},
			waiting: []string{"b"},
		}
	})
	add("replace cancels every live ticket of the players in the queue", func(m *maker) tcase {
		return tcase{
			before: [][]cupid.NewTicket{{
				nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2", "p3")), nt(m.tk("o", "other", "", "p1")),
			}},
			batch:   []cupid.NewTicket{rep(m.tk("c", "duel", "", "p3", "p1", "p2")), nt(m.tk("d", "duel", "", "p4"))},
			want:    []want{{id: "c", replaced: []string{"b", "a"}}, {id: "d"}},
			events:  []string{"cancelled b: replaced by ticket c", "cancelled a: replaced by ticket c", "created c", "created d"},
			waiting: []string{"o", "c", "d"},
			cancelled: map[string]string{
				"a": "replaced by ticket c", "b": "replaced by ticket c",
			},
		}
	})
	add("replace frees the replaced ticket's other players", func(m *maker) tcase {
		return tcase{
			before:    [][]cupid.NewTicket{{nt(m.tk("a", "duel", "", "p1", "p2"))}},
			batch:     []cupid.NewTicket{rep(m.tk("b", "duel", "", "p1")), nt(m.tk("c", "duel", "", "p2"))},
			want:      []want{{id: "b", replaced: []string{"a"}}, {id: "c"}},
			events:    []string{"cancelled a: replaced by ticket b", "created b", "created c"},
			waiting:   []string{"b", "c"},
			cancelled: map[string]string{"a": "replaced by ticket b"},
		}
	})
	add("replace within the batch, twice", func(m *maker) tcase {
		return tcase{
			batch: []cupid.NewTicket{nt(m.tk("a", "duel", "", "p1")), rep(m.tk("b", "duel", "", "p1")), rep(m.tk("c", "duel", "", "p1"))},
			want: []want{
				{id: "a", state: cupid.StateCancelled}, {id: "b", state: cupid.StateCancelled, replaced: []string{"a"}},
				{id: "c", replaced: []string{"b"}},
			},
			events: []string{
				"created a", "cancelled a: replaced by ticket b", "created b", "cancelled b: replaced by ticket c", "created c",
			},
			waiting:   []string{"c"},
			cancelled: map[string]string{"a": "replaced by ticket b", "b": "replaced by ticket c"},
		}
	})
	add("replace with nothing to replace", func(m *maker) tcase {
		return tcase{
			before:  [][]cupid.NewTicket{{nt(m.tk("a", "other", "", "p1"))}},
			batch:   []cupid.NewTicket{rep(m.tk("b", "duel", "", "p1"))},
			want:    []want{{id: "b"}},
			events:  []string{"created b"},
			waiting: []string{"a", "b"},
		}
	})
	add("a player named twice refuses the ticket alone", func(m *maker) tcase {
		return tcase{
			batch:   []cupid.NewTicket{nt(m.tk("a", "duel", "", "p1", "p2", "p1")), nt(m.tk("b", "duel", "", "p1"))},
			want:    []want{{code: cupid.CodeInvalid, field: "players[2].id", msg: []string{`"p1"`}}, {id: "b"}},
			events:  []string{"created b"},
			waiting: []string{"b"},
		}
	})
	add("an empty batch", func(m *maker) tcase {
		return tcase{before: [][]cupid.NewTicket{{nt(m.tk("a", "duel", "", "p1"))}}, waiting: []string{"a"}}
	})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			for _, b := range c.before {
				create(t, s, b...)
			}
			out, evs := create(t, s, c.batch...)
			byID := map[string]*cupid.Ticket{}
			for _, n := range c.batch {
				byID[n.Ticket.ID] = n.Ticket
			}
			for i, w := range c.want {
				got := out[i]
				if w.code != "" {
					var e *cupid.Error
					if !errors.As(got.Err, &e) || e.Code != w.code || e.Field != w.field || got.Ticket != nil || got.Existed {
						t.Fatalf("result %d: %+v (err %v), want %s on %s and no ticket", i, got, got.Err, w.code, w.field)
					}
					for _, sub := range w.msg {
						if !strings.Contains(e.Message, sub) {
							t.Fatalf("result %d: message %q does not contain %q", i, e.Message, sub)
						}
					}
					continue
				}
				st := w.state
				if st == "" {
					st = cupid.StateWaiting
				}
				if got.Err != nil || got.Ticket == nil || got.Ticket.ID != w.id || got.Existed != w.existed || got.Ticket.State != st {
					t.Fatalf("result %d: %+v (err %v), want %s existed=%v %s", i, got, got.Err, w.id, w.existed, st)
				}
				eq(t, fmt.Sprintf("result %d replaced", i), ids(got.Replaced), w.replaced)
				for _, r := range got.Replaced {
					if r.State != cupid.StateCancelled || r.Reason != "replaced by ticket "+w.id {
						t.Fatalf("replaced ticket %s came back %s (%q)", r.ID, r.State, r.Reason)
					}
					if nt := byID[w.id]; !r.UpdatedAt.Equal(nt.CreatedAt) {
						t.Fatalf("replaced ticket %s updated at %v, want the replacing ticket's creation %v", r.ID, r.UpdatedAt, nt.CreatedAt)
					}
				}
			}
			eq(t, "events", eventStrings(evs), c.events)
			eq(t, "waiting", waitingIDs(t, s), c.waiting)
			for id, reason := range c.cancelled {
				tk := get(t, s, id)
				if tk.State != cupid.StateCancelled || tk.Reason != reason {
					t.Fatalf("ticket %s is %s (%q), want cancelled (%q)", id, tk.State, tk.Reason, reason)
				}
				hist, err := s.Events(bg, id, 0)
				if err != nil {
					t.Fatal(err)
				}
				if last := hist[len(hist)-1]; last.Kind != cupid.EventCancelled || last.Reason != reason || !last.At.Equal(tk.UpdatedAt) {
					t.Fatalf("ticket %s history %q, last at %v, want cancelled at %v", id, eventStrings(hist), last.At, tk.UpdatedAt)
				}
			}
			// Refused and repeated tickets left nothing behind.
			for i, w := range c.want {
				id := c.batch[i].Ticket.ID
				if w.code != "" || w.existed {
					if _, err := s.Ticket(bg, id); cupid.ErrorCode(err) != cupid.CodeNotFound {
						t.Fatalf("ticket %s was stored: %v", id, err)
					}
				}
			}
		})
	}
}

func testCreateCallErrors(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")))
	for _, c := range []struct {
		name  string
		batch []cupid.NewTicket
		code  cupid.Code
	}{
		{"nil ticket", []cupid.NewTicket{nt(m.tk("b", "duel", "", "p2")), {}}, cupid.CodeInvalid},
		{"empty id", []cupid.NewTicket{nt(m.tk("b", "duel", "", "p2")), nt(m.tk("", "duel", "", "p3"))}, cupid.CodeInvalid},
		{"id repeated in the batch", []cupid.NewTicket{nt(m.tk("b", "duel", "", "p2")), nt(m.tk("b", "duel", "", "p3"))}, cupid.CodeInvalid},
		{"id already stored", []cupid.NewTicket{nt(m.tk("b", "duel", "", "p2")), rep(m.tk("a", "duel", "", "p1"))}, cupid.CodeConflict},
		{"id already stored, simple batch", []cupid.NewTicket{nt(m.tk("b", "duel", "", "p2")), nt(m.tk("a", "duel", "", "p9"))}, cupid.CodeConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, evs, err := s.CreateTickets(bg, c.batch)
			if err == nil || cupid.ErrorCode(err) != c.code {
				t.Fatalf("err %v, want code %s; results %+v, events %q", err, c.code, out, eventStrings(evs))
			}
			eq(t, "waiting", waitingIDs(t, s), []string{"a"})
			if a := get(t, s, "a"); a.State != cupid.StateWaiting {
				t.Fatalf("a is %s", a.State)
			}
		})
	}
}

func testFinish(t *testing.T, open opener) {
	at := T0.Add(time.Minute)
	cases := []struct {
		name   string
		pre    func(t *testing.T, s cupid.Store)
		id     string
		state  cupid.TicketState
		reason string
		code   cupid.Code
	}{
		{name: "cancel by its owner", id: "a", state: cupid.StateCancelled},
		{name: "cancel by the server", id: "a", state: cupid.StateCancelled, reason: "the ruleset changed: no mmr"},
		{name: "expire", id: "a", state: cupid.StateExpired, reason: "waited 1h"},
		{name: "cancel twice", id: "a", state: cupid.StateCancelled, code: cupid.CodeConflict, pre: func(t *testing.T, s cupid.Store) {
			if _, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, "a", cupid.StateExpired, "", at); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "cancel matched", id: "a", state: cupid.StateCancelled, code: cupid.CodeConflict, pre: func(t *testing.T, s cupid.Store) {
			commit(t, s, match("m", at, []string{"a"}, []string{"b"}))
		}},
		{name: "unknown", id: "zz", state: cupid.StateCancelled, code: cupid.CodeNotFound},
		{name: "bad state", id: "a", state: cupid.StateMatched, code: cupid.CodeInvalid},
		{name: "waiting is no end", id: "a", state: cupid.StateWaiting, code: cupid.CodeInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			var m maker
			create(t, s, nt(m.tk("a", "duel", "", "p1", "p2")), nt(m.tk("b", "duel", "", "p3")))
			if c.pre != nil {
				c.pre(t, s)
			}
			before, _ := s.Ticket(bg, "a")
			tk, ev, err := lifecycle.Finish(bg, s, cupid.Fence{}, c.id, c.state, c.reason, at.Add(time.Second))
			if c.code != "" {
				wantCode(t, "FinishTicket", err, c.code)
				if after := get(t, s, "a"); after.State != before.State || after.Reason != before.Reason {
					t.Fatalf("a failed finish changed a from %s to %s", before.State, after.State)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			kind := cupid.EventCancelled
			if c.state == cupid.StateExpired {
				kind = cupid.EventExpired
			}
			if tk.ID != "a" || tk.State != c.state || tk.Reason != c.reason || !tk.UpdatedAt.Equal(at.Add(time.Second)) {
				t.Fatalf("finished ticket %+v", tk)
			}
			if ev.Seq <= 0 || ev.Kind != kind || ev.TicketID != "a" || ev.Reason != c.reason || !ev.At.Equal(at.Add(time.Second)) {
				t.Fatalf("event %+v", ev)
			}
			if got := get(t, s, "a"); got.State != c.state || got.Reason != c.reason {
				t.Fatalf("stored %s (%q)", got.State, got.Reason)
			}
			hist, _ := s.Events(bg, "a", 0)
			eq(t, "history", eventStrings(hist), []string{"created a", eventString(ev)})
			if hist[1].Seq != ev.Seq {
				t.Fatalf("history seq %d, returned %d", hist[1].Seq, ev.Seq)
			}
			// Its players are free again.
			out, _ := create(t, s, nt(m.tk("c", "duel", "", "p2")))
			if out[0].Err != nil {
				t.Fatalf("player of a finished ticket refused: %v", out[0].Err)
			}
		})
	}
}

func testCommitMatches(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1", "p2")), nt(m.tk("b", "duel", "", "p3")), nt(m.tk("c", "duel", "", "p4")), nt(m.tk("d", "duel", "", "p5")))
	at := T0.Add(time.Minute)
	m1 := match("m1", at, []string{"b"}, []string{"a"})
	m1.Key = cupid.QueueKey{Queue: "duel"}
	m1.Teams[0].PlayerIDs = []string{"p3"}
	m1.Teams[1].PlayerIDs = []string{"p1", "p2"}
	m1.Region = "eu"
	m1.Roles = map[string]string{"p1": "tank"}
	m2 := match("m2", at, []string{"c"}, []string{"d"})
	out, evs := commit(t, s, m1, m2)
	for i, c := range out {
		if !c.OK || len(c.NotWaiting) != 0 || len(c.Cancelled) != 0 {
			t.Fatalf("match %d: %+v", i, c)
		}
	}
	eq(t, "events", eventStrings(evs), []string{"matched b", "matched a", "matched c", "matched d"})
	for i, e := range evs {
		want := []*cupid.Match{m1, m1, m2, m2}[i]
		if e.Match == nil || e.Match.ID != want.ID || !e.At.Equal(at) {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	for id, mid := range map[string]string{"a": "m1", "b": "m1", "c": "m2", "d": "m2"} {
		tk := get(t, s, id)
		if tk.State != cupid.StateMatched || tk.MatchID != mid || !tk.UpdatedAt.Equal(at) || tk.Reason != "" {
			t.Fatalf("%s is %s/%s at %v", id, tk.State, tk.MatchID, tk.UpdatedAt)
		}
	}
	got, err := s.Match(bg, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "m1" || got.Key != m1.Key || !slices.Equal(got.TicketIDs(), []string{"b", "a"}) || got.Region != "eu" ||
		got.Roles["p1"] != "tank" || !slices.Equal(got.Teams[1].PlayerIDs, []string{"p1", "p2"}) || got.Quality.Score != 0.5 || !got.CreatedAt.Equal(at) {
		t.Fatalf("stored match %+v", got)
	}
	hist, _ := s.Events(bg, "a", 0)
	if len(hist) != 2 || hist[1].Match == nil || hist[1].Match.ID != "m1" || len(hist[1].Match.Teams) != 2 {
		t.Fatalf("a's history %+v", hist)
	}
	eq(t, "waiting", waitingIDs(t, s), nil)
	// The players are free for new tickets in the same queue.
	c, _ := create(t, s, nt(m.tk("e", "duel", "", "p1", "p2", "p3")))
	if c[0].Err != nil {
		t.Fatalf("matched players refused: %v", c[0].Err)
	}
	// And an empty commit is no error.
	if out, evs, err := s.CommitMatches(bg, cupid.Fence{}, nil); err != nil || len(out) != 0 || len(evs) != 0 {
		t.Fatalf("empty commit: %v %v %v", out, evs, err)
	}
}

func testCommitRefusals(t *testing.T, open opener) {
	at := T0.Add(time.Minute)
	cases := []struct {
		name       string
		pre        func(t *testing.T, s cupid.Store)
		matches    []*cupid.Match
		ok         []bool
		notWaiting [][]string
		events     []string
		waiting    []string
	}{
		{
			name: "cancelled ticket",
			pre: func(t *testing.T, s cupid.Store) {
				if _, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, "b", cupid.StateCancelled, "", at); err != nil {
					t.Fatal(err)
				}
			},
			matches:    []*cupid.Match{match("m", at, []string{"a"}, []string{"b"}), match("n", at, []string{"c"}, []string{"d"})},
			ok:         []bool{false, true},
			notWaiting: [][]string{{"b"}, nil},
			events:     []string{"matched c", "matched d"},
			waiting:    []string{"a"},
		},
		{
			name:       "unknown ticket",
			matches:    []*cupid.Match{match("m", at, []string{"x", "a"}, []string{"b", "y"})},
			ok:         []bool{false},
			notWaiting: [][]string{{"x", "y"}},
			waiting:    []string{"a", "b", "c", "d"},
		},
		{
			name:       "two matches share a ticket",
			matches:    []*cupid.Match{match("m", at, []string{"a"}, []string{"b"}), match("n", at, []string{"c"}, []string{"b", "d"})},
			ok:         []bool{true, false},
			notWaiting: [][]string{nil, {"b"}},
			events:     []string{"matched a", "matched b"},
			waiting:    []string{"c", "d"},
		},
		{
			name: "matched in an earlier call",
			pre: func(t *testing.T, s cupid.Store) {
				commit(t, s, match("m0", at, []string{"a"}, []string{"b"}))
			},
			matches:    []*cupid.Match{match("m", at, []string{"c"}, []string{"a"}, []string{"b"})},
			ok:         []bool{false},
			notWaiting: [][]string{{"a", "b"}},
			waiting:    []string{"c", "d"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			var m maker
			create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")), nt(m.tk("c", "duel", "", "p3")), nt(m.tk("d", "duel", "", "p4")))
			if c.pre != nil {
				c.pre(t, s)
			}
			out, evs := commit(t, s, c.matches...)
			for i, r := range out {
				if r.OK != c.ok[i] {
					t.Fatalf("match %d ok=%v, want %v", i, r.OK, c.ok[i])
				}
				eq(t, fmt.Sprintf("match %d not waiting", i), r.NotWaiting, c.notWaiting[i])
				if !r.OK {
					if len(r.Cancelled) != 0 {
						t.Fatalf("refused match %d cancelled %v", i, ids(r.Cancelled))
					}
					if _, err := s.Match(bg, c.matches[i].ID); cupid.ErrorCode(err) != cupid.CodeNotFound {
						t.Fatalf("refused match %s was stored: %v", c.matches[i].ID, err)
					}
				}
			}
			eq(t, "events", eventStrings(evs), c.events)
			eq(t, "waiting", waitingIDs(t, s), c.waiting)
		})
	}
}

func testCrossQueueCancel(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s,
		nt(m.tk("a", "duel", "", "p1", "p2")), nt(m.tk("b", "duel", "", "p3")), // to be matched in duel
		nt(m.tk("x", "squad", "", "p2", "p9")),  // shares p2 with a
		nt(m.tk("y", "ranked", "", "p1", "p3")), // shares p1 with a and p3 with b: named by p1
		nt(m.tk("w", "ranked2", "", "p3")),      // shares p3 with b
		nt(m.tk("z", "squad2", "", "p8")),       // shares nothing
		nt(m.tk("v", "squad", "", "p7")),        // matched with x in the same batch, after x is cancelled
	)
	at := T0.Add(time.Minute)
	out, evs := commit(t, s, match("m1", at, []string{"a"}, []string{"b"}), match("m2", at, []string{"x"}, []string{"v"}))
	if !out[0].OK || out[1].OK {
		t.Fatalf("results %+v", out)
	}
	eq(t, "cancelled", ids(out[0].Cancelled), []string{"w", "x", "y"})
	eq(t, "m2 not waiting", out[1].NotWaiting, []string{"x"})
	reasons := map[string]string{
		"w": `player p3 was matched in queue duel (match m1)`,
		"x": `player p2 was matched in queue duel (match m1)`,
		"y": `player p1 was matched in queue duel (match m1)`,
	}
	for _, c := range out[0].Cancelled {
		if c.State != cupid.StateCancelled || c.Reason != reasons[c.ID] || !c.UpdatedAt.Equal(at) {
			t.Fatalf("cancelled %s: %s (%q) at %v", c.ID, c.State, c.Reason, c.UpdatedAt)
		}
	}
	eq(t, "events", eventStrings(evs), []string{
		"matched a", "matched b",
		"cancelled w: " + reasons["w"], "cancelled x: " + reasons["x"], "cancelled y: " + reasons["y"],
	})
	for _, e := range evs[2:] {
		if !e.At.Equal(at) || e.Match != nil {
			t.Fatalf("cancel event %+v", e)
		}
	}
	for id, reason := range reasons {
		if tk := get(t, s, id); tk.State != cupid.StateCancelled || tk.Reason != reason {
			t.Fatalf("%s is %s (%q)", id, tk.State, tk.Reason)
		}
	}
	eq(t, "waiting", waitingIDs(t, s), []string{"z", "v"})
	// The cancelled tickets' players are free everywhere.
	c, _ := create(t, s, nt(m.tk("n1", "squad", "", "p9", "p2")), nt(m.tk("n2", "ranked", "", "p3", "p1")))
	for _, r := range c {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

// testCrossQueueCancelTwice commits, in one batch, two matches whose
// players share a party ticket elsewhere: the first match cancels it, the
// second finds it already ended and still commits.
func testCrossQueueCancelTwice(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s,
		nt(m.tk("x", "squad", "", "q", "r")),
		nt(m.tk("a", "duel", "", "q")), nt(m.tk("b", "duel", "", "p1")),
		nt(m.tk("d", "ranked", "", "r")), nt(m.tk("e", "ranked", "", "p2")),
	)
	at := T0.Add(time.Minute)
	out, evs := commit(t, s, match("m1", at, []string{"a"}, []string{"b"}), match("m2", at, []string{"d"}, []string{"e"}))
	if !out[0].OK || !out[1].OK {
		t.Fatalf("results %+v", out)
	}
	eq(t, "m1 cancelled", ids(out[0].Cancelled), []string{"x"})
	eq(t, "m2 cancelled", ids(out[1].Cancelled), nil)
	eq(t, "events", eventStrings(evs), []string{
		"matched a", "matched b", "cancelled x: player q was matched in queue duel (match m1)", "matched d", "matched e",
	})
	eq(t, "waiting", waitingIDs(t, s), nil)
	c, _ := create(t, s, nt(m.tk("n", "squad", "", "r", "q")))
	if c[0].Err != nil {
		t.Fatal(c[0].Err)
	}
}

func testCommitCallErrors(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")), nt(m.tk("c", "duel", "", "p3")), nt(m.tk("d", "duel", "", "p4")))
	commit(t, s, match("m0", T0, []string{"c"}, []string{"d"}))
	for _, c := range []struct {
		name string
		ms   []*cupid.Match
		code cupid.Code
	}{
		{"match id already stored", []*cupid.Match{match("m0", T0, []string{"a"}, []string{"b"})}, cupid.CodeConflict},
		{"no tickets", []*cupid.Match{match("m", T0, []string{"a"}, []string{"b"}), match("n", T0)}, cupid.CodeInvalid},
		{"a ticket twice", []*cupid.Match{match("m", T0, []string{"a"}, []string{"a"})}, cupid.CodeInvalid},
		{"nil match", []*cupid.Match{match("m", T0, []string{"a"}, []string{"b"}), nil}, cupid.CodeInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			if out, evs, err := s.CommitMatches(bg, cupid.Fence{}, c.ms); err == nil || cupid.ErrorCode(err) != c.code {
				t.Fatalf("err %v, want code %s; results %+v, events %q", err, c.code, out, eventStrings(evs))
			}
			eq(t, "waiting", waitingIDs(t, s), []string{"a", "b"})
			if _, err := s.Match(bg, "m"); cupid.ErrorCode(err) != cupid.CodeNotFound {
				t.Fatalf("match m stored: %v", err)
			}
		})
	}
}

func testEvents(t *testing.T, s cupid.Store) {
	var m maker
	_, e1 := create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")), nt(m.tk("c", "duel", "", "p3")))
	_, e2 := create(t, s, rep(m.tk("d", "duel", "", "p3")))
	_, e3, err := lifecycle.Finish(bg, s, cupid.Fence{}, "b", cupid.StateExpired, "too old", T0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	_, e4 := commit(t, s, match("m", T0.Add(2*time.Minute), []string{"a"}, []string{"d"}))
	all := append(append(append(e1, e2...), e3), e4...)
	checkSeqOrder(t, all)
	eq(t, "all events", eventStrings(all), []string{
		"created a", "created b", "created c", "cancelled c: replaced by ticket d", "created d", "expired b: too old", "matched a", "matched d",
	})
	for _, id := range []string{"a", "b", "c", "d"} {
		var want []cupid.Event
		for _, e := range all {
			if e.TicketID == id {
				want = append(want, e)
			}
		}
		got, err := s.Events(bg, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: events %q, want %q", id, eventStrings(got), eventStrings(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Seq != w.Seq || g.Kind != w.Kind || g.TicketID != w.TicketID || g.Reason != w.Reason || !g.At.Equal(w.At) ||
				(g.Match == nil) != (w.Match == nil) || (g.Match != nil && g.Match.ID != w.Match.ID) {
				t.Fatalf("%s: event %d is %+v, returned %+v", id, i, g, w)
			}
		}
		// After a seq: only the later ones.
		rest, err := s.Events(bg, id, got[0].Seq)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, id+" after first", eventStrings(rest), eventStrings(got[1:]))
		rest, _ = s.Events(bg, id, got[len(got)-1].Seq)
		if len(rest) != 0 {
			t.Fatalf("%s: events after the last: %q", id, eventStrings(rest))
		}
	}
}

func testListing(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "squad", "", "p2")), nt(m.tk("c", "duel", "", "p3")),
		nt(m.tk("d", "duel", "", "p4")), nt(m.tk("e", "squad", "", "p5")))
	if _, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, "c", cupid.StateCancelled, "", T0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	commit(t, s, match("m", T0.Add(time.Minute), []string{"b"}, []string{"e"}))
	for _, c := range []struct {
		f    cupid.TicketFilter
		want []string
	}{
		{cupid.TicketFilter{}, []string{"a", "b", "c", "d", "e"}},
		{cupid.TicketFilter{Queue: "duel"}, []string{"a", "c", "d"}},
		{cupid.TicketFilter{State: cupid.StateWaiting}, []string{"a", "d"}},
		{cupid.TicketFilter{Queue: "squad", State: cupid.StateMatched}, []string{"b", "e"}},
		{cupid.TicketFilter{Queue: "duel", State: cupid.StateCancelled}, []string{"c"}},
		{cupid.TicketFilter{Queue: "squad", State: cupid.StateWaiting}, nil},
		{cupid.TicketFilter{Queue: "nope"}, nil},
		{cupid.TicketFilter{Limit: 2}, []string{"a", "b"}},
		{cupid.TicketFilter{Queue: "duel", Limit: 2}, []string{"a", "c"}},
		{cupid.TicketFilter{IDs: []string{"e", "a", "nope"}}, []string{"a", "e"}},
		{cupid.TicketFilter{IDs: []string{"e", "a", "d"}, State: cupid.StateWaiting}, []string{"a", "d"}},
		{cupid.TicketFilter{IDs: []string{"e", "b", "d"}, Queue: "squad", Limit: 1}, []string{"b"}},
	} {
		got, err := s.Tickets(bg, c.f)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, fmt.Sprintf("Tickets(%+v)", c.f), ids(got), c.want)
	}
	_, err := s.Tickets(bg, cupid.TicketFilter{IDs: make([]string, cupid.MaxFilterIDs+1)})
	wantCode(t, "too many ids", err, cupid.CodeInvalid)
	got, _ := s.Tickets(bg, cupid.TicketFilter{State: cupid.StateMatched})
	for _, tk := range got {
		if tk.MatchID != "m" {
			t.Fatalf("listed %s without its match", tk.ID)
		}
	}
}

func testWaitingOldestFirst(t *testing.T, s cupid.Store) {
	var m maker
	var ts []*cupid.Ticket
	for i := range 6 {
		ts = append(ts, m.tk(fmt.Sprint("t", i), "duel", "", fmt.Sprint("p", i)))
	}
	// Stored newest first, in two calls, and two with the same age (ids
	// break the tie).
	ts[4].CreatedAt = ts[3].CreatedAt
	create(t, s, nt(ts[5]), nt(ts[4]), nt(ts[3]))
	create(t, s, nt(ts[2]), nt(ts[1]), nt(ts[0]))
	if _, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, "t2", cupid.StateCancelled, "", T0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	eq(t, "waiting", waitingIDs(t, s), []string{"t0", "t1", "t3", "t4", "t5"})
	w, _ := s.WaitingTickets(bg)
	for _, tk := range w {
		if tk.State != cupid.StateWaiting {
			t.Fatalf("%s is %s", tk.ID, tk.State)
		}
	}
}

func testPing(t *testing.T, s cupid.Store) {
	for range 3 {
		if err := s.Ping(bg); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if err := s.Ping(ctx); err == nil {
		t.Fatal("Ping with a cancelled context succeeded")
	}
}

// testCopies checks that neither the tickets handed in nor those handed
// out share memory with what the store keeps.
func testCopies(t *testing.T, s cupid.Store) {
	var m maker
	a := m.tk("a", "duel", "", "p1")
	out, _ := create(t, s, nt(a), nt(m.tk("b", "duel", "", "p2")))
	a.Players[0].ID = "changed"
	a.Players[0].Attributes[0].Value = cupid.Number(1)
	a.Latencies["eu"] = 999
	out[0].Ticket.Players = nil
	out[0].Ticket.State = cupid.StateMatched
	got := get(t, s, "a")
	if got.State != cupid.StateWaiting || len(got.Players) != 1 || got.Players[0].ID != "p1" || got.Latencies["eu"] != 20 {
		t.Fatalf("stored ticket changed through the caller's pointers: %+v", got)
	}
	if v, _ := got.Players[0].Attributes.Get("mmr"); v.Number != 1500 {
		t.Fatalf("attribute changed to %v", v.Number)
	}
	got.Players[0].ID = "changed again"
	got.Latencies["eu"] = 1
	if again := get(t, s, "a"); again.Players[0].ID != "p1" || again.Latencies["eu"] != 20 {
		t.Fatalf("stored ticket changed through a read: %+v", again)
	}
	mt := match("m", T0, []string{"a"}, []string{"b"})
	mt.Teams[0].PlayerIDs = []string{"p1"}
	_, evs := commit(t, s, mt)
	mt.Teams[0].TicketIDs[0] = "zz"
	mt.Teams[0].PlayerIDs[0] = "zz"
	evs[0].Match.Teams[1].TicketIDs[0] = "yy"
	stored, err := s.Match(bg, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stored.TicketIDs(), []string{"a", "b"}) || stored.Teams[0].PlayerIDs[0] != "p1" {
		t.Fatalf("stored match changed: %+v", stored)
	}
	stored.Teams[0].TicketIDs[0] = "xx"
	hist, _ := s.Events(bg, "a", 0)
	if !slices.Equal(hist[1].Match.TicketIDs(), []string{"a", "b"}) {
		t.Fatalf("stored match changed through a read: %+v", hist[1].Match)
	}
}

// testConcurrentCreates races creates for one player in one queue: the
// store must let exactly one through.
func testConcurrentCreates(t *testing.T, s cupid.Store) {
	const n = 8
	var m maker
	ts := make([]*cupid.Ticket, n)
	for i := range ts {
		ts[i] = m.tk(fmt.Sprint("t", i), "duel", "", "p1", fmt.Sprint("q", i))
	}
	var wg sync.WaitGroup
	results := make([]cupid.Created, n)
	errs := make([]error, n)
	for i := range ts {
		wg.Go(func() {
			out, _, err := s.CreateTickets(bg, []cupid.NewTicket{nt(ts[i])})
			errs[i] = err
			if err == nil {
				results[i] = out[0]
			}
		})
	}
	wg.Wait()
	stored := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		switch {
		case r.Err == nil:
			stored++
		case cupid.ErrorCode(r.Err) != cupid.CodeAlreadyExists:
			t.Fatalf("ticket %d: %v", i, r.Err)
		}
	}
	if stored != 1 || len(waitingIDs(t, s)) != 1 {
		t.Fatalf("%d of %d racing tickets for one player were stored", stored, n)
	}
}

// testOneLiveMatch: a player is in one live match at most. A match naming a
// ticket whose player is in another live match is refused, naming him and
// that match, and changes nothing; once that match's session ends, the same
// match commits.
func testOneLiveMatch(t *testing.T, s cupid.Store) {
	var m maker
	withPlayers := func(mt *cupid.Match, players ...[]string) *cupid.Match {
		for i := range mt.Teams {
			mt.Teams[i].PlayerIDs = players[i]
		}
		return mt
	}
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")))
	at := T0.Add(time.Minute)
	if out, _ := commit(t, s, withPlayers(match("m1", at, []string{"a"}, []string{"b"}), []string{"p1"}, []string{"p2"})); !out[0].OK {
		t.Fatalf("m1: %+v", out[0])
	}
	// p1 queues again, in the same queue and in another, while m1 is live.
	create(t, s, nt(m.tk("c", "duel", "", "p1")), nt(m.tk("d", "duel", "", "p3")), nt(m.tk("e", "solo", "", "p1")), nt(m.tk("f", "solo", "", "p4")))
	out, evs := commit(t, s,
		withPlayers(match("m2", at.Add(time.Second), []string{"c"}, []string{"d"}), []string{"p1"}, []string{"p3"}),
		withPlayers(match("m3", at.Add(time.Second), []string{"f"}, []string{"e"}), []string{"p4"}, []string{"p1"}))
	for i, want := range []cupid.Busy{{Ticket: "c", Player: "p1", Match: "m1"}, {Ticket: "e", Player: "p1", Match: "m1"}} {
		if out[i].OK || len(out[i].Busy) != 1 || out[i].Busy[0] != want {
			t.Fatalf("match %d: %+v, want refused with busy %+v", i, out[i], want)
		}
	}
	if len(evs) != 0 {
		t.Fatalf("refused matches wrote events: %v", eventStrings(evs))
	}
	eq(t, "waiting", waitingIDs(t, s), []string{"c", "d", "e", "f"})
	if _, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "m1", cupid.SessionChange{Kind: cupid.MatchEventEnded}, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	out, _ = commit(t, s, withPlayers(match("m2", at.Add(time.Hour), []string{"c"}, []string{"d"}), []string{"p1"}, []string{"p3"}))
	if !out[0].OK {
		t.Fatalf("m2 after m1 ended: %+v", out[0])
	}
}
