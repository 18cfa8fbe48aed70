package storecopy_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storecopy"
	"github.com/cupid-match/cupid/lifecycle"
)

// store is what the tests fill and read: both stores are all of these.
type store interface {
	cupid.Store
	cupid.DocumentStore
	cupid.RatingStore
	cupid.EncounterStore
	storecopy.Source
	storecopy.Destination
}

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.UTC)

// fill writes through the stores' own calls and the lifecycle's steps what
// a live store holds: waiting tickets (some with request ids), cancelled,
// expired and replaced ones, matches in every state (pending with an
// answer, formed, assigned, released and requeued, a live session open to
// backfill, an ended one), a rating result with its rows and history, and
// documents (a speed-dating event, a ruleset). n more waiting tickets make
// the tables span several batches.
func fill(t *testing.T, s store, n int) {
	t.Helper()
	seq := 0
	tk := func(id, queue, rid string, players ...string) cupid.NewTicket {
		seq++
		tk := &cupid.Ticket{ID: id, Key: cupid.QueueKey{Queue: queue}, RequestID: rid, State: cupid.StateWaiting,
			CreatedAt: t0.Add(time.Duration(seq) * time.Millisecond), ExpiresAt: t0.Add(time.Hour),
			Latencies: map[string]int32{"eu": 20}}
		for _, p := range players {
			tk.Players = append(tk.Players, cupid.Player{ID: p, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500 + float64(seq))})})
		}
		return cupid.NewTicket{Ticket: tk}
	}
	var nts []cupid.NewTicket
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"} {
		nts = append(nts, tk(id, "duel", "rid-"+id, "p"+id))
	}
	nts = append(nts, tk("x1", "old", "", "px1"), tk("x2", "old", "", "px2"))
	nts = append(nts, tk("s1", "team", "", "ps1"), tk("s2", "team", "", "ps2"), tk("s3", "team", "", "ps3"), tk("s4", "team", "", "ps4"))
	for i := range n {
		nts = append(nts, tk(fmt.Sprintf("w%04d", i), "duel", "", fmt.Sprintf("pw%04d", i)))
	}
	must(t, "create", func() error { _, _, err := s.CreateTickets(bg, nts); return err })
	replace := tk("k2", "duel", "", "pk")
	replace.Replace = true
	must(t, "replace", func() error { _, _, err := s.CreateTickets(bg, []cupid.NewTicket{replace}); return err })

	at := t0.Add(time.Minute)
	duel := func(id string, a, b string) *cupid.Match {
		return &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at, Quality: cupid.Quality{Score: 0.75},
			Teams: []cupid.Team{{TicketIDs: []string{a}, PlayerIDs: []string{"p" + a}}, {TicketIDs: []string{b}, PlayerIDs: []string{"p" + b}}}}
	}
	pending := duel("m-pending", "g", "h")
	pending.AcceptBy = at.Add(time.Minute)
	session := func(id, a, b string) *cupid.Match {
		return &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: "team"}, CreatedAt: at, Quality: cupid.Quality{Score: 0.5},
			Seats: []int{2, 2}, Backfill: true,
			Teams: []cupid.Team{{TicketIDs: []string{a}, PlayerIDs: []string{"p" + a}}, {TicketIDs: []string{b}, PlayerIDs: []string{"p" + b}}}}
	}
	must(t, "commit", func() error {
		_, _, err := s.CommitMatches(bg, cupid.Fence{}, []*cupid.Match{duel("m-formed", "a", "b"), duel("m-assigned", "c", "d"),
			duel("m-released", "e", "f"), pending, session("m-open", "s1", "s2"), session("m-ended", "s3", "s4")})
		return err
	})
	must(t, "assign", func() error {
		_, _, _, err := lifecycle.Assign(bg, s, cupid.Fence{}, "m-assigned", cupid.Assignment{Server: "10.0.0.7:7777", SessionID: "s-1",
			Connection: map[string]string{"token": "xyz"}, At: at.Add(time.Second)})
		return err
	})
	must(t, "release", func() error {
		_, err := lifecycle.Release(bg, s, cupid.Fence{}, "m-released", cupid.Release{Requeue: true, Reason: "no server"}, at.Add(2*time.Second))
		return err
	})
	must(t, "answer", func() error {
		_, err := lifecycle.Answer(bg, s, cupid.Fence{}, "m-pending", "pg", true, cupid.Release{}, at.Add(3*time.Second))
		return err
	})
	must(t, "leave", func() error {
		_, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "m-open", cupid.SessionChange{Kind: cupid.MatchEventLeft, Players: []string{"ps2"}, Reopen: true}, at.Add(4*time.Second))
		return err
	})
	must(t, "end", func() error {
		_, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "m-ended", cupid.SessionChange{Kind: cupid.MatchEventEnded}, at.Add(5*time.Second))
		return err
	})
	must(t, "cancel", func() error {
		_, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, "i", cupid.StateCancelled, "player left", at.Add(6*time.Second))
		return err
	})
	must(t, "expire", func() error {
		_, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, "j", cupid.StateExpired, "", at.Add(7*time.Second))
		return err
	})
	must(t, "result", func() error {
		return s.SaveResult(bg, cupid.ResultRecord{MatchID: "m-assigned", At: at.Add(time.Hour), Body: []byte(`{"winner":0}`)},
			[]cupid.RatingRow{{Kind: "player", ID: "elo/pc", Body: []byte(`{"mu":27.1}`)}, {Kind: "player", ID: "elo/pd", Body: []byte(`{"mu":22.9}`)}},
			[]cupid.RatingEntry{{Rating: "elo", Player: "pc", MatchID: "m-assigned", At: at.Add(time.Hour), Body: []byte(`{"d":2.1}`)},
				{Rating: "elo", Player: "pd", MatchID: "m-assigned", At: at.Add(time.Hour), Body: []byte(`{"d":-2.1}`)}})
	})
	// A match ended long ago that retention removed, so the queue "old"
	// has a match log horizon to copy.
	must(t, "retention", func() error {
		old := duel("m-old", "x1", "x2")
		old.Key.Queue = "old"
		if _, _, err := s.CommitMatches(bg, cupid.Fence{}, []*cupid.Match{old}); err != nil {
			return err
		}
		if _, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "m-old", cupid.SessionChange{Kind: cupid.MatchEventEnded}, at.Add(500*time.Millisecond)); err != nil {
			return err
		}
		r, err := s.(cupid.Pruner).Prune(bg, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainMatches, Before: at.Add(time.Second), Limit: 100})
		if err == nil && r.Removed != 1 {
			err = fmt.Errorf("pruned %+v, want m-old", r)
		}
		return err
	})
	must(t, "documents", func() error {
		if err := s.PutDocument(bg, cupid.Fence{}, "pairing_event", "ev1", []byte(`{"round":3,"met":[["a","b"]]}`), at); err != nil {
			return err
		}
		return s.PutDocument(bg, cupid.Fence{}, "ruleset", "duel", []byte("rules:\n  - \x00binary\xff"), at)
	})
	must(t, "encounters", func() error {
		if err := s.AddEncounters(bg, []cupid.Encounter{
			{Player: "pc", Other: "pd", Mode: "queue", Side: "opponent", Place: "duel", Ref: "m-assigned", At: at, Outcome: "win"},
			{Player: "pd", Other: "pc", Mode: "queue", Side: "opponent", Place: "duel", Ref: "m-assigned", At: at, Outcome: "loss"},
		}); err != nil {
			return err
		}
		return s.PutListEntry(bg, cupid.ListEntry{Player: "pc", Kind: "avoid", Other: "pd", Weight: 0.5, At: at})
	})
}

func must(t *testing.T, what string, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatalf("fill: %s: %v", what, err)
	}
}

// dump reads every copied table through a store's own snapshot, in key
// order: two stores that hold the same rows dump equal, column for column.
func dump(t *testing.T, s storecopy.Source) map[string][][]any {
	t.Helper()
	sn, err := s.CopySnapshot(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	out := map[string][][]any{}
	for _, tb := range storecopy.Tables {
		rows, err := sn.Rows(bg, tb, nil, 1<<30)
		if err != nil {
			t.Fatalf("dump %s: %v", tb.Name, err)
		}
		out[tb.Name] = rows
	}
	return out
}

func sameDump(t *testing.T, what string, got, want map[string][][]any) {
	t.Helper()
	for _, tb := range storecopy.Tables {
		g, w := got[tb.Name], want[tb.Name]
		if len(g) != len(w) {
			t.Errorf("%s: %s has %d rows, want %d", what, tb.Name, len(g), len(w))
			continue
		}
		for i := range w {
			if !reflect.DeepEqual(g[i], w[i]) {
				t.Errorf("%s: %s row %d\n got %v\nwant %v", what, tb.Name, i, g[i], w[i])
				break
			}
		}
	}
}

// TestFilledStoreHasEveryTable guards the test itself: the fill must put
// rows in every table the copy moves, or a table could be dropped from the
// copy with every test still passing.
func TestFilledStoreHasEveryTable(t *testing.T) {
	src, _ := openSQLite(t, "src.db")
	fill(t, src, 3)
	for name, rows := range dump(t, src) {
		if len(rows) == 0 {
			t.Errorf("the fill leaves %s empty", name)
		}
	}
}

// copyAll copies src into dst in batches of batch rows and returns the
// progress reports.
func copyAll(t *testing.T, src storecopy.Source, dst storecopy.Destination, name string, batch int) []storecopy.Progress {
	t.Helper()
	var ps []storecopy.Progress
	err := storecopy.Copy(bg, src, dst, storecopy.Options{Source: name, Batch: batch, Progress: func(p storecopy.Progress) { ps = append(ps, p) }})
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	return ps
}

// TestSQLiteIntoPostgresAndBack: a filled SQLite store copied into
// PostgreSQL holds the same rows, serves the same tickets, matches, events
// and ratings through the store's own calls, numbers new events past the
// copied ones; copied back into a new SQLite file it still holds the same.
func TestSQLiteIntoPostgresAndBack(t *testing.T) {
	src, srcPath := openSQLite(t, "src.db")
	fill(t, src, 250)
	want := dump(t, src)

	dst := openPostgres(t, newSchema(t))
	ps := copyAll(t, src, dst, srcPath, 100)
	sameDump(t, "sqlite → postgres", dump(t, dst), want)
	last := map[string]storecopy.Progress{}
	for _, p := range ps {
		last[p.Table] = p
	}
	for _, tb := range storecopy.Tables {
		p := last[tb.Name]
		if !p.Done || p.Copied != int64(len(want[tb.Name])) || p.Total != p.Copied {
			t.Errorf("last progress of %s: %+v, want done with %d rows", tb.Name, p, len(want[tb.Name]))
		}
	}
	sameThroughCalls(t, dst, src)
	newNumbersAreLarger(t, dst, src)

	// Back: a copy of the PostgreSQL store (before the new rows of
	// newNumbersAreLarger) is what the SQLite store was.
	pgSrc := openPostgres(t, newSchema(t))
	copyAll(t, src, pgSrc, srcPath, 1000)
	back, backPath := openSQLite(t, "back.db")
	copyAll(t, pgSrc, back, "postgres", 7)
	sameDump(t, "postgres → sqlite", dump(t, back), want)
	sameThroughCalls(t, back, src)
	newNumbersAreLarger(t, back, src)
	_ = backPath
}

// sameThroughCalls reads both stores through the cupid.Store calls a
// server makes when it starts and serves: the waiting tickets (with their
// ages), every ticket's events with their numbers, the match log, the
// matches in every state, the open sessions, ready-check answers, ratings
// and documents.
func sameThroughCalls(t *testing.T, got, want store) {
	t.Helper()
	gw, err := got.WaitingTickets(bg)
	if err != nil {
		t.Fatal(err)
	}
	ww, _ := want.WaitingTickets(bg)
	if len(gw) != len(ww) || len(ww) == 0 {
		t.Fatalf("%d waiting tickets, want %d", len(gw), len(ww))
	}
	for i := range ww {
		if gw[i].ID != ww[i].ID || !gw[i].CreatedAt.Equal(ww[i].CreatedAt) || gw[i].RequestID != ww[i].RequestID {
			t.Fatalf("waiting ticket %d: %s created %v, want %s created %v", i, gw[i].ID, gw[i].CreatedAt, ww[i].ID, ww[i].CreatedAt)
		}
		if i < 20 {
			sameEvents(t, got, want, ww[i].ID)
		}
	}
	for _, id := range []string{"a", "c", "e", "g", "i", "j", "k", "s3"} {
		g, err := got.Ticket(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.Ticket(bg, id)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("ticket %s\n got %+v\nwant %+v", id, g, w)
		}
		sameEvents(t, got, want, id)
	}
	for _, q := range []string{"duel", "team"} {
		g, err := got.MatchEvents(bg, q, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.MatchEvents(bg, q, 0, 100)
		if len(w) == 0 || !reflect.DeepEqual(g, w) {
			t.Errorf("match log of %s\n got %+v\nwant %+v", q, g, w)
		}
	}
	states := map[cupid.MatchState]bool{}
	for _, id := range []string{"m-formed", "m-assigned", "m-released", "m-pending", "m-open", "m-ended"} {
		g, err := got.MatchRecord(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.MatchRecord(bg, id)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("match %s\n got %+v\nwant %+v", id, g, w)
		}
		states[g.State] = true
	}
	if len(states) != 5 {
		t.Errorf("the matches are in %d states, want all five: %v", len(states), states)
	}
	g, err := got.OpenSessions(bg)
	if err != nil || len(g) != 1 || g[0].Match.ID != "m-open" {
		t.Errorf("open sessions %v, %v", g, err)
	}
	ga, _ := got.MatchAnswers(bg, "m-pending")
	wa, _ := want.MatchAnswers(bg, "m-pending")
	if len(wa) != 1 || !reflect.DeepEqual(ga, wa) {
		t.Errorf("answers %+v, want %+v", ga, wa)
	}
	gh, _ := got.RatingHistory(bg, "elo", "pc", 0, 10)
	wh, _ := want.RatingHistory(bg, "elo", "pc", 0, 10)
	if len(wh) != 1 || !reflect.DeepEqual(gh, wh) {
		t.Errorf("rating history %+v, want %+v", gh, wh)
	}
	if r, err := got.Result(bg, "m-assigned"); err != nil || string(r.Body) != `{"winner":0}` {
		t.Errorf("result %+v, %v", r, err)
	}
	for _, kind := range []string{"pairing_event", "ruleset"} {
		gd, _ := got.Documents(bg, kind, "", 10)
		wd, _ := want.Documents(bg, kind, "", 10)
		if len(wd) != 1 || !reflect.DeepEqual(gd, wd) {
			t.Errorf("documents %s %+v, want %+v", kind, gd, wd)
		}
	}
}

func sameEvents(t *testing.T, got, want store, id string) {
	t.Helper()
	g, err := got.Events(bg, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := want.Events(bg, id, 0)
	if len(w) == 0 || !reflect.DeepEqual(g, w) {
		t.Errorf("events of %s\n got %+v\nwant %+v", id, g, w)
	}
}

// newNumbersAreLarger: after the copy the store numbers a new ticket
// event, match event and rating entry past everything copied, and a guarded
// rating row compares equal to its copied body.
func newNumbersAreLarger(t *testing.T, s, src store) {
	t.Helper()
	var maxSeq int64
	for _, tk := range []string{"a", "c", "e", "g", "i", "j", "k", "k2", "s1", "s3"} {
		evs, _ := src.Events(bg, tk, 0)
		for _, e := range evs {
			maxSeq = max(maxSeq, e.Seq)
		}
	}
	// The last event anywhere is the last one written: j's expiry.
	nt := &cupid.Ticket{ID: "new", Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting, CreatedAt: t0.Add(2 * time.Hour),
		ExpiresAt: t0.Add(3 * time.Hour), Players: []cupid.Player{{ID: "newcomer"}}}
	_, evs, err := s.CreateTickets(bg, []cupid.NewTicket{{Ticket: nt}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("create after the copy: %v, %v", evs, err)
	}
	if evs[0].Seq <= maxSeq {
		t.Errorf("the first new event is number %d, not past the copied %d", evs[0].Seq, maxSeq)
	}
	log, _ := src.MatchEvents(bg, "duel", 0, 100)
	_, _, err = s.CommitMatches(bg, cupid.Fence{}, []*cupid.Match{{ID: "m-new", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0.Add(2 * time.Hour),
		Teams: []cupid.Team{{TicketIDs: []string{"new"}, PlayerIDs: []string{"newcomer"}}, {TicketIDs: []string{"e"}, PlayerIDs: []string{"pe"}}}}})
	if err != nil {
		t.Fatalf("commit after the copy: %v", err)
	}
	newLog, _ := s.MatchEvents(bg, "duel", log[len(log)-1].Seq, 100)
	if len(newLog) != 1 || newLog[0].Match.ID != "m-new" {
		t.Errorf("match log after the copied one: %+v", newLog)
	}
	err = s.PutRatingRows(bg, []cupid.RatingRow{{Kind: "player", ID: "elo/pc", Guard: true, Prev: []byte(`{"mu":27.1}`), Body: []byte(`{"mu":28}`)}})
	if err != nil {
		t.Errorf("a guarded write over the copied row: %v", err)
	}
	hist, _ := src.RatingHistory(bg, "elo", "pd", 0, 10)
	err = s.SaveResult(bg, cupid.ResultRecord{MatchID: "m-new", At: t0.Add(3 * time.Hour), Body: []byte(`{}`)}, nil,
		[]cupid.RatingEntry{{Rating: "elo", Player: "pd", MatchID: "m-new", At: t0.Add(3 * time.Hour), Body: []byte(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := s.RatingHistory(bg, "elo", "pd", 0, 10); len(h) != 2 || h[0].Seq <= hist[0].Seq {
		t.Errorf("rating history after the copy: %+v (copied %+v)", h, hist)
	}
}

// TestResumeAfterInterruption: a copy stopped after some batches, in
// either direction, carries on when run again and ends with what one
// uninterrupted copy gives; its progress says which tables were resumed.
func TestResumeAfterInterruption(t *testing.T) {
	src, srcPath := openSQLite(t, "src.db")
	fill(t, src, 40)
	want := dump(t, src)
	pg := openPostgres(t, newSchema(t))
	back, _ := openSQLite(t, "back.db")
	for _, c := range []struct {
		name     string
		src      storecopy.Source
		dst      storecopy.Destination
		srcName  string
		stopAt   []int // batches after which each run is stopped
		finished store
	}{
		{"sqlite to postgres", src, pg, srcPath, []int{1, 3, 4}, pg},
		{"postgres to sqlite", pg, back, "postgres", []int{2, 5}, back},
	} {
		t.Run(c.name, func(t *testing.T) {
			for run, stop := range c.stopAt {
				ctx, cancel := context.WithCancel(bg)
				batches := 0
				err := storecopy.Copy(ctx, c.src, c.dst, storecopy.Options{Source: c.srcName, Batch: 4, Progress: func(p storecopy.Progress) {
					if run > 0 && batches == 0 && !p.Resumed {
						t.Errorf("run %d: the first report, of %s, does not say it resumed", run, p.Table)
					}
					batches++
					if batches == stop {
						cancel()
					}
				}})
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("run %d stopped after %d batches: %v, want context.Canceled", run, stop, err)
				}
			}
			if err := storecopy.Copy(bg, c.src, c.dst, storecopy.Options{Source: c.srcName, Batch: 4}); err != nil {
				t.Fatal(err)
			}
			sameDump(t, "resumed copy", dump(t, c.finished), want)
			// Run again, the copy finds everything done and writes nothing.
			var copied int
			err := storecopy.Copy(bg, c.src, c.dst, storecopy.Options{Source: c.srcName, Batch: 4, Progress: func(p storecopy.Progress) {
				if !p.Done || !p.Resumed {
					t.Errorf("a finished copy run again reports %+v", p)
				}
				copied++
			}})
			if err != nil || copied != len(storecopy.Tables) {
				t.Fatalf("a finished copy run again: %v, %d reports", err, copied)
			}
			sameDump(t, "copy run twice", dump(t, c.finished), want)
		})
	}
}

// TestRefusals: a destination that holds rows no copy wrote is refused,
// naming the table; so is resuming from another source, or from a source
// written to since the copy began; none of them writes anything.
func TestRefusals(t *testing.T) {
	src, srcPath := openSQLite(t, "src.db")
	fill(t, src, 0)
	used, _ := openSQLite(t, "used.db")
	if err := used.PutDocument(bg, cupid.Fence{}, "pairing_event", "x", []byte(`{}`), t0); err != nil {
		t.Fatal(err)
	}
	err := storecopy.Copy(bg, src, used, storecopy.Options{Source: srcPath})
	if err == nil || !strings.Contains(err.Error(), "documents already holds 1 rows") {
		t.Fatalf("copy into a used store: %v, want a refusal naming documents", err)
	}
	if cps, _ := used.CopyCheckpoints(bg); len(cps) != 0 {
		t.Fatalf("the refused copy wrote checkpoints %+v", cps)
	}
	if d := dump(t, used); len(d["tickets"]) != 0 || len(d["documents"]) != 1 {
		t.Fatalf("the refused copy wrote rows")
	}

	dst, _ := openSQLite(t, "dst.db")
	ctx, cancel := context.WithCancel(bg)
	storecopy.Copy(ctx, src, dst, storecopy.Options{Source: srcPath, Batch: 2, Progress: func(storecopy.Progress) { cancel() }})
	before := dump(t, dst)
	err = storecopy.Copy(bg, src, dst, storecopy.Options{Source: "/elsewhere/cupid.db"})
	if err == nil || !strings.Contains(err.Error(), "holds a copy from "+srcPath) {
		t.Fatalf("resume from another source: %v", err)
	}
	sameDump(t, "after the refused resume", dump(t, dst), before)

	// A server wrote to the source: a ticket ended (its event, its player
	// freed), a speed-dating event document moved on.
	if _, _, err := lifecycle.Finish(bg, src, cupid.Fence{}, "k2", cupid.StateCancelled, "", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	err = storecopy.Copy(bg, src, dst, storecopy.Options{Source: srcPath})
	if err == nil || !strings.Contains(err.Error(), "the source changed since the copy began (tickets, events, live_players changed)") {
		t.Fatalf("resume from a changed source: %v", err)
	}
	sameDump(t, "after the refused resume", dump(t, dst), before)
	if err := src.PutDocument(bg, cupid.Fence{}, "pairing_event", "ev1", []byte(`{"round":4}`), t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	err = storecopy.Copy(bg, src, dst, storecopy.Options{Source: srcPath})
	if err == nil || !strings.Contains(err.Error(), "documents changed") {
		t.Fatalf("resume from a source whose document changed: %v", err)
	}
}

// TestUnstorableStrings: SQLite takes strings PostgreSQL's text cannot
// hold (a NUL byte, invalid UTF-8); a copy of a store holding one stops at
// its batch, naming the row, the table and the column.
func TestUnstorableStrings(t *testing.T) {
	src, srcPath := openSQLite(t, "src.db")
	tk := &cupid.Ticket{ID: "bad\xff", Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour),
		Players: []cupid.Player{{ID: "p"}}}
	if _, _, err := src.CreateTickets(bg, []cupid.NewTicket{{Ticket: tk}}); err != nil {
		t.Skipf("the SQLite store refuses the ticket itself: %v", err)
	}
	dst := openPostgres(t, newSchema(t))
	err := storecopy.Copy(bg, src, dst, storecopy.Options{Source: srcPath})
	if err == nil || !strings.Contains(err.Error(), `the row ["bad\ufffd"] of tickets holds in id a string PostgreSQL cannot store`) {
		t.Fatalf("copy of an unstorable id: %v", err)
	}
}

// TestRunningNodesRefused: a PostgreSQL database a node heartbeats in is
// refused as the source and as the destination, naming the node; once the
// node leaves, the copy goes.
func TestRunningNodesRefused(t *testing.T) {
	src, srcPath := openSQLite(t, "src.db")
	fill(t, src, 0)
	pg := openPostgres(t, newSchema(t))
	if err := pg.Heartbeat(bg, "node-a", "10.0.0.1:7070"); err != nil {
		t.Fatal(err)
	}
	err := storecopy.Copy(bg, src, pg, storecopy.Options{Source: srcPath})
	if err == nil || !strings.Contains(err.Error(), "the destination is in use: nodes are running on it (seen: node-a ") {
		t.Fatalf("copy into a database a node runs on: %v", err)
	}
	back, _ := openSQLite(t, "back.db")
	err = storecopy.Copy(bg, pg, back, storecopy.Options{Source: "postgres"})
	if err == nil || !strings.Contains(err.Error(), "the source is in use: nodes are running on it (seen: node-a") {
		t.Fatalf("copy out of a database a node runs on: %v", err)
	}
	if cps, _ := pg.CopyCheckpoints(bg); len(cps) != 0 {
		t.Fatalf("the refused copy wrote checkpoints %+v", cps)
	}
	if err := pg.LeaveCluster(bg, "node-a"); err != nil {
		t.Fatal(err)
	}
	copyAll(t, src, pg, srcPath, 100)
}
