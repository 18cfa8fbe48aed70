package lobby

import (
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixture builds a 2×2 public lobby hosted by ann, with bob on team 1, in
// the state asked.
func fixture(t *testing.T, st State) *Lobby {
	t.Helper()
	l, _, err := New("L1", "ABCDEF", "ann", nil, Settings{Queue: "duel", Teams: 2, TeamSize: 2}, DefaultLimits, t0)
	if err != nil {
		t.Fatal(err)
	}
	if l, _, err = l.Join("bob", nil, 1, false, t0); err != nil {
		t.Fatal(err)
	}
	switch st {
	case Starting, Started:
		l, _, _ = l.SetReady("ann", true, t0)
		l, _, _ = l.SetReady("bob", true, t0)
		if l, _, err = l.Start("ann", "M1", t0); err != nil {
			t.Fatal(err)
		}
		if st == Started {
			l, _, _ = l.Formed(t0)
		}
	case Closed:
		l, _, _ = l.Close("ann", "", t0)
	}
	if l.State != st {
		t.Fatalf("fixture is %s, want %s", l.State, st)
	}
	return l
}

type action struct {
	name string
	do   func(l *Lobby) (*Lobby, []Event, error)
}

var actions = []action{
	{"join", func(l *Lobby) (*Lobby, []Event, error) { return l.Join("cat", nil, AnyTeam, false, t0) }},
	{"leave", func(l *Lobby) (*Lobby, []Event, error) { return l.Leave("bob", t0) }},
	{"set_team", func(l *Lobby) (*Lobby, []Event, error) { return l.SetTeam("bob", 0, t0) }},
	{"ready", func(l *Lobby) (*Lobby, []Event, error) { return l.SetReady("bob", true, t0) }},
	{"kick", func(l *Lobby) (*Lobby, []Event, error) { return l.Kick("ann", "bob", t0) }},
	{"lock", func(l *Lobby) (*Lobby, []Event, error) { return l.SetLocked("ann", true, t0) }},
	{"hand_over", func(l *Lobby) (*Lobby, []Event, error) { return l.HandOver("ann", "bob", t0) }},
	{"start", func(l *Lobby) (*Lobby, []Event, error) { return l.Start("ann", "M2", t0) }},
	{"formed", func(l *Lobby) (*Lobby, []Event, error) { return l.Formed(t0) }},
	{"start_failed", func(l *Lobby) (*Lobby, []Event, error) { return l.StartFailed("busy", t0) }},
	{"close", func(l *Lobby) (*Lobby, []Event, error) { return l.Close("ann", "", t0) }},
}

// TestStatesByActions runs every action on a lobby in every state: the
// outcome's first event kind, or the error code; a refusal leaves the
// lobby as it was.
func TestStatesByActions(t *testing.T) {
	want := map[State]map[string]string{
		Open: {"join": "joined", "leave": "left", "set_team": "team_changed", "ready": "ready", "kick": "kicked",
			"lock": "locked", "hand_over": "host_changed", "start": "conflict", // bob and ann not ready
			"formed": "conflict", "start_failed": "conflict", "close": "closed"},
		Starting: {"formed": "started", "start_failed": "start_failed"},
		Started:  {},
		Closed:   {},
	}
	for _, st := range []State{Open, Starting, Started, Closed} {
		for _, a := range actions {
			t.Run(string(st)+"/"+a.name, func(t *testing.T) {
				l := fixture(t, st)
				before := *l.Clone()
				n, evs, err := a.do(l)
				got := ""
				if err != nil {
					got = string(cupid.ErrorCode(err))
				} else if len(evs) > 0 {
					got = string(evs[0].Kind)
				}
				w, ok := want[st][a.name]
				if !ok {
					w = "conflict"
				}
				if got != w {
					t.Fatalf("%s on %s: got %q (err %v), want %q", a.name, st, got, err, w)
				}
				if err != nil && n != nil {
					t.Fatalf("a refused %s returned a lobby", a.name)
				}
				if l.Seq != before.Seq || len(l.Members) != len(before.Members) || l.State != before.State {
					t.Fatalf("%s changed its receiver", a.name)
				}
				if err == nil && len(evs) > 0 && evs[len(evs)-1].Seq != n.Seq {
					t.Fatalf("events not numbered in the lobby's sequence: %+v, lobby seq %d", evs, n.Seq)
				}
			})
		}
	}
}

func TestRules(t *testing.T) {
	for _, c := range []struct {
		name, field, code string
		do                func(l *Lobby) (*Lobby, []Event, error)
	}{
		{"only the host kicks", "player", "permission_denied", func(l *Lobby) (*Lobby, []Event, error) { return l.Kick("bob", "ann", t0) }},
		{"the host does not kick himself", "target", "invalid", func(l *Lobby) (*Lobby, []Event, error) { return l.Kick("ann", "ann", t0) }},
		{"kick a stranger", "target", "not_found", func(l *Lobby) (*Lobby, []Event, error) { return l.Kick("ann", "zed", t0) }},
		{"only the host starts", "player", "permission_denied", func(l *Lobby) (*Lobby, []Event, error) { return l.Start("bob", "M", t0) }},
		{"only the host locks", "player", "permission_denied", func(l *Lobby) (*Lobby, []Event, error) { return l.SetLocked("bob", true, t0) }},
		{"only the host closes", "player", "permission_denied", func(l *Lobby) (*Lobby, []Event, error) { return l.Close("bob", "", t0) }},
		{"join twice", "player", "already_exists", func(l *Lobby) (*Lobby, []Event, error) { return l.Join("bob", nil, AnyTeam, false, t0) }},
		{"team out of range", "team", "invalid", func(l *Lobby) (*Lobby, []Event, error) { return l.Join("cat", nil, 2, false, t0) }},
		{"empty player id", "player", "invalid", func(l *Lobby) (*Lobby, []Event, error) { return l.Join("", nil, AnyTeam, false, t0) }},
		{"bad attribute", "attributes.mmr", "invalid", func(l *Lobby) (*Lobby, []Event, error) {
			return l.Join("cat", cupid.Attributes{{Name: "mmr", Value: cupid.Value{}}}, AnyTeam, false, t0)
		}},
		{"leave a lobby one is not in", "player", "not_found", func(l *Lobby) (*Lobby, []Event, error) { return l.Leave("zed", t0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := c.do(fixture(t, Open))
			var e *cupid.Error
			if err == nil {
				t.Fatal("allowed")
			}
			e = err.(*cupid.Error)
			if string(e.Code) != c.code || e.Field != c.field {
				t.Fatalf("got %s on %q (%v), want %s on %q", e.Code, e.Field, err, c.code, c.field)
			}
		})
	}
}

func TestTeams(t *testing.T) {
	l := fixture(t, Open) // ann on 0, bob on 1
	l, evs, err := l.Join("cat", nil, AnyTeam, false, t0)
	if err != nil || evs[0].Team != 0 {
		t.Fatalf("cat placed on %v (err %v), want the emptiest team, 0 (the lowest among equals)", evs, err)
	}
	l, evs, _ = l.Join("dan", nil, AnyTeam, false, t0)
	if evs[0].Team != 1 {
		t.Fatalf("dan placed on %d, want 1", evs[0].Team)
	}
	if _, _, err := l.Join("eve", nil, AnyTeam, false, t0); cupid.ErrorCode(err) != cupid.CodeExhausted {
		t.Fatalf("a fifth player in a 2×2 lobby: %v, want resource_exhausted", err)
	}
	if _, _, err := l.SetTeam("cat", 1, t0); cupid.ErrorCode(err) != cupid.CodeExhausted {
		t.Fatalf("moving to a full team: %v", err)
	}
	l, _, _ = l.SetReady("cat", true, t0)
	l, _, _ = l.Leave("dan", t0)
	l, evs, err = l.SetTeam("cat", 1, t0)
	if err != nil || evs[0].Kind != EventTeamChanged {
		t.Fatal(evs, err)
	}
	if m, _ := l.Member("cat"); m.Ready || m.Team != 1 {
		t.Fatalf("a move keeps the team and clears ready: %+v", m)
	}
}

func TestHostLeaves(t *testing.T) {
	l := fixture(t, Open)
	l, evs, err := l.Leave("ann", t0)
	if err != nil || l.Host != "bob" || len(evs) != 2 || evs[1].Kind != EventHostChanged {
		t.Fatalf("host left: host %s, events %+v, err %v", l.Host, evs, err)
	}
	l, evs, _ = l.Leave("bob", t0)
	if l.State != Closed || evs[len(evs)-1].Kind != EventClosed || l.Reason != "everyone left" {
		t.Fatalf("last one out: %s %+v", l.State, evs)
	}
}

func TestPrivateLockKick(t *testing.T) {
	l, _, err := New("L", "C", "ann", nil, Settings{Queue: "q", Teams: 2, TeamSize: 3, Visibility: Private}, DefaultLimits, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Join("bob", nil, AnyTeam, false, t0); cupid.ErrorCode(err) != cupid.CodeDenied {
		t.Fatalf("private by id: %v", err)
	}
	l, _, err = l.Join("bob", nil, AnyTeam, true, t0)
	if err != nil {
		t.Fatal(err)
	}
	l, _, _ = l.Kick("ann", "bob", t0)
	if _, _, err := l.Join("bob", nil, AnyTeam, true, t0); cupid.ErrorCode(err) != cupid.CodeDenied {
		t.Fatalf("kicked player back: %v", err)
	}
	l, _, _ = l.SetLocked("ann", true, t0)
	if _, _, err := l.Join("cat", nil, AnyTeam, true, t0); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("locked: %v", err)
	}
	if (Filter{}).Matches(l) {
		t.Fatal("a private lobby is listed")
	}
}

func TestStart(t *testing.T) {
	l := fixture(t, Open)
	l, _, _ = l.SetReady("ann", true, t0)
	if _, _, err := l.Start("ann", "M", t0); err == nil || !strings.Contains(err.Error(), "not ready: bob") {
		t.Fatalf("start with bob not ready: %v", err)
	}
	l, _, _ = l.SetReady("bob", true, t0)
	l, _, _ = l.SetTeam("bob", 0, t0)
	l, _, _ = l.SetReady("bob", true, t0)
	if _, _, err := l.Start("ann", "M", t0); err == nil || !strings.Contains(err.Error(), "team 1 has no player") {
		t.Fatalf("start with an empty team: %v", err)
	}
	l, _, _ = l.SetTeam("bob", 1, t0)
	l, _, _ = l.SetReady("bob", true, t0)
	s, evs, err := l.Start("ann", "M", t0)
	if err != nil || s.State != Starting || s.MatchID != "M" || evs[0].MatchID != "M" {
		t.Fatal(s, evs, err)
	}
	back, evs, _ := s.StartFailed("player bob is in match X", t0)
	if back.State != Open || back.MatchID != "" || evs[0].Reason == "" {
		t.Fatalf("start failed: %+v %+v", back, evs)
	}
	teams := s.TeamPlayers()
	if len(teams) != 2 || teams[0][0].ID != "ann" || teams[1][0].ID != "bob" {
		t.Fatalf("teams %+v", teams)
	}
}

func TestSettingsAndFilters(t *testing.T) {
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{Teams: 2, TeamSize: 2}, "queue"},
		{Settings{Queue: "q", Teams: 0, TeamSize: 2}, "teams"},
		{Settings{Queue: "q", Teams: 17, TeamSize: 2}, "teams"},
		{Settings{Queue: "q", Teams: 2, TeamSize: 65}, "team_size"},
		{Settings{Queue: "q", Teams: 16, TeamSize: 16}, "team_size"},
		{Settings{Queue: "q", Teams: 2, TeamSize: 2, Visibility: "secret"}, "visibility"},
		{Settings{Queue: "q", Teams: 2, TeamSize: 2, Name: "a\nb"}, "name"},
		{Settings{Queue: "q", Teams: 2, TeamSize: 2, Attributes: map[string]string{"map": strings.Repeat("x", 200)}}, "attributes.map"},
	} {
		_, _, err := New("L", "C", "ann", nil, c.s, DefaultLimits, t0)
		if e, ok := err.(*cupid.Error); !ok || e.Field != "settings."+c.field || e.Code != cupid.CodeInvalid {
			t.Errorf("%+v: %v, want invalid %s", c.s, err, c.field)
		}
	}
	l, _, _ := New("L", "C", "ann", nil, Settings{Queue: "q", Teams: 2, TeamSize: 2, Attributes: map[string]string{"map": "dust"}}, DefaultLimits, t0)
	for _, c := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{Queue: "q"}, true},
		{Filter{Queue: "other"}, false},
		{Filter{Attributes: map[string]string{"map": "dust"}}, true},
		{Filter{Attributes: map[string]string{"map": "nuke"}}, false},
		{Filter{MinFree: 3}, true},
		{Filter{MinFree: 4}, false},
	} {
		if got := c.f.Matches(l); got != c.want {
			t.Errorf("%+v: %v", c.f, got)
		}
	}
	if _, err := DefaultLimits.Page(201); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Error("page of 201 allowed")
	}
	if n, _ := DefaultLimits.Page(0); n != 50 {
		t.Error("default page", n)
	}
}

func TestNewCode(t *testing.T) {
	i := 0
	code := NewCode(func(n int) int { i++; return i % n })
	if code != "BCDEFG" || NormalizeCode("bc-de fg") != code {
		t.Fatal(code)
	}
}
