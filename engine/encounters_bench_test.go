package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// The encounter history's rules in a 1v1 pass (docs/encounters.md): each
// player's ticket carries the lists the server fills at intake — "blocked"
// (his block list) and "met" (opponents met lately) — and the ruleset keeps
// blocked pairs apart and recent opponents apart for a while (collection
// rules "player_ids", the second with disable_after, both judged natively:
// excludes.go). The bound: within 1.5× of the same pass without
// the rules, on the same tickets.
//
//	go test ./engine/ -run '^$' -bench 'PassEncounters' -benchtime 5x
var benchEncounterRules = strings.Replace(bench1v1Rules, `"alliance"`, `"collection_rule": [
		{"attribute": "blocked", "operation": "player_ids", "max_count": 0},
		{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 30}],
	"alliance"`, 1)

// benchEncounterExprRules is the same as expressions the engine cannot
// judge natively: what the rules cost without excludes.go.
var benchEncounterExprRules = strings.Replace(bench1v1Rules, `"alliance"`, `"filter": [
		{"name": "not_blocked", "expr": "!(candidate.player_ids[0] in ticket.players[0].blocked) && !(ticket.player_ids[0] in candidate.players[0].blocked)"},
		{"name": "not_again", "expr": "!(candidate.player_ids[0] in ticket.players[0].met)", "disable_after": 30}],
	"alliance"`, 1)

// genEncounters is gen1v1 with each player's lists: 0–3 blocked players
// and 5–20 recent opponents, drawn from players of nearby skill (whom the
// pass would otherwise pair).
func genEncounters(n int, now time.Time, seed uint64) []*cupid.Ticket {
	ts := gen1v1(n, now, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	near := func(i int) string { return fmt.Sprintf("t%07d", min(max(i+rng.IntN(200)-100, 0), n-1)) }
	for i, t := range ts {
		var blocked, met []string
		for range rng.IntN(4) {
			blocked = append(blocked, near(i))
		}
		for range 5 + rng.IntN(16) {
			met = append(met, near(i))
		}
		t.Players[0].Attributes = append(t.Players[0].Attributes,
			cupid.Attribute{Name: "blocked", Value: cupid.Strings(blocked...)},
			cupid.Attribute{Name: "met", Value: cupid.Strings(met...)})
	}
	return ts
}

func BenchmarkPassEncounters1v1_100k(b *testing.B) {
	benchPass(b, benchEncounterRules, genEncounters, 100_000)
}

func BenchmarkPassEncountersExpr1v1_100k(b *testing.B) {
	benchPass(b, benchEncounterExprRules, genEncounters, 100_000)
}

// BenchmarkPassEncountersBaseline1v1_100k is the same tickets without the
// rules.
func BenchmarkPassEncountersBaseline1v1_100k(b *testing.B) {
	benchPass(b, bench1v1Rules, genEncounters, 100_000)
}
