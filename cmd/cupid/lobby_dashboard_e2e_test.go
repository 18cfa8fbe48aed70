package main

import (
	"testing"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestLobbiesPageInTheBrowser: the dashboard's lobbies page shows a lobby
// with its teams and who is ready, and follows it live as it starts.
func TestLobbiesPageInTheBrowser(t *testing.T) {
	bctx := newDashboardBrowser(t)
	s := startServer(t, serveFlags{})
	c := s.lobbyClient()
	l := lobbyCall(t, c.CreateLobby, &cupidv1.CreateLobbyRequest{Player: "ann", Settings: &cupidv1.LobbySettings{Name: "ann's scrim", Queue: "duel", Teams: 2, TeamSize: 1}}).GetLobby()
	lobbyCall(t, c.JoinLobby, &cupidv1.JoinLobbyRequest{LobbyId: l.GetId(), Player: "bob"})
	b := openTab(t, bctx, s.url+"/dashboard/#/lobbies")
	b.until(t, "the lobby with its teams", `[...document.querySelectorAll('#lobbies section')].some(e => e.textContent.includes("ann's scrim") && e.textContent.includes('bob'))`)
	lobbyCall(t, c.SetReady, &cupidv1.SetReadyRequest{LobbyId: l.GetId(), Player: "ann", Ready: true})
	lobbyCall(t, c.SetReady, &cupidv1.SetReadyRequest{LobbyId: l.GetId(), Player: "bob", Ready: true})
	lobbyCall(t, c.Start, &cupidv1.LobbyPlayerRequest{LobbyId: l.GetId(), Player: "ann"})
	b.until(t, "the lobby started, with its match", `document.querySelector('#lobbies').textContent.includes('started') && document.querySelector('#lobbies').textContent.includes('match ')`)
	b.shot(t, "lobbies")
}
