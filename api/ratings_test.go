package api

import (
	"context"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// TestRatingPermissions: results and low-priority marks are a server
// key's; a player reads only his own ratings and history.
func TestRatingPermissions(t *testing.T) {
	a := testAuth(t)
	lookup := func(context.Context, string) ([]string, error) { return nil, nil }
	key := &Caller{Key: &ServerKey{Name: "backend", Scopes: []Scope{ScopeTickets}}}
	events := &Caller{Key: &ServerKey{Name: "events", Scopes: []Scope{ScopeEvents}}}
	bob := &Caller{Player: "bob"}
	for _, c := range []struct {
		caller *Caller
		proc   string
		msg    any
		want   string // empty: allowed
	}{
		{key, cupidv1connect.RatingServiceReportResultProcedure, &cupidv1.ReportResultRequest{MatchId: "m"}, ""},
		{key, cupidv1connect.RatingServiceSetLowPriorityProcedure, &cupidv1.SetLowPriorityRequest{PlayerId: "bob"}, ""},
		{key, cupidv1connect.RatingServiceGetPlayerRatingsProcedure, &cupidv1.GetPlayerRatingsRequest{PlayerId: "alice"}, ""},
		{events, cupidv1connect.RatingServiceReportResultProcedure, &cupidv1.ReportResultRequest{MatchId: "m"}, "needs the tickets scope"},
		{bob, cupidv1connect.RatingServiceReportResultProcedure, &cupidv1.ReportResultRequest{MatchId: "m"}, "needs a server key"},
		{bob, cupidv1connect.RatingServiceSetLowPriorityProcedure, &cupidv1.SetLowPriorityRequest{PlayerId: "bob"}, "needs a server key"},
		{bob, cupidv1connect.RatingServiceClearLowPriorityProcedure, &cupidv1.ClearLowPriorityRequest{PlayerId: "bob"}, "needs a server key"},
		{bob, cupidv1connect.RatingServiceGetPlayerRatingsProcedure, &cupidv1.GetPlayerRatingsRequest{PlayerId: "bob"}, ""},
		{bob, cupidv1connect.RatingServiceListRatingHistoryProcedure, &cupidv1.ListRatingHistoryRequest{PlayerId: "bob", Rating: "r"}, ""},
		{bob, cupidv1connect.RatingServiceGetPlayerRatingsProcedure, &cupidv1.GetPlayerRatingsRequest{PlayerId: "alice"}, "may read only his own ratings, not alice"},
		{bob, cupidv1connect.RatingServiceListRatingHistoryProcedure, &cupidv1.ListRatingHistoryRequest{PlayerId: "alice"}, "may read only his own ratings"},
	} {
		err := a.authorize(context.Background(), c.caller, lookup, c.proc, c.msg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s by %s: %v, want allowed", c.proc, c.caller, err)
		case c.want != "" && (cupid.ErrorCode(err) != cupid.CodeDenied || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s by %s: %v, want permission_denied with %q", c.proc, c.caller, err, c.want)
		}
	}
}
