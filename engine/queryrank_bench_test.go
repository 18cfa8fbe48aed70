package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// The cost of ranking by ticket query: an imported Nakama queue (one team of
// 4, ticket_query, no distance rule) where every ticket's query filters on
// mode and region, with and without an optional voice clause. Without it an
// anchor stops gathering at Options.Candidates times the players it needs;
// with it the anchor gathers its whole class (at most ScanLimit tickets) to
// rank them, as under a sort rule (the third benchmark: the filtering
// queries and a sort rule).
const benchQueryRules = `{
	"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 4, "player_max_number": 4},
	"ticket_query": {"attribute": "query"}
}`

const benchQuerySortRules = `{
	"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 4, "player_max_number": 4},
	"ticket_query": {"attribute": "query"},
	"sort_rule": [{"attribute": "level", "sort": "distance"}]
}`

// genQuery makes n solo tickets over four regions, one in ten casual, half
// with voice, each querying its own region; ranked adds the voice clause.
func genQuery(ranked bool) func(int, time.Time, uint64) []*cupid.Ticket {
	regions := []string{"europe", "asia", "us", "sa"}
	return func(n int, now time.Time, seed uint64) []*cupid.Ticket {
		rng := rand.New(rand.NewPCG(seed, 3))
		ts := make([]*cupid.Ticket, n)
		for i := range ts {
			id := fmt.Sprintf("t%07d", i)
			region := regions[rng.IntN(len(regions))]
			mode, voice := "ranked", "no"
			if rng.IntN(10) == 0 {
				mode = "casual"
			}
			if rng.IntN(2) == 0 {
				voice = "yes"
			}
			query := "+properties.mode:ranked +properties.region:" + region
			if ranked {
				query += " properties.voice:yes^2"
			}
			ts[i] = &cupid.Ticket{
				ID: id, Key: testKey, State: cupid.StateWaiting,
				Players:   []cupid.Player{{ID: id}},
				CreatedAt: now.Add(-time.Minute + time.Duration(i)*time.Minute/time.Duration(n)),
				Attributes: cupid.Attributes{
					{Name: "level", Value: cupid.Number(float64(1 + rng.IntN(50)))},
					{Name: "mode", Value: cupid.String(mode)},
					{Name: "query", Value: cupid.String(query)},
					{Name: "region", Value: cupid.String(region)},
					{Name: "voice", Value: cupid.String(voice)},
				},
			}
		}
		return ts
	}
}

func BenchmarkPassQueryFilter_10k(b *testing.B) {
	benchPass(b, benchQueryRules, genQuery(false), 10_000)
}
func BenchmarkPassQueryRanked_10k(b *testing.B) {
	benchPass(b, benchQueryRules, genQuery(true), 10_000)
}

func BenchmarkPassQuerySorted_10k(b *testing.B) {
	benchPass(b, benchQuerySortRules, genQuery(false), 10_000)
}
