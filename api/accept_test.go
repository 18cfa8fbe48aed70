package api

import (
	"context"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// TestAcceptMatchPermissions: a player answers a ready check only for
// himself; a key with the tickets scope for anyone.
func TestAcceptMatchPermissions(t *testing.T) {
	a := testAuth(t)
	lookup := func(context.Context, string) ([]string, error) { return nil, nil }
	key := &Caller{Key: &ServerKey{Name: "backend", Scopes: []Scope{ScopeTickets}}}
	events := &Caller{Key: &ServerKey{Name: "events", Scopes: []Scope{ScopeEvents}}}
	bob := &Caller{Player: "bob"}
	proc := cupidv1connect.MatchServiceAcceptMatchProcedure
	for _, c := range []struct {
		caller *Caller
		msg    *cupidv1.AcceptMatchRequest
		want   string // empty: allowed
	}{
		{key, &cupidv1.AcceptMatchRequest{Id: "m", PlayerId: "alice", Accept: true}, ""},
		{events, &cupidv1.AcceptMatchRequest{Id: "m", PlayerId: "alice"}, "needs the tickets scope"},
		{bob, &cupidv1.AcceptMatchRequest{Id: "m", PlayerId: "bob", Accept: true}, ""},
		{bob, &cupidv1.AcceptMatchRequest{Id: "m", Accept: true}, ""}, // answers for bob
		{bob, &cupidv1.AcceptMatchRequest{Id: "m", PlayerId: "alice", Accept: false}, "may answer only for himself, not for alice"},
	} {
		err := a.authorize(context.Background(), c.caller, lookup, proc, c.msg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v by %s: %v, want allowed", c.msg, c.caller, err)
		case c.want != "" && (cupid.ErrorCode(err) != cupid.CodeDenied || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v by %s: %v, want permission_denied with %q", c.msg, c.caller, err, c.want)
		}
	}
}
