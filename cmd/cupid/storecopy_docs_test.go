package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/sqlite"
)

// storeCopyCommands returns the `cupid store copy` command lines of
// docs/deployment.md, as argument lists with the shell's quotes removed.
func storeCopyCommands(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range shellCommands(t, "../../docs/deployment.md") {
		args, ok := cupidArgs(line)
		if !ok || len(args) < 2 || args[0] != "store" || args[1] != "copy" {
			continue
		}
		for i, a := range args {
			args[i] = strings.Trim(a, `'"`)
		}
		out = append(out, args)
	}
	return out
}

// ticketEvents watches a ticket from its first event until it has n
// events, and returns them.
func ticketEvents(t *testing.T, c cupidv1connect.TicketServiceClient, id string, n int) []*cupidv1.TicketEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stream, err := c.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var evs []*cupidv1.TicketEvent
	for len(evs) < n && stream.Receive() {
		evs = append(evs, stream.Msg())
	}
	if len(evs) < n {
		t.Fatalf("watch of %s gave %d events, want %d: %v", id, len(evs), n, stream.Err())
	}
	return evs
}

// TestStoreCopyDocs runs the copies of docs/deployment.md ("From one node
// to several") on a live store: a server on SQLite matches two players and
// keeps three waiting; it stops; the documented command copies its data
// directory into PostgreSQL; a server started on the copy finds every
// waiting ticket with its age, the match, and the events with their
// numbers, and numbers a new ticket's event after them; the documented
// command back copies that into a new data directory, where a server finds
// it all again.
func TestStoreCopyDocs(t *testing.T) {
	cmds := storeCopyCommands(t)
	if len(cmds) != 2 {
		t.Fatalf("docs/deployment.md has %d `cupid store copy` commands, want the copy there and the copy back: %q", len(cmds), cmds)
	}
	pg := postgresURL(t)
	data := t.TempDir()
	again := filepath.Join(t.TempDir(), "again")
	place := strings.NewReplacer("/var/lib/cupid-again", again, "/var/lib/cupid", data, "postgres://cupid@db.internal:5432/cupid", pg)
	for _, args := range cmds {
		for i := range args {
			args[i] = place.Replace(args[i])
		}
	}

	s := startServer(t, serveFlags{data: data})
	c := s.connectClient()
	alice := create(t, c, "duel", player("copy-alice", 1500))
	create(t, c, "duel", player("copy-bob", 1510))
	matched := waitFinal(t, c, alice.GetId(), 0)
	if matched.GetKind() != "matched" {
		t.Fatalf("alice ended %v", matched)
	}
	var waiting []*cupidv1.Ticket
	for _, p := range []string{"copy-carol", "copy-dave", "copy-erin"} {
		waiting = append(waiting, create(t, c, "squad5v5", player(p, 1500)))
	}
	aliceEvents := ticketEvents(t, c, alice.GetId(), 2)
	s.stop()

	out, err := run(cmds[0]...)
	if err != nil {
		t.Fatalf("%q: %v\n%s", cmds[0], err, out)
	}
	for _, want := range []string{"tickets         5/5 rows (100%)", "events          7/7 rows (100%)", "matches         1/1 rows (100%)", "done: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the copy's output lacks %q:\n%s", want, out)
		}
	}
	// Run again, it has nothing left to do.
	if out, err := run(cmds[0]...); err != nil || !strings.Contains(out, "tickets         5/5 rows (100%), copied by an earlier run") {
		t.Errorf("the copy run again: %v\n%s", err, out)
	}

	onPG := startServer(t, serveFlags{store: pg})
	c = onPG.connectClient()
	sameAfterCopy(t, c, waiting, alice, matched, aliceEvents)
	frank := create(t, c, "squad5v5", player("copy-frank", 1500))
	if first := ticketEvents(t, c, frank.GetId(), 1)[0]; first.GetSeq() <= matched.GetSeq() {
		t.Errorf("a new ticket's first event is number %d, not after the copied %d", first.GetSeq(), matched.GetSeq())
	}
	waiting = append(waiting, frank)
	onPG.stop()

	if out, err := run(cmds[1]...); err != nil || !strings.Contains(out, "tickets         6/6 rows (100%)") {
		t.Fatalf("%q: %v\n%s", cmds[1], err, out)
	}
	back := startServer(t, serveFlags{data: again})
	sameAfterCopy(t, back.connectClient(), waiting, alice, matched, aliceEvents)
}

// sameAfterCopy checks a server on a copy: the waiting tickets wait with
// their creation times, alice is in her match, and her events have their
// numbers.
func sameAfterCopy(t *testing.T, c cupidv1connect.TicketServiceClient, waiting []*cupidv1.Ticket, alice *cupidv1.Ticket, matched *cupidv1.TicketEvent, events []*cupidv1.TicketEvent) {
	t.Helper()
	for _, w := range waiting {
		got := getTicket(t, c, w.GetId())
		if got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || !got.GetCreatedAt().AsTime().Equal(w.GetCreatedAt().AsTime()) {
			t.Errorf("ticket %s on the copy: %v created %v, want waiting since %v", w.GetId(), got.GetState(), got.GetCreatedAt().AsTime(), w.GetCreatedAt().AsTime())
		}
	}
	if got := getTicket(t, c, alice.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED || got.GetMatch().GetId() != matched.GetMatch().GetId() {
		t.Errorf("alice on the copy: %v in %q, want matched in %s", got.GetState(), got.GetMatch().GetId(), matched.GetMatch().GetId())
	}
	got := ticketEvents(t, c, alice.GetId(), len(events))
	for i, e := range events {
		if got[i].GetSeq() != e.GetSeq() || got[i].GetKind() != e.GetKind() || !got[i].GetAt().AsTime().Equal(e.GetAt().AsTime()) {
			t.Errorf("alice's event %d on the copy: %d %s at %v, want %d %s at %v", i, got[i].GetSeq(), got[i].GetKind(), got[i].GetAt().AsTime(),
				e.GetSeq(), e.GetKind(), e.GetAt().AsTime())
		}
	}
}

// TestStoreCopyRefusals: the command names what is wrong and copies
// nothing: a missing source, a destination that holds data of its own, the
// same store twice, a batch that is not positive.
func TestStoreCopyRefusals(t *testing.T) {
	src := t.TempDir()
	s := startServer(t, serveFlags{data: src})
	create(t, s.connectClient(), "squad5v5", player("refused-carol", 1500))
	s.stop()
	used := t.TempDir()
	u := startServer(t, serveFlags{data: used})
	create(t, u.connectClient(), "squad5v5", player("used-dave", 1500))
	u.stop()

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", filepath.Join(t.TempDir(), "nothing"), "--to", t.TempDir()}, "--from: no SQLite database at"},
		{[]string{"--from", src, "--to", used}, "the destination's table tickets already holds 1 rows that no copy wrote"},
		{[]string{"--from", src, "--to", filepath.Join(src, "cupid.db")}, "--from and --to are the same store"},
		{[]string{"--from", src, "--to", t.TempDir(), "--batch", "0"}, "--batch: must be positive"},
		{[]string{"--from", src}, "--from and --to are both required"},
		{[]string{"--from", src, "--to", "postgres://%zz"}, "--to:"},
	} {
		out, err := run(append([]string{"store", "copy"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("store copy %q: %v (output %q), want an error saying %q", c.args, err, out, c.want)
		}
	}
	db, err := sqlite.Open(filepath.Join(used, "cupid.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if ws, err := db.WaitingTickets(context.Background()); err != nil || len(ws) != 1 || ws[0].Players[0].ID != "used-dave" {
		t.Errorf("the refused copies changed the destination: %v, %v", ws, err)
	}
}
