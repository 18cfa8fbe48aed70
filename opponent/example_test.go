package opponent_test

import (
	"fmt"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// A server wires a finder like this: build it from config, feed it player
// state, ask it for opponents.
func Example() {
	cfg := opponent.Config{
		PlayerCacheSize: 100_000,
		MinMMR:          0,
		MaxMMR:          3000,
		MmrBucketCount:  30,
		Attributes:      []opponent.Attribute{{Name: "guild", Type: "string"}},
		QueryAttributes: []opponent.Attribute{{Name: "guild", Type: "string"}, {Name: "rivals", Type: "strings"}},
		Quality: opponent.Quality{
			Filter: `player.guild != query.guild`,
			Score:  `300 - abs(query.mmr - player.mmr) + (player.guild in query.rivals ? 100 : 0)`,
		},
		PlayerIgnoreUpdateInsertThreshold: opponent.ThresholdNever,
	}
	f, err := opponent.New(cfg, 42)
	if err != nil {
		panic(err)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	guilds := map[string]string{"ann": "wolves", "bob": "bears", "cid": "wolves"}
	mmrs := map[string]float64{"ann": 1510, "bob": 1590, "cid": 1500}
	for _, id := range []string{"ann", "bob", "cid"} {
		m := opponent.Single(id, mmrs[id], map[string]cupid.Value{"guild": cupid.String(guilds[id])})
		if _, err := f.Update(m, now); err != nil {
			panic(err)
		}
	}
	res, err := f.Query(opponent.Query{
		AttackerID: "cid",
		MMR:        1520,
		Attributes: map[string]cupid.Value{"guild": cupid.String("wolves"), "rivals": cupid.Strings("bears")},
	}, now)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Type, res.PlayerID, res.Score)
	// Output: SUCCESS bob 330
}
