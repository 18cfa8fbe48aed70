package engine

import (
	"fmt"
	"slices"
	"time"
)

// Offers: where a ticket waits because of its own constraints, Explain
// lists what the ticket could give up to be matched sooner, each with its
// effect ("accept eu-west at +40 ms: 3 more candidates, a match at once").
// A client accepts one through the service, which rewrites the waiting
// ticket as the offer says and adds it back with its age.
//
// The constraint a ticket owns here is its latency: the regions it reaches
// within the queue's current latency range. A region it has a latency to,
// above that range, is an offer when taking it lets candidates in (or lets
// the ticket anchor a match at all): the ticket then plays there at its own
// latency now rather than when the range has grown to it. Accepting
// records the region's latency as the range's limit, so the engine judges
// the ticket as if it reached the region within range; the ping the player
// will have is the one the offer names.

// Offer is one relaxation a waiting ticket may accept.
type Offer struct {
	// ID names the offer in an accept call ("latency:eu-west").
	ID string `json:"id"`
	// Text says it for a player: "accept eu-west at +40 ms (100 ms)".
	Text string `json:"text"`
	// Region and Latency are the change: the ticket's latency to Region
	// is recorded as Latency (the range's limit); Extra is how far above
	// the range the ticket's own latency is.
	Region  string `json:"region"`
	Latency int32  `json:"latency_ms"`
	Extra   int32  `json:"extra_ms"`
	// Adds counts the waiting tickets that become compatible, and Players
	// their players.
	Adds    int `json:"adds"`
	Players int `json:"players"`
	// Forms is true when enough players would then be available for a
	// match at this level: one can form at the next step.
	Forms bool `json:"forms"`
	// Reached is when the range grows to the ticket's latency there by
	// itself (zero: never), the most accepting saves.
	Reached time.Time `json:"reached,omitzero"`
}

// maxOffers bounds the offers of one explanation.
const maxOffers = 4

// offers computes the latency offers of anchor a at env. others are the
// tickets Explain examines, base the tally at env.
func (p *Pool) offers(a int32, env *envelope, now time.Time, others []int32, base tallyResult) []Offer {
	if p.r.lat == nil {
		return nil
	}
	ea := &p.entries[a]
	if ea.x == nil || int(ea.size) > env.maxPlayers || p.gateOK(a, env).kind != rOK {
		return nil // a party too large or a gate: no region helps
	}
	aMask := p.anchorMask(ea, env)
	created := time.Unix(0, ea.created).In(now.Location())
	var out []Offer
	for _, l := range ea.x.lats {
		if int(l.ms) <= env.latRange || aMask&(1<<l.region) != 0 {
			continue
		}
		mask := aMask | 1<<l.region
		adds, players := 0, 0
		for _, s := range others {
			if _, before := p.pairOK(a, s, env, aMask, now); before.kind == rOK && aMask != 0 {
				continue
			}
			if _, r := p.pairOK(a, s, env, mask, now); r.kind == rOK {
				adds++
				players += int(p.entries[s].size)
			}
		}
		if adds == 0 {
			continue
		}
		avail := int(ea.size) + players
		if aMask != 0 {
			avail += base.players
		}
		o := Offer{
			ID: "latency:" + p.regionNames[l.region], Region: p.regionNames[l.region],
			Latency: int32(env.latRange), Extra: l.ms - int32(env.latRange),
			Adds: adds, Players: players, Forms: avail >= env.minTeams*env.minPlayers,
		}
		if w, ok := p.r.reachAt(int(l.ms), p.waitOf(ea, now)); ok {
			o.Reached = created.Add(w)
		}
		o.Text = fmt.Sprintf("accept %s at +%d ms (%d ms): %d more %s", o.Region, o.Extra, l.ms, adds, plural(adds, "candidate", "candidates"))
		out = append(out, o)
	}
	// Most candidates first, then the smallest price, then by name.
	slices.SortStableFunc(out, func(x, y Offer) int {
		switch {
		case x.Forms != y.Forms:
			if x.Forms {
				return -1
			}
			return 1
		case x.Adds != y.Adds:
			return y.Adds - x.Adds
		case x.Extra != y.Extra:
			return int(x.Extra - y.Extra)
		}
		return cmpString(x.Region, y.Region)
	})
	if len(out) > maxOffers {
		out = out[:maxOffers]
	}
	return out
}

// reachAt is the first wait, after w, at which the latency range reaches
// ms; false when it never does.
func (r *rules) reachAt(ms int, w time.Duration) (time.Duration, bool) {
	for step := 0; step < explainLookahead*4; step++ {
		next, ok := r.nextStep(w)
		if !ok {
			return 0, false
		}
		if r.latRange(next) >= ms {
			return next, true
		}
		w = next
	}
	return 0, false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
