package dashboard

import "github.com/cupid-match/cupid/service/lobbysvc"

// maxLobbiesShown bounds the lobbies a snapshot lists (the live ones
// first); the total says how many there are.
const maxLobbiesShown = 200

// lobbyOut is a lobby as the lobbies page shows it.
type lobbyOut struct {
	ID         string            `json:"id"`
	Name       string            `json:"name,omitempty"`
	Host       string            `json:"host"`
	Queue      string            `json:"queue"`
	State      string            `json:"state"`
	Visibility string            `json:"visibility"`
	Locked     bool              `json:"locked"`
	Teams      [][]memberOut     `json:"teams"`
	Seats      int               `json:"seats"`
	Free       int               `json:"free"`
	Attributes map[string]string `json:"attributes,omitempty"`
	MatchID    string            `json:"match_id,omitempty"`
	Reason     string            `json:"reason,omitempty"`
}

type memberOut struct {
	ID    string `json:"id"`
	Ready bool   `json:"ready"`
}

// lobbies is the lobbies page's snapshot: every lobby this node holds,
// live ones first, with its teams and who is ready. The code is left out:
// the page is for operators, who need no way in.
func (s *server) lobbies() map[string]any {
	all := s.o.Lobbies.Running()
	counts := map[string]int{}
	for _, v := range all {
		counts[string(v.State)]++
	}
	out := make([]lobbyOut, 0, min(len(all), maxLobbiesShown))
	for _, v := range all[:min(len(all), maxLobbiesShown)] {
		out = append(out, lobbyOf(v))
	}
	return map[string]any{"lobbies": out, "total": len(all), "states": counts}
}

func lobbyOf(v *lobbysvc.View) lobbyOut {
	o := lobbyOut{ID: v.ID, Name: v.Name, Host: v.Host, Queue: v.Queue, State: string(v.State), Visibility: string(v.Visibility),
		Locked: v.Locked, Seats: v.Seats(), Free: v.Free, Attributes: v.Attributes, MatchID: v.MatchID, Reason: v.Reason}
	for _, team := range v.TeamPlayers() {
		ms := make([]memberOut, 0, len(team))
		for _, m := range team {
			ms = append(ms, memberOut{ID: m.ID, Ready: m.Ready})
		}
		o.Teams = append(o.Teams, ms)
	}
	return o
}
