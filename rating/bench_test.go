package rating

import (
	"math/rand/v2"
	"testing"
)

// benchTeams makes n games of two teams of size players each.
func benchTeams(n, size int) [][][]Skill {
	rng := rand.New(rand.NewPCG(1, 1))
	games := make([][][]Skill, n)
	for g := range games {
		games[g] = make([][]Skill, 2)
		for t := range 2 {
			for range size {
				games[g][t] = append(games[g][t], Skill{Mu: 15 + 20*rng.Float64(), Sigma: 1 + 7*rng.Float64()})
			}
		}
	}
	return games
}

// BenchmarkWengLin5v5 rates five-against-five games; updates/s counts
// player ratings (ten per game).
func BenchmarkWengLin5v5(b *testing.B) {
	for _, m := range []Model{PlackettLuce, BradleyTerry} {
		b.Run(string(m), func(b *testing.B) {
			w := WengLin{Model: m}
			games := benchTeams(1024, 5)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Rate(games[i%len(games)], nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(10*b.N)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}

// BenchmarkGlicko2Game rates one player after one game (an instant update).
func BenchmarkGlicko2Game(b *testing.B) {
	p, opp := Glicko2{R: 1600, RD: 80, Sigma: 0.06}, Glicko2{R: 1500, RD: 60, Sigma: 0.06}
	games := []Game{{Opponent: opp, Score: 1}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := (Glicko2Config{}).Period(p, games); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}
