package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// TestOfferAcceptedKeepsItsAgeAndMatches: a ticket that waits because its
// nearest server is beyond the latency range is offered that region, a
// refused accept changes nothing, and the accepted offer keeps the ticket's
// id, creation and age — durably, as the store reads it — and gets it
// matched at once, in the offered region.
func TestOfferAcceptedKeepsItsAgeAndMatches(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cupid.yaml")
	if err := os.WriteFile(cfg, []byte(`queues:
  - name: duel
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule: [{attribute: mmr, criteria: distance, reference: 200}]
      region_latency_initial_range_ms: 60
      region_expansion_range_ms: 20
      region_expansion_rate_ms: 600000
      region_latency_max_ms: 200
  - name: arena
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule: [{attribute: mmr, criteria: distance, reference: 200}]
      match_options: {options: [{name: mode, type: any}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := testclock.At(time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC))
	started := make(chan *ticketsvc.Service, 1)
	s := startServer(t, serveFlags{config: cfg, hooks: &serveHooks{
		now: clock.Now, started: func(mm *ticketsvc.Service) { started <- mm },
	}})
	mm := <-started
	c := s.connectClient()
	ctx := context.Background()
	mk := func(id string, mmr float64, lats map[string]int32) *cupidv1.Ticket {
		res, err := c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
			Queue: "duel", Players: []*cupidv1.Player{player(id, mmr)}, Latencies: lats}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetTicket()
	}
	ann := mk("ann", 1500, map[string]int32{"eu-west": 30})
	bob := mk("bob", 1520, map[string]int32{"us-east": 50, "eu-west": 100})
	clock.Advance(7 * time.Second)
	mm.Wake()

	got, err := c.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: bob.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	offers := got.Msg.GetTicket().GetWhy().GetOffers()
	if got.Msg.GetTicket().GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || len(offers) != 1 {
		t.Fatalf("bob's ticket %v", got.Msg.GetTicket())
	}
	o := offers[0]
	if o.GetId() != "latency:eu-west" || o.GetExtraMs() != 40 || o.GetCandidates() != 1 || !o.GetFormsMatch() ||
		o.GetEstimate().AsDuration() != 0 || !o.GetReached().AsTime().Equal(clock.Now().Add(-7*time.Second).Add(20*time.Minute)) {
		t.Errorf("offer %v", o)
	}

	// An offer the ticket does not have is refused, naming the field, and
	// changes nothing.
	_, err = c.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: bob.GetId(), OfferId: "latency:ap-east"}))
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("an unknown offer: %v", err)
	}
	if _, err = c.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: bob.GetId()})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("no offer id: %v", err)
	}

	res, err := c.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: bob.GetId(), OfferId: o.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	after := res.Msg.GetTicket()
	if after.GetId() != bob.GetId() || !after.GetCreatedAt().AsTime().Equal(bob.GetCreatedAt().AsTime()) ||
		!after.GetExpiresAt().AsTime().Equal(bob.GetExpiresAt().AsTime()) || after.GetWaited().AsDuration() != 7*time.Second {
		t.Errorf("the ticket after the offer %v; before %v", after, bob)
	}
	if after.GetLatencies()["eu-west"] != 60 || after.GetLatencies()["us-east"] != 50 {
		t.Errorf("latencies after the offer %v", after.GetLatencies())
	}
	ev := waitFinal(t, c, bob.GetId(), 0)
	if ev.GetKind() != "matched" || ev.GetMatch().GetRegion() != "eu-west" {
		t.Fatalf("bob's final event %v", ev)
	}
	ids := map[string]bool{}
	for _, team := range ev.GetMatch().GetTeams() {
		for _, id := range team.GetTicketIds() {
			ids[id] = true
		}
	}
	if !ids[ann.GetId()] || !ids[bob.GetId()] {
		t.Errorf("the match %v, want ann's and bob's tickets", ev.GetMatch())
	}
	// The change is the store's: read back, the ticket has its age and
	// its new latency.
	stored, err := c.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: bob.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	st := stored.Msg.GetTicket()
	if !st.GetCreatedAt().AsTime().Equal(bob.GetCreatedAt().AsTime()) || st.GetLatencies()["eu-west"] != 60 || st.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED {
		t.Errorf("stored %v", st)
	}
	// A matched ticket accepts nothing more.
	if _, err = c.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: bob.GetId(), OfferId: o.GetId()})); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Errorf("an offer to a matched ticket: %v", err)
	}

	// A choice: Carol plays dm only, Dan ctf or koth; she accepts ctf and
	// is matched with him, her ticket the same.
	modes := func(id string, m ...string) *cupidv1.Ticket {
		lv, _ := structpb.NewList(nil)
		for _, v := range m {
			lv.Values = append(lv.Values, structpb.NewStringValue(v))
		}
		res, err := c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: "arena",
			Players: []*cupidv1.Player{player(id, 1500)}, Attributes: map[string]*structpb.Value{"mode": structpb.NewListValue(lv)}}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetTicket()
	}
	dan := modes("dan", "ctf", "koth")
	carol := modes("carol", "dm")
	mm.Wake()
	acc, err := c.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: carol.GetId(), OfferId: "option:mode=ctf"}))
	if err != nil {
		t.Fatal(err)
	}
	if acc.Msg.GetTicket().GetId() != carol.GetId() || !acc.Msg.GetTicket().GetCreatedAt().AsTime().Equal(carol.GetCreatedAt().AsTime()) {
		t.Errorf("carol's ticket after the offer %v", acc.Msg.GetTicket())
	}
	if ev := waitFinal(t, c, carol.GetId(), 0); ev.GetKind() != "matched" || !strings.Contains(fmt.Sprint(ev.GetMatch().GetTeams()), dan.GetId()) {
		t.Fatalf("carol's final event %v", ev)
	}
}
