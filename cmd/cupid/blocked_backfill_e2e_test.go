package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// blockedBackfillConfig: teams of one or two, so a match of two players
// forms with a seat to spare on each side and stays open to backfill.
const blockedBackfillConfig = `
encounters:
  queues: [{name: duo}]
queues:
  - name: duo
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 2}
      auto_backfill: true
      collection_rule:
        - {attribute: blocked, operation: player_ids, max_count: 0}
`

// TestBlockedPlayerIsNotBackfilledIntoTheGame: a block holds in a running
// game as in a new match. Alice blocked Bob; Alice and Carl's match stays
// open to backfill; Bob, waiting first, is passed over for Dave, and after a
// restart (the session rebuilt from the store) for Eve, who takes the last
// seat; Bob still waits.
func TestBlockedPlayerIsNotBackfilledIntoTheGame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(blockedBackfillConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	f := serveFlags{config: path, data: t.TempDir()}
	s := startServer(t, f)
	c := client.New(s.url)
	ctx := context.Background()
	if _, err := c.Block(ctx, "alice", "bob"); err != nil {
		t.Fatal(err)
	}
	create := func(c *client.Client, p string) string {
		t.Helper()
		tk, err := c.CreateTicket(ctx, &cupidv1.CreateTicketRequest{Queue: "duo", Players: []*cupidv1.Player{{Id: p}}})
		if err != nil {
			t.Fatal(err)
		}
		return tk.GetId()
	}
	errMatched := errors.New("matched")
	matchOf := func(c *client.Client, id string) string {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a guard against a hang only
		defer cancel()
		var match string
		err := c.Watch(wctx, id, 0, func(ev *cupidv1.TicketEvent) error {
			if ev.GetKind() == "matched" {
				match = ev.GetMatch().GetId()
				return errMatched
			}
			return nil
		})
		if !errors.Is(err, errMatched) {
			t.Fatalf("ticket %s: %v", id, err)
		}
		return match
	}
	alice := create(c, "alice")
	carl := create(c, "carl")
	game := matchOf(c, alice)
	if got := matchOf(c, carl); got != game {
		t.Fatalf("carl in %s, alice in %s", got, game)
	}
	bob := create(c, "bob")
	dave := create(c, "dave")
	if got := matchOf(c, dave); got != game {
		t.Fatalf("dave in %q, want alice's game %s", got, game)
	}
	stillWaiting := func(c *client.Client) {
		t.Helper()
		tk, err := c.GetTicket(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		if tk.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
			t.Fatalf("bob's ticket is %s in %q: blocked by alice, he must not join her game", tk.GetState(), tk.GetMatchId())
		}
	}
	stillWaiting(c)
	s.stop()
	s = startServer(t, f)
	c = client.New(s.url)
	eve := create(c, "eve")
	if got := matchOf(c, eve); got != game {
		t.Fatalf("eve in %q, want alice's game %s", got, game)
	}
	stillWaiting(c)
}

// TestBlockedPlayerCannotJoinTheLobby: a block keeps two players out of one
// lobby as out of one match, both ways, and the refusal names neither the
// member nor the block; a player with no block joins.
func TestBlockedPlayerCannotJoinTheLobby(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := client.New(s.url)
	ctx := context.Background()
	if _, err := c.Block(ctx, "ann", "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Block(ctx, "cat", "ann"); err != nil {
		t.Fatal(err)
	}
	l, err := c.CreateLobby(ctx, "ann", &cupidv1.LobbySettings{Name: "ann's", Queue: "duel", Teams: 2, TeamSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bob", "cat"} {
		_, err := c.Lobby(l.GetId(), p).Join(ctx, nil)
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied {
			t.Fatalf("%s joined ann's lobby: %v, want permission_denied", p, err)
		}
		if msg := ce.Message(); strings.Contains(msg, "ann") || strings.Contains(msg, "block") {
			t.Errorf("the refusal tells %s about the block: %q", p, msg)
		}
	}
	got, err := c.Lobby(l.GetId(), "dan").Join(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.GetMembers()); n != 2 {
		t.Fatalf("ann's lobby has %d members, want ann and dan", n)
	}
}

// TestBlockedPlayerCannotJoinTheParty: a party queues as one ticket, so a
// block keeps two players out of one party, by an invite answered or by
// its join code, and the refusal names neither.
func TestBlockedPlayerCannotJoinTheParty(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := client.New(s.url)
	ctx := context.Background()
	if _, err := c.Block(ctx, "bob", "ann"); err != nil {
		t.Fatal(err)
	}
	var pty *client.Party
	var info *cupidv1.Party
	deadline := time.Now().Add(30 * time.Second) // the parties run once the node holds their lease
	for {
		var err error
		pty, info, err = c.CreateParty(ctx, "ann", nil, nil)
		if err == nil {
			break
		}
		if connect.CodeOf(err) != connect.CodeUnavailable || time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	denied := func(what string, err error) {
		t.Helper()
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied {
			t.Fatalf("bob %s ann's party: %v, want permission_denied", what, err)
		}
		if msg := ce.Message(); strings.Contains(msg, "ann") || strings.Contains(msg, "block") {
			t.Errorf("the refusal tells bob about the block: %q", msg)
		}
	}
	_, _, err := c.JoinByCode(ctx, info.GetCode(), "bob", nil, nil)
	denied("joined by code", err)
	if _, err := pty.Invite(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Party(pty.ID(), "bob").Answer(ctx, true, nil, nil)
	denied("accepted an invite to", err)
	if _, _, err := c.JoinByCode(ctx, info.GetCode(), "cy", nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err := pty.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.GetMembers()); n != 2 {
		t.Fatalf("ann's party has %d members, want ann and cy", n)
	}
}
