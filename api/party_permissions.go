package api

import (
	"context"
	"net/http"

	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// Who may call PartyService: a server key with the tickets scope (a
// backend acts for any player, naming him in `player`), and a player token
// as its own player only. What a member may do in his party (the leader's
// calls, reading a party he is in or invited to) is the party package's
// and the service's to decide, since it needs the party.
func init() {
	for _, p := range []string{
		cupidv1connect.PartyServiceCreatePartyProcedure,
		cupidv1connect.PartyServiceGetPartyProcedure,
		cupidv1connect.PartyServiceInviteProcedure,
		cupidv1connect.PartyServiceListInvitesProcedure,
		cupidv1connect.PartyServiceAnswerInviteProcedure,
		cupidv1connect.PartyServiceJoinByCodeProcedure,
		cupidv1connect.PartyServiceLeaveProcedure,
		cupidv1connect.PartyServiceRemoveProcedure,
		cupidv1connect.PartyServiceHandOverProcedure,
		cupidv1connect.PartyServiceSetReadyProcedure,
		cupidv1connect.PartyServiceSetMemberProcedure,
		cupidv1connect.PartyServiceQueueProcedure,
		cupidv1connect.PartyServiceCancelQueueProcedure,
		cupidv1connect.PartyServiceWatchPartyProcedure,
	} {
		rules[p] = rule{scope: ScopeTickets, player: asPartyPlayer}
	}
}

// asPartyPlayer lets a player token act in parties only as himself.
func asPartyPlayer(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
	return asSelf(p, m.(interface{ GetPlayer() string }).GetPlayer())
}

func asSelf(player, named string) error {
	if named != player {
		return denied("the token's player %s may act in parties only as himself, not as player %s", player, quoteEmpty(named))
	}
	return nil
}

// authorizePartySocket decides GET /v1/parties/{id}/ws: keys with the
// tickets scope, and a player as himself (?player=); the service checks he
// is in the party or invited to it.
func authorizePartySocket(r *http.Request, c *Caller) error {
	if c.Key != nil {
		if c.Key.has(ScopeTickets) {
			return nil
		}
		return denied("watching a party needs the tickets scope; server key %s has %s", c.Key.Name, scopeList(c.Key.Scopes))
	}
	return asSelf(c.Player, r.URL.Query().Get("player"))
}
