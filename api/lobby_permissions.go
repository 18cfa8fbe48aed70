package api

import (
	"context"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// The lobbies' permissions: server keys with the tickets scope (a lobby
// becomes tickets and a match) act as any player; a player token acts only
// as its own player, named in the request's player field. Host-only
// actions are the lobby package's to refuse (it knows the host). Reads
// are for every authenticated caller (the list shows public lobbies; a
// private lobby's code is left out for strangers, lobbyOut).
func init() {
	self := func(get func(any) string) func(*Auth, context.Context, ticketPlayers, string, any) error {
		return func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
			if who := get(m); who != p {
				return denied("the token's player %s may act in a lobby only as himself, not as player %s", p, quoteEmpty(who))
			}
			return nil
		}
	}
	player := self(func(m any) string { return m.(interface{ GetPlayer() string }).GetPlayer() })
	for _, proc := range []string{
		cupidv1connect.LobbyServiceCreateLobbyProcedure, cupidv1connect.LobbyServiceJoinLobbyProcedure,
		cupidv1connect.LobbyServiceLeaveLobbyProcedure, cupidv1connect.LobbyServiceSetTeamProcedure,
		cupidv1connect.LobbyServiceSetReadyProcedure, cupidv1connect.LobbyServiceKickProcedure,
		cupidv1connect.LobbyServiceLockProcedure, cupidv1connect.LobbyServiceHandOverHostProcedure,
		cupidv1connect.LobbyServiceStartProcedure, cupidv1connect.LobbyServiceCloseLobbyProcedure,
	} {
		rules[proc] = rule{scope: ScopeTickets, player: player}
	}
	rules[cupidv1connect.LobbyServiceGetLobbyProcedure] = rule{anyone: true}
	rules[cupidv1connect.LobbyServiceListLobbiesProcedure] = rule{anyone: true}
	rules[cupidv1connect.LobbyServiceWatchLobbyProcedure] = rule{anyone: true}
}

var _ interface{ GetPlayer() string } = (*cupidv1.LobbyPlayerRequest)(nil)
