package client_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestSessionCallsRefuseBadInput: the session calls' refusals reach the
// client with their code and the field, and change nothing.
func TestSessionCallsRefuseBadInput(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("squad", "ann", 1500), solo("squad", "ben", 1500)})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	if err := c.Watch(ctx, res[0].Ticket.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		id = ev.GetMatch().GetId()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		code connect.Code
		says string
	}{
		{"an option the ruleset lacks", func() error {
			_, err := c.OpenBackfillWithOptions(ctx, id, map[string][]string{"mode": {"casual"}})
			return err
		}, connect.CodeInvalidArgument, "match_options.mode"},
		{"an option that is no string", func() error {
			_, err := c.Matches.OpenBackfill(ctx, connect.NewRequest(&cupidv1.OpenBackfillRequest{Id: id,
				MatchOptions: map[string]*structpb.ListValue{"mode": {Values: []*structpb.Value{structpb.NewNumberValue(1)}}}}))
			return err
		}, connect.CodeInvalidArgument, "match_options.mode[0]"},
		{"a leaver not in the game", func() error {
			_, err := c.ReportLeavers(ctx, id, "ann", "zed")
			return err
		}, connect.CodeFailedPrecondition, "zed"},
		{"closing backfill not open", func() error {
			if _, err := c.CloseBackfill(ctx, id); err != nil {
				return err
			}
			_, err := c.CloseBackfill(ctx, id)
			return err
		}, connect.CodeFailedPrecondition, "not open"},
		{"teams of another count than the match's", func() error {
			_, err := c.OpenBackfillWithTeams(ctx, id, [][]*cupidv1.Player{{{Id: "ann"}}})
			return err
		}, connect.CodeInvalidArgument, "teams"},
		{"a team over its seats", func() error {
			_, err := c.OpenBackfillWithTeams(ctx, id, [][]*cupidv1.Player{{{Id: "ann"}, {Id: "x"}, {Id: "y"}}, {}})
			return err
		}, connect.CodeInvalidArgument, "teams[0].players"},
		{"a player twice", func() error {
			_, err := c.OpenBackfillWithTeams(ctx, id, [][]*cupidv1.Player{{{Id: "ann"}}, {{Id: "ann"}}})
			return err
		}, connect.CodeInvalidArgument, "teams[1].players[0].id"},
		{"an attribute that is no value", func() error {
			_, err := c.OpenBackfillWithTeams(ctx, id, [][]*cupidv1.Player{{{Id: "ann", Attributes: map[string]*structpb.Value{"mmr": structpb.NewNullValue()}}}, {}})
			return err
		}, connect.CodeInvalidArgument, "teams[0].players[0].attributes.mmr"},
		{"an unknown session", func() error {
			_, err := c.EndSession(ctx, "nope")
			return err
		}, connect.CodeNotFound, "nope"},
	} {
		err := tc.call()
		if connect.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v mentioning %q", tc.name, err, tc.code, tc.says)
		}
	}
	r, err := c.GetMatch(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if m := r.GetMatch(); len(m.GetLeft()) != 0 || len(m.GetTeams()[0].GetPlayerIds())+len(m.GetTeams()[1].GetPlayerIds()) != 2 || m.GetBackfillOptions() != nil {
		t.Fatalf("refused calls changed the session: %v", m)
	}
}
