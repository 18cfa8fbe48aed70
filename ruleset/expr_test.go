package ruleset

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

var now = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

func party(id string, waited time.Duration, mmrs ...float64) *cupid.Ticket {
	t := &cupid.Ticket{
		ID:         id,
		CreatedAt:  now.Add(-waited),
		Latencies:  map[string]int32{"eu": 40},
		Attributes: cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.String("ranked"), "langs": cupid.Strings("en", "fr")}),
	}
	for i, m := range mmrs {
		t.Players = append(t.Players, cupid.Player{
			ID:         id + string(rune('a'+i)),
			Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(m)}),
		})
	}
	return t
}

func TestNewTicketView(t *testing.T) {
	v := NewTicketView(party("t1", 30*time.Second, 1000, 1200), now)
	if v.Size != 2 || v.Wait != 30 || v.Attr["mmr"] != 1100.0 || v.Attr["mode"] != "ranked" || v.Latencies["eu"] != 40 {
		t.Errorf("view = %+v", v)
	}
	if v.Players[1]["mmr"] != 1200.0 {
		t.Errorf("player view = %+v", v.Players[1])
	}
}

func compileOne(t *testing.T, rule ExprRule, score bool) *Expr {
	t.Helper()
	rs := &Ruleset{Alliance: Alliance{MinNumber: 2, MaxNumber: 2, PlayerMinNumber: 1, PlayerMaxNumber: 5}}
	if score {
		rs.Score = []ExprRule{rule}
	} else {
		rs.Filter = []ExprRule{rule}
	}
	c, err := Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	if score {
		return c.Scores[0]
	}
	return c.Filters[0]
}

func TestFilterPair(t *testing.T) {
	f := compileOne(t, ExprRule{Name: "close", Expr: `abs(ticket.attr.mmr - candidate.attr.mmr) <= 150 && "fr" in candidate.attr.langs`, DisableAfter: 60}, false)
	if f.Scope != ExprPair {
		t.Fatalf("default filter scope = %q", f.Scope)
	}
	a := NewTicketView(party("a", 0, 1000, 1200), now)
	b := NewTicketView(party("b", 0, 1200), now)
	c := NewTicketView(party("c", 0, 1300), now)
	tests := []struct {
		env  PairEnv
		want bool
	}{
		{PairEnv{a, b}, true},
		{PairEnv{a, c}, false},
	}
	for _, tt := range tests {
		got, err := f.Pass(tt.env)
		if err != nil || got != tt.want {
			t.Errorf("Pass(%s, %s) = %v, %v; want %v", tt.env.Ticket.ID, tt.env.Candidate.ID, got, err, tt.want)
		}
	}
	if got, err := f.Pass(&PairEnv{a, b}); err != nil || !got {
		t.Errorf("a pointer environment: %v, %v", got, err)
	}
	if !f.ActiveAt(59*time.Second) || f.ActiveAt(time.Minute) {
		t.Error("disable_after 60 must switch the filter off at 60 s")
	}
	if _, err := f.Pass(MatchEnv{}); err == nil {
		t.Error("a pair filter accepted a match environment")
	}
	if _, err := f.Pass(42); err == nil {
		t.Error("a pair filter accepted an int environment")
	}
	// A missing attribute is a run-time error, not a panic.
	noMMR := NewTicketView(&cupid.Ticket{ID: "x", CreatedAt: now}, now)
	if _, err := f.Pass(PairEnv{a, noMMR}); err == nil {
		t.Error("a missing attribute did not give an error")
	}
}

func TestScoreMatch(t *testing.T) {
	s := compileOne(t, ExprRule{Name: "balance", Expr: `1 - abs(mean(map(teams[0].players, .mmr)) - mean(map(teams[1].players, .mmr))) / 1000`, Weight: ptr(2.0)}, true)
	if s.Scope != ExprMatch || s.Weight != 2 {
		t.Fatalf("scope %q weight %v", s.Scope, s.Weight)
	}
	env := NewMatchEnv([][]TicketView{
		{NewTicketView(party("a", 10*time.Second, 1000, 1200), now)},
		{NewTicketView(party("b", 20*time.Second, 1300), now), NewTicketView(party("c", 0, 1000), now)},
	})
	if env.Match.Size != 4 || env.Teams[1].Size != 2 || env.Match.MaxWait != 20 || len(env.Match.Tickets) != 3 {
		t.Fatalf("env = %+v", env.Match)
	}
	got, err := s.Value(env)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-0.95) > 1e-9 {
		t.Errorf("score = %v, want 0.95", got)
	}
}

func TestScoreClamp(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{"5", 1},
		{"-2", 0},
		{"0.25", 0.25},
		{"match.size / 8", 0.5},
	}
	env := MatchEnv{Match: MatchView{Size: 4}}
	for _, tt := range tests {
		s := compileOne(t, ExprRule{Name: "s", Expr: tt.expr}, true)
		got, err := s.Value(env)
		if err != nil || got != tt.want {
			t.Errorf("%s = %v, %v; want %v", tt.expr, got, err, tt.want)
		}
	}
}

func TestExprBudget(t *testing.T) {
	tests := []struct {
		expr, scope string
		want        string // "" means it compiles
	}{
		{`ticket.attr.mmr > 1`, ExprPair, ""},
		{`let d = ticket.attr.mmr - candidate.attr.mmr; d * d < 10000`, ExprPair, ""},
		{`all(teams, {all(.players, {.mmr > 0})})`, ExprMatch, ""},
		{`all(teams, {all(.players, {all(teams, {true})})})`, ExprMatch, "nests predicates 3 deep"},
		{`sum(1..999) > 0`, ExprPair, ""},
		{`sum(1..1000) > 0`, ExprPair, ""},
		{`sum(0..1000) > 0`, ExprPair, "range 0..1000 has more than 1000 elements"},
		{`repeat("x", 1000000) != ""`, ExprPair, "unknown name repeat"},
		{`date("2024-01-01") != nil`, ExprPair, "unknown name date"},
		{strings.Repeat("1 + ", 150) + "1 > 0", ExprPair, "exceeds maximum allowed nodes"},
		{`ticket.attr.mmr >`, ExprPair, "does not compile"},
	}
	for _, tt := range tests {
		_, err := compileExpr(tt.expr, tt.scope, false)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.expr, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: got %v, want %q", tt.expr, err, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
