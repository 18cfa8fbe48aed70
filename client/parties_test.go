package client_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// A party of two through the client: formed by a join code, queued by
// its leader as one ticket, watched to its cancellation when a member
// leaves; a call as someone not in the party is refused.
func TestPartyCalls(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	ann, made, err := c.CreateParty(ctx, "ann", map[string]any{"mmr": 1500}, map[string]int32{"eu": 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ann.Invite(ctx, "dan"); err != nil {
		t.Fatal(err)
	}
	invites, err := c.ListInvites(ctx, "dan")
	if err != nil || len(invites) != 1 || invites[0].GetPartyId() != ann.ID() || invites[0].GetLeader() != "ann" {
		t.Fatalf("dan's invites: %v %v", invites, err)
	}
	if _, err := c.Party(invites[0].GetPartyId(), "dan").Answer(ctx, false, nil, nil); err != nil {
		t.Fatal(err)
	}
	bob, _, err := c.JoinByCode(ctx, made.GetCode(), "bob", map[string]any{"mmr": 1510}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bob.ID() != ann.ID() {
		t.Fatalf("bob joined %s, not ann's %s", bob.ID(), ann.ID())
	}
	if _, err := c.Party(ann.ID(), "cid").Get(ctx); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("cid reads a party he is not in: %v", err)
	}
	p, err := ann.Queue(ctx, "squad")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := c.GetTicket(ctx, p.GetTicketId())
	if err != nil || len(tk.GetPlayers()) != 2 {
		t.Fatalf("the party's ticket: %v %v", tk, err)
	}
	if _, err := bob.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	var reason string
	err = ann.Watch(ctx, p.GetSeq(), func(ev *cupidv1.PartyEvent) error {
		if ev.GetKind() == "cancelled" {
			reason = ev.GetReason()
			return errDone
		}
		return nil
	})
	if err != errDone || reason != "bob left the party" {
		t.Fatalf("watch: %v, reason %q", err, reason)
	}
	mine, _, err := c.MyParty(ctx, "ann")
	if err != nil || mine.ID() != ann.ID() {
		t.Fatalf("ann's party: %v", err)
	}
}

type doneError struct{}

func (doneError) Error() string { return "done" }

var errDone error = doneError{}
