package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// oldSchema is the schema as Cupid wrote it before schema versions, reasons
// and the player index: what databases in the field hold.
const oldSchema = `
CREATE TABLE tickets (
	id         TEXT PRIMARY KEY,
	queue      TEXT NOT NULL,
	request_id TEXT UNIQUE,
	state      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	match_id   TEXT,
	body       BLOB NOT NULL
);
CREATE INDEX tickets_state ON tickets (state, created_at);
CREATE INDEX tickets_queue ON tickets (queue, state, created_at);
CREATE TABLE matches (
	id         TEXT PRIMARY KEY,
	created_at INTEGER NOT NULL,
	body       BLOB NOT NULL
);
CREATE TABLE events (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	ticket_id TEXT NOT NULL,
	kind      TEXT NOT NULL,
	at        INTEGER NOT NULL,
	match_id  TEXT
);
CREATE INDEX events_ticket ON events (ticket_id, seq);
CREATE TABLE documents (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	body BLOB NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (kind, id)
);
`

// writeOldDatabase makes a database the way the old store did, with raw
// SQL: waiting tickets (two of them for one player in one queue, which the
// old store allowed), a cancelled one, a matched pair with its match, their
// events, and a document.
func writeOldDatabase(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(oldSchema); err != nil {
		t.Fatal(err)
	}
	add := func(id, queue, state, matchID string, age time.Duration, players ...string) {
		tk := &cupid.Ticket{ID: id, Key: cupid.QueueKey{Queue: queue, Version: "1.0"}, State: cupid.TicketState(state),
			CreatedAt: t0.Add(-age), ExpiresAt: t0.Add(time.Hour), RequestID: "r-" + id}
		for _, p := range players {
			tk.Players = append(tk.Players, cupid.Player{ID: p, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})})
		}
		body, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		var mid any
		if matchID != "" {
			mid = matchID
		}
		at := tk.CreatedAt.UnixNano()
		if _, err := db.Exec(`INSERT INTO tickets (id, queue, request_id, state, created_at, updated_at, match_id, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			id, queue, tk.RequestID, state, at, at, mid, body); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO events (ticket_id, kind, at) VALUES (?, 'created', ?)`, id, at); err != nil {
			t.Fatal(err)
		}
	}
	add("w1", "duel", "waiting", "", 50*time.Second, "p1", "p2")
	add("w2", "squad", "waiting", "", 40*time.Second, "p1")
	add("w3", "duel", "waiting", "", 30*time.Second, "p2") // p2 already waits in duel with w1
	add("w4", "duel", "waiting", "", 20*time.Second, "p4", "p4")
	add("c1", "duel", "cancelled", "", 60*time.Second, "p3")
	add("m1", "duel", "matched", "old", 70*time.Second, "p5")
	add("m2", "duel", "matched", "old", 70*time.Second, "p6")
	m := &cupid.Match{ID: "old", Teams: []cupid.Team{{TicketIDs: []string{"m1"}}, {TicketIDs: []string{"m2"}}}, CreatedAt: t0.Add(-time.Minute)}
	body, _ := json.Marshal(m)
	for _, q := range []string{
		`INSERT INTO matches (id, created_at, body) VALUES ('old', 1, ?)`,
		`INSERT INTO events (ticket_id, kind, at, match_id) VALUES ('m1', 'matched', 1, 'old'), ('m2', 'matched', 1, 'old'), ('c1', 'cancelled', 1, NULL)`,
		`INSERT INTO documents (kind, id, body, updated_at) VALUES ('pairing', 'e1', '{}', 1)`,
	} {
		args := []any{}
		if strings.Contains(q, "?") {
			args = append(args, body)
		}
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigrateFromTheOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	writeOldDatabase(t, path)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	var v int
	if err := s.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version %d (%v), want %d", v, err, schemaVersion)
	}
	// The waiting tickets are kept, oldest first; the newer of the two
	// for p2 in duel is cancelled with a reason and an event.
	waiting, err := s.WaitingTickets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(waiting); !slices.Equal(got, []string{"w1", "w2", "w4"}) {
		t.Fatalf("waiting after migration: %v", got)
	}
	w3, _ := s.Ticket(ctx, "w3")
	wantReason := "player p2 already had live ticket w1 in queue duel when the store began to allow one per player and queue"
	if w3.State != cupid.StateCancelled || w3.Reason != wantReason {
		t.Fatalf("w3 is %s (%q)", w3.State, w3.Reason)
	}
	evs, _ := s.Events(ctx, "w3", 0)
	if len(evs) != 2 || evs[1].Kind != cupid.EventCancelled || evs[1].Reason != wantReason {
		t.Fatalf("w3's events %+v", evs)
	}
	// The index holds the waiting tickets' players (w4 names p4 twice:
	// one entry).
	checkIndex(t, s)
	var n int
	s.w.QueryRow(`SELECT count(*) FROM live_players`).Scan(&n)
	if n != 4 {
		t.Fatalf("%d index rows, want 4 (duel/p1, duel/p2, squad/p1, duel/p4)", n)
	}

	// Old rows read as before, with empty reasons.
	for _, id := range []string{"w1", "c1", "m1"} {
		tk, err := s.Ticket(ctx, id)
		if err != nil || tk.Reason != "" || tk.RequestID != "r-"+id {
			t.Fatalf("ticket %s after migration: %+v, %v", id, tk, err)
		}
	}
	evs, err = s.Events(ctx, "m1", 0)
	if err != nil || len(evs) != 2 || evs[1].Match == nil || evs[1].Match.ID != "old" || evs[1].Reason != "" {
		t.Fatalf("m1's events after migration: %+v, %v", evs, err)
	}
	if docs, err := s.Documents(ctx, "pairing", "", 0); err != nil || len(docs) != 1 {
		t.Fatalf("documents after migration: %v, %v", docs, err)
	}
	if out, _, _ := s.CreateTickets(ctx, nts(ticket("again", "r-w1", 0))); !out[0].Existed || out[0].Ticket.ID != "w1" {
		t.Fatalf("an old request id is not recognised: %+v", out[0])
	}

	// The index works on the migrated tickets: p1 cannot queue again in
	// duel (whatever the version), p3's ticket ended so p3 can, and a
	// match of w1 cancels p1's ticket in squad.
	dup := ticket("n1", "", 0)
	dup.Players[0].ID = "p1"
	free := ticket("n2", "", 0)
	free.Players[0].ID = "p3"
	out, _, err := s.CreateTickets(ctx, nts(dup, free))
	if err != nil {
		t.Fatal(err)
	}
	if cupid.ErrorCode(out[0].Err) != cupid.CodeAlreadyExists || !strings.Contains(out[0].Err.Error(), "w1") || out[1].Err != nil {
		t.Fatalf("creates after migration: %v, %v", out[0].Err, out[1].Err)
	}
	res, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{{ID: "new", Teams: []cupid.Team{{TicketIDs: []string{"w1"}}, {TicketIDs: []string{"n2"}}}, CreatedAt: t0}})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].OK || len(res[0].Cancelled) != 1 || res[0].Cancelled[0].ID != "w2" {
		t.Fatalf("commit after migration: %+v", res[0])
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping after migration: %v", err)
	}
	checkIndex(t, s)
	s.Close()

	// Opening again changes nothing.
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	evs, _ = s2.Events(ctx, "w3", 0)
	if len(evs) != 2 {
		t.Fatalf("reopening migrated again: w3 has %d events", len(evs))
	}
	if got := ids(mustWaiting(t, s2)); !slices.Equal(got, []string{"w4"}) {
		t.Fatalf("waiting after reopening: %v", got)
	}
	checkIndex(t, s2)
}

// TestMigrateStepByStep opens databases left at each schema version (as a
// crash between two migrations would) and checks they all reach the last.
func TestMigrateStepByStep(t *testing.T) {
	for from := 0; from < schemaVersion; from++ {
		path := filepath.Join(t.TempDir(), "db")
		writeOldDatabase(t, path)
		db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		for v := 0; v < from; v++ {
			if _, err := migrateOne(context.Background(), db); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		s, err := Open(path)
		if err != nil {
			t.Fatalf("from version %d: %v", from, err)
		}
		if got := ids(mustWaiting(t, s)); !slices.Equal(got, []string{"w1", "w2", "w4"}) {
			t.Fatalf("from version %d: waiting %v", from, got)
		}
		checkIndex(t, s)
		s.Close()
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`PRAGMA user_version = 999`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("opening a database from a newer Cupid: %v", err)
	}
}

func ids(ts []*cupid.Ticket) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func mustWaiting(t *testing.T, s *Store) []*cupid.Ticket {
	t.Helper()
	w, err := s.WaitingTickets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return w
}
