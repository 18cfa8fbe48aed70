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
// The constraints a ticket owns are its latencies and its choices. Its
// choices are the values of an "any" match option (the game modes or maps
// it accepts): a value the refused candidates have and it does not is an
// offer when adding it lets them in; accepting adds the value to the
// ticket's list. Its latencies are the regions it reaches within the
// queue's current latency range. A region it has a latency to,
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
	// Region and Latency are a latency offer's change: the ticket's
	// latency to Region is recorded as Latency (the range's limit); Extra
	// is how far above the range the ticket's own latency is.
	Region  string `json:"region,omitempty"`
	Latency int32  `json:"latency_ms,omitempty"`
	Extra   int32  `json:"extra_ms,omitempty"`
	// Option and Value are a choice offer's change: Value is added to the
	// ticket's values of the match option Option.
	Option string `json:"option,omitempty"`
	Value  string `json:"value,omitempty"`
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

// offers computes the offers of anchor a at env, best first. others are
// the tickets Explain examines, base the tally at env.
func (p *Pool) offers(a int32, env *envelope, now time.Time, others []int32, base tallyResult) []Offer {
	out := append(p.latencyOffers(a, env, now, others, base), p.optionOffers(a, env, now, others, base)...)
	// Those that let a match form first, then the most candidates, then
	// the smallest price, then by id.
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
		return cmpString(x.ID, y.ID)
	})
	if len(out) > maxOffers {
		out = out[:maxOffers]
	}
	return out
}

// latencyOffers are the regions above the range that let candidates in.
func (p *Pool) latencyOffers(a int32, env *envelope, now time.Time, others []int32, base tallyResult) []Offer {
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
	return out
}

// maxValueOffers bounds the values offered per option: the ones most
// refused candidates hold.
const maxValueOffers = 2

// optionOffers are the values of "any" match options that the candidates
// refused by the option hold and the ticket does not.
func (p *Pool) optionOffers(a int32, env *envelope, now time.Time, others []int32, base tallyResult) []Offer {
	ea := &p.entries[a]
	if ea.x == nil || len(p.r.options) == 0 {
		return nil
	}
	aMask := p.anchorMask(ea, env)
	if aMask == 0 || int(ea.size) > env.maxPlayers || p.gateOK(a, env).kind != rOK {
		return nil // the ticket cannot anchor for another reason
	}
	var out []Offer
	ni := 0
	var names map[uint32]string
	for k, o := range p.r.options {
		if o.kind != optAny {
			continue
		}
		n := ni
		ni++
		own := ea.x.anySets[n]
		if own == nil {
			continue // no preference: this option refuses nobody
		}
		// The values the candidates it refuses hold, by how many hold each.
		held := map[uint32]int{}
		for _, s := range others {
			if _, r := p.pairOK(a, s, env, aMask, now); r.kind == rOption && r.i == k {
				for _, v := range p.entries[s].x.anySets[n] {
					held[v]++
				}
			}
		}
		if len(held) == 0 {
			continue
		}
		vals := make([]uint32, 0, len(held))
		for v := range held {
			vals = append(vals, v)
		}
		slices.SortFunc(vals, func(x, y uint32) int {
			if held[x] != held[y] {
				return held[y] - held[x]
			}
			return int(x) - int(y)
		})
		if names == nil {
			names = make(map[uint32]string, len(p.strIDs))
			for str, id := range p.strIDs {
				names[id] = str
			}
		}
		for _, v := range vals[:min(len(vals), maxValueOffers)] {
			// Judge the candidates again with the value added, then
			// put the ticket's own set back.
			with := append(slices.Clone(own), v)
			slices.Sort(with)
			ea.x.anySets[n] = with
			adds, players := 0, 0
			for _, s := range others {
				if _, before := p.pairOKWith(a, s, env, aMask, now, n, own); before.kind == rOK {
					continue
				}
				if _, r := p.pairOK(a, s, env, aMask, now); r.kind == rOK {
					adds++
					players += int(p.entries[s].size)
				}
			}
			ea.x.anySets[n] = own
			if adds == 0 {
				continue
			}
			value := names[v]
			out = append(out, Offer{
				ID: "option:" + o.name + "=" + value, Option: o.name, Value: value,
				Adds: adds, Players: players, Forms: int(ea.size)+base.players+players >= env.minTeams*env.minPlayers,
				Text: fmt.Sprintf("accept %s %s: %d more %s", o.name, value, adds, plural(adds, "candidate", "candidates")),
			})
		}
	}
	return out
}

// pairOKWith is pairOK with the anchor's n-th "any" set as given.
func (p *Pool) pairOKWith(a, s int32, env *envelope, aMask uint64, now time.Time, n int, set []uint32) (uint64, reason) {
	x := p.entries[a].x
	keep := x.anySets[n]
	x.anySets[n] = set
	m, r := p.pairOK(a, s, env, aMask, now)
	x.anySets[n] = keep
	return m, r
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
