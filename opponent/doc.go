// Package opponent is Cupid's asynchronous opponent finder, after Metaplay's
// async matchmaker: the game asks "whom should this player
// attack?" and gets the best available defender at once, from an in-memory
// cache that never outgrows its configured size.
//
// Defenders enter the cache by state updates (Update; a model without
// entries marks the player ineligible) and, where enabled, by a periodic scan
// of the player table that the server runs on the finder's plan (ScanPlan,
// ApplyScan). The cache is cut into buckets: MmrBucketCount equal MMR ranges,
// times the labels of any additional bucketing strategies (distinct or
// ranged, hard or soft). Each bucket is a fixed-size replace-on-insert table
// keyed by a hash of the player id, so memory is fixed by PlayerCacheSize
// however many players the game has. Buckets are sized dynamically from
// samples of the players added (Rebalance), and the resulting SizingModel is
// JSON the server stores and loads after a restart (LoadSizingModel).
//
// A query (Query) searches the attacker's MMR window, widened by retries,
// in preferred-label tiers, in random order, examining at most MaxCandidates
// entries; a quality expression (expr-lang, compiled once) or a Go function
// says which candidates are possible and how good they are. The answer is
// SUCCESS with the best player, NONE_FOUND, or FAKE_OPPONENT when fake
// opponents are enabled and nothing real fits.
//
// The package is pure: no I/O, no goroutines, no wall clock. Time comes in
// as an argument and randomness from the seed given to New, so the same
// calls give the same answers, in a test, a benchmark or the simulator.
package opponent
