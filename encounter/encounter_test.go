package encounter

import (
	"fmt"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// rows prints encounters compactly: player>other/side/outcome.
func rows(es []cupid.Encounter) string {
	var b []string
	for _, e := range es {
		s := e.Player + ">" + e.Other + "/" + e.Side
		if e.Outcome != "" {
			s += "/" + e.Outcome
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

func TestMeetingEncounters(t *testing.T) {
	long := strings.Repeat("x", cupid.MaxIDLength+1)
	many := make([]string, MaxMeetingPlayers+1)
	for i := range many {
		many[i] = fmt.Sprint("p", i)
	}
	cases := []struct {
		name  string
		m     Meeting
		want  string
		field string
	}{
		{"1v1", Meeting{Mode: ModeQueue, Place: "duel", Ref: "m1", At: t0, Teams: [][]string{{"a"}, {"b"}},
			Outcomes: map[string]string{"a": "win", "b": "loss"}},
			"a>b/opponent/win b>a/opponent/loss", ""},
		{"2v1 teammates", Meeting{Mode: ModeQueue, Place: "q", Ref: "m2", At: t0, Teams: [][]string{{"a", "b"}, {"c"}}},
			"a>b/teammate a>c/opponent b>a/teammate b>c/opponent c>a/opponent c>b/opponent", ""},
		{"trio of one team", Meeting{Mode: ModePairing, Place: "ev", Ref: "ev/1", At: t0, Teams: [][]string{{"a", "b", "c"}}},
			"a>b/opponent a>c/opponent b>a/opponent b>c/opponent c>a/opponent c>b/opponent", ""},
		{"attack", Meeting{Mode: ModeOpponent, Place: "raid", Ref: "x1", At: t0, Teams: [][]string{{"a"}, {"d"}}},
			"a>d/attacker d>a/defender", ""},
		{"alone", Meeting{Mode: ModeQueue, Place: "q", Ref: "m", At: t0, Teams: [][]string{{"a"}}}, "", ""},
		{"bad mode", Meeting{Mode: "duel", Place: "q", Ref: "m", At: t0}, "", "mode"},
		{"no place", Meeting{Mode: ModeQueue, Ref: "m", At: t0}, "", "place"},
		{"long ref", Meeting{Mode: ModeQueue, Place: "q", Ref: long, At: t0}, "", "ref"},
		{"no time", Meeting{Mode: ModeQueue, Place: "q", Ref: "m"}, "", "at"},
		{"twice", Meeting{Mode: ModeQueue, Place: "q", Ref: "m", At: t0, Teams: [][]string{{"a"}, {"a"}}}, "", "teams[1][0]"},
		{"empty id", Meeting{Mode: ModeQueue, Place: "q", Ref: "m", At: t0, Teams: [][]string{{"a", ""}}}, "", "teams[0][1]"},
		{"too many", Meeting{Mode: ModeQueue, Place: "q", Ref: "m", At: t0, Teams: [][]string{many}}, "", "teams"},
		{"attack of three", Meeting{Mode: ModeOpponent, Place: "raid", Ref: "x", At: t0, Teams: [][]string{{"a"}, {"b", "c"}}}, "", "teams"},
		{"outcome of a stranger", Meeting{Mode: ModeQueue, Place: "q", Ref: "m", At: t0, Teams: [][]string{{"a"}},
			Outcomes: map[string]string{"z": "win"}}, "", "outcomes.z"},
		{"long outcome", Meeting{Mode: ModeQueue, Place: "q", Ref: "m", At: t0, Teams: [][]string{{"a"}},
			Outcomes: map[string]string{"a": strings.Repeat("w", MaxOutcome+1)}}, "", "outcomes.a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.m.Encounters()
			if c.field != "" {
				e, ok := err.(*cupid.Error)
				if !ok || e.Field != c.field || e.Code != cupid.CodeInvalid {
					t.Fatalf("error = %v, want invalid on %s", err, c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rows(got) != c.want {
				t.Errorf("got  %s\nwant %s", rows(got), c.want)
			}
		})
	}
}

// hist builds a history, newest first, of (other, minutes ago, mode, side).
func hist(spec ...string) []cupid.Encounter {
	var h []cupid.Encounter
	for _, s := range spec {
		var other, mode, side string
		var ago int
		fmt.Sscanf(strings.ReplaceAll(s, ",", " "), "%s %d %s %s", &other, &ago, &mode, &side)
		h = append(h, cupid.Encounter{Player: "me", Other: other, Mode: mode, Side: side, Place: "q", At: t0.Add(-time.Duration(ago) * time.Minute)})
	}
	return h
}

func TestHistory(t *testing.T) {
	h := hist("b,5,queue,opponent", "c,10,queue,teammate", "b,30,queue,opponent", "d,90,opponent,defender",
		"e,600,opponent,attacker", "f,2000,pairing,opponent")
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"met b within 10m", Met(h, "b", Query{Within: 10 * time.Minute}, t0), true},
		{"met c within 5m", Met(h, "c", Query{Within: 5 * time.Minute}, t0), false},
		{"met c as opponent", Met(h, "c", Query{Side: SideOpponent}, t0), false},
		{"met f ever", Met(h, "f", Query{}, t0), true},
		{"met f in a queue", Met(h, "f", Query{Mode: ModeQueue}, t0), false},
		{"met f at another place", Met(h, "f", Query{Place: "elsewhere"}, t0), false},
		{"others within an hour", Others(h, Query{Within: time.Hour}, t0, 0), []string{"b", "c"}},
		{"opponents in queues", Others(h, Query{Mode: ModeQueue, Side: SideOpponent}, t0, 0), []string{"b"}},
		{"others limited", Others(h, Query{}, t0, 3), []string{"b", "c", "d"}},
		{"revenge within 12h", Revenge(h, 12*time.Hour, t0, 10), []string{"d"}},
		{"revenge within 1h", Revenge(h, time.Hour, t0, 10), []string(nil)},
		{"window by count", len(Window{Recent: 2, Horizon: time.Hour}.Bound(h, t0)), 2},
		{"window by horizon", len(Window{Recent: 100, Horizon: 100 * time.Minute}.Bound(h, t0)), 4},
		{"window all", len(DefaultWindow.Bound(h, t0)), 6},
	}
	for _, c := range cases {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if e, ok := Last(h, "b", Query{}, t0); !ok || !e.At.Equal(t0.Add(-5*time.Minute)) {
		t.Errorf("Last(b) = %v, %v", e, ok)
	}
}

func TestWindowCheck(t *testing.T) {
	cases := []struct {
		w     Window
		field string
	}{
		{DefaultWindow, ""},
		{Window{Recent: 0, Horizon: time.Hour}, "recent"},
		{Window{Recent: MaxRecent + 1, Horizon: time.Hour}, "recent"},
		{Window{Recent: 1}, "horizon"},
		{Window{Recent: 1, Horizon: MaxHorizon + 1}, "horizon"},
	}
	for _, c := range cases {
		err := c.w.Check()
		if c.field == "" && err != nil || c.field != "" && (err == nil || err.(*cupid.Error).Field != c.field) {
			t.Errorf("%+v: %v, want field %q", c.w, err, c.field)
		}
	}
}

func entries(spec ...string) []cupid.ListEntry {
	var out []cupid.ListEntry
	for _, s := range spec {
		f := strings.Fields(s) // "a block b" or "a avoid b 0.5"
		e := cupid.ListEntry{Player: f[0], Kind: f[1], Other: f[2]}
		if len(f) > 3 {
			fmt.Sscan(f[3], &e.Weight)
		}
		out = append(out, e)
	}
	return out
}

func TestLists(t *testing.T) {
	es := entries("a block b", "c block a", "a avoid d 0.5", "d avoid a 0.8", "b block c")
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"blocked of a, both ways", Blocked(es, "a"), []string{"b", "c"}},
		{"blocked of d", Blocked(es, "d"), []string(nil)},
		{"a and b", IsBlocked(es, "b", "a"), true},
		{"a and d", IsBlocked(es, "a", "d"), false},
		{"own lists hide who blocked me", len(Own(es, "c", "")), 1},
		{"own blocks of a", len(Own(es, "a", KindBlock)), 1},
		{"avoided by a", Avoided(es, "a"), []string{"d"}},
		{"avoid weight is the larger", AvoidWeight(es, "a", "d"), 0.8},
		{"no avoid", AvoidWeight(es, "a", "b"), 0.0},
	}
	for _, c := range cases {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if a, b, ok := AnyBlocked(es, []string{"d", "a", "x", "c"}); !ok || a != "a" || b != "c" {
		t.Errorf("AnyBlocked = %s %s %v", a, b, ok)
	}
	if _, _, ok := AnyBlocked(es, []string{"d", "a", "x"}); ok {
		t.Error("AnyBlocked without a block")
	}
}

func TestNewEntry(t *testing.T) {
	var full []cupid.ListEntry
	for i := range MaxBlocks {
		full = append(full, cupid.ListEntry{Player: "a", Kind: KindBlock, Other: fmt.Sprint("p", i)})
	}
	cases := []struct {
		name                string
		player, kind, other string
		weight              float64
		have                []cupid.ListEntry
		wantWeight          float64
		code                cupid.Code
		field               string
	}{
		{"block", "a", KindBlock, "b", 0, nil, 0, "", ""},
		{"avoid default weight", "a", KindAvoid, "b", 0, nil, DefaultAvoidWeight, "", ""},
		{"avoid weight", "a", KindAvoid, "b", 0.25, nil, 0.25, "", ""},
		{"himself", "a", KindBlock, "a", 0, nil, 0, cupid.CodeInvalid, "other_id"},
		{"no player", "", KindBlock, "a", 0, nil, 0, cupid.CodeInvalid, "player_id"},
		{"long other", "a", KindBlock, strings.Repeat("o", 200), 0, nil, 0, cupid.CodeInvalid, "other_id"},
		{"bad kind", "a", "mute", "b", 0, nil, 0, cupid.CodeInvalid, "kind"},
		{"block weight", "a", KindBlock, "b", 0.5, nil, 0, cupid.CodeInvalid, "weight"},
		{"weight above 1", "a", KindAvoid, "b", 1.5, nil, 0, cupid.CodeInvalid, "weight"},
		{"full list", "a", KindBlock, "z", 0, full, 0, cupid.CodeExhausted, "other_id"},
		{"full list, replacing", "a", KindBlock, "p7", 0, full, 0, "", ""},
		{"full blocks, avoid free", "a", KindAvoid, "z", 0, full, 1, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := NewEntry(c.player, c.kind, c.other, c.weight, c.have, t0)
			if c.code != "" {
				ce, ok := err.(*cupid.Error)
				if !ok || ce.Code != c.code || ce.Field != c.field {
					t.Fatalf("error = %v, want %s on %s", err, c.code, c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Player != c.player || e.Other != c.other || e.Kind != c.kind || e.Weight != c.wantWeight || !e.At.Equal(t0) {
				t.Errorf("entry = %+v", e)
			}
		})
	}
}
