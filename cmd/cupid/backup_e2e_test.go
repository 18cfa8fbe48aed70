package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestBackupOfARunningServer: `cupid store backup` copies the store of a
// server that keeps running; a server started on the copy (restored as the
// docs say: the file as cupid.db of a data directory) has every waiting
// ticket with its creation time.
func TestBackupOfARunningServer(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	var waiting []*cupidv1.Ticket
	for i, mmr := range []float64{0, 1500, 3000} { // too far apart to match in duel at once
		waiting = append(waiting, create(t, c, "duel", player(strings.Repeat("p", i+1), mmr)))
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	out, err := run("store", "backup", "--data", s.data, "--to", backup)
	if err != nil || !strings.Contains(out, "a consistent copy") {
		t.Fatalf("backup: %q %v", out, err)
	}
	// The server keeps running: a ticket created after the backup is its
	// own, not the copy's.
	late := create(t, c, "duel", player("late", 700))

	restored := t.TempDir()
	if err := os.Rename(backup, filepath.Join(restored, "cupid.db")); err != nil {
		t.Fatal(err)
	}
	r := startServer(t, serveFlags{data: restored})
	rc := r.connectClient()
	for _, w := range waiting {
		got, err := rc.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: w.GetId()}))
		if err != nil {
			t.Fatalf("ticket %s after the restore: %v", w.GetId(), err)
		}
		tk := got.Msg.GetTicket()
		if tk.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || !tk.GetCreatedAt().AsTime().Equal(w.GetCreatedAt().AsTime()) {
			t.Errorf("ticket %s after the restore: %v, created %v (was %v)", w.GetId(), tk.GetState(), tk.GetCreatedAt().AsTime(), w.GetCreatedAt().AsTime())
		}
	}
	if _, err := rc.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: late.GetId()})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("a ticket created after the backup is in the copy: %v", err)
	}

	// Refusals that write nothing.
	exists := filepath.Join(t.TempDir(), "taken.db")
	os.WriteFile(exists, []byte("mine"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", s.data}, "--to"},
		{[]string{"--data", s.data, "--to", exists}, "exists"},
		{[]string{"--data", t.TempDir(), "--to", filepath.Join(t.TempDir(), "x.db")}, "cupid.db"},
	} {
		if _, err := run(append([]string{"store", "backup"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("backup %v: %v, want an error naming %s", c.args, err, c.want)
		}
	}
	if b, _ := os.ReadFile(exists); string(b) != "mine" {
		t.Error("a refused backup changed the file it was given")
	}
}
