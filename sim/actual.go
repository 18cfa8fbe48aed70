package sim

import (
	"slices"
	"strings"

	"github.com/cupid-match/cupid"
)

// The "actual" run of a replay is what really happened to the recorded
// tickets, read from the traffic's match lines and final states, summed up
// by the same recorder as the runs of the rulesets: so the report puts the
// real waits, matches, quality and departures beside what each ruleset
// would have done with the same arrivals.
//
// Each ticket arrives at its recorded second; a cancelled or expired one
// leaves when it did; a matched one is matched at its match's moment (or,
// for a ticket backfilled into a session formed before it, at its own
// arrival); one still waiting when it was recorded is waiting at the end.
// A match holds the tickets of the window only, as the replay does.

// actualEvent is one moment of the real history.
type actualEvent struct {
	at    int64
	order int // arrivals, then departures, then matches, as simulate
	seq   int
	pt    *party
	m     *TrafficMatch
}

// actualRun is the real history summed up, with its matches as sets of
// tickets.
type actualRun struct {
	rec  *recorder
	sets map[string]bool
}

// playActual sums up the real history of recorded traffic.
func playActual(tr *Traffic, src *trafficSource, sample int64) *actualRun {
	rec := newRecorder(src.end(), sample)
	sets := map[string]bool{}
	byID := make(map[string]*party, len(tr.Tickets))
	var evs []actualEvent
	for i := range tr.Tickets {
		rt := &tr.Tickets[i]
		pt := src.build(i)
		byID[rt.ID] = pt
		evs = append(evs, actualEvent{at: pt.arrived, order: 0, seq: i, pt: pt})
		if rt.Left != nil && (rt.State == string(cupid.StateCancelled) || rt.State == string(cupid.StateExpired)) {
			pt.leaves, pt.expires = pt.arrived+int64(*rt.Left*1e9), rt.State == string(cupid.StateExpired)
			evs = append(evs, actualEvent{at: pt.leaves, order: 1, seq: i, pt: pt})
		}
	}
	for i := range tr.Matches {
		m := &tr.Matches[i]
		at := int64(m.At * 1e9)
		found := false
		for _, team := range m.Teams {
			for _, id := range team {
				if pt, ok := byID[id]; ok {
					at, found = max(at, pt.arrived), true
				}
			}
		}
		if found {
			evs = append(evs, actualEvent{at: at, order: 2, seq: i, m: m})
		}
	}
	slices.SortFunc(evs, func(a, b actualEvent) int {
		if a.at != b.at {
			return cmpInt64(a.at, b.at)
		}
		if a.order != b.order {
			return a.order - b.order
		}
		return a.seq - b.seq
	})
	var f formed
	last := int64(0)
	for _, ev := range evs {
		rec.sampleUntil(ev.at)
		last = ev.at
		switch ev.order {
		case 0:
			rec.arrive(ev.pt)
			rec.admitted(ev.pt)
		case 1:
			if ev.pt.state == waiting {
				ev.pt.state = left
				rec.leave(ev.pt, ev.at)
			}
		case 2:
			f.teams, f.region, f.quality = f.teams[:0], ev.m.Region, ev.m.Quality
			for _, team := range ev.m.Teams {
				var members []*party
				for _, id := range team {
					if pt, ok := byID[id]; ok && pt.state == waiting {
						pt.state = matched
						members = append(members, pt)
					}
				}
				if len(members) > 0 {
					f.teams = append(f.teams, members)
				}
			}
			if len(f.teams) == 0 {
				continue
			}
			sets[matchSet(f.teams)] = true
			rec.match(&f, ev.at)
		}
	}
	rec.sampleUntil(src.end())
	rec.finish(last)
	return &actualRun{rec: rec, sets: sets}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// matchSet names a match by its tickets, whatever their teams and order:
// two runs formed the same match when they put the same tickets together.
func matchSet(teams [][]*party) string {
	var ids []string
	for _, team := range teams {
		for _, pt := range team {
			ids = append(ids, pt.t.ID)
		}
	}
	slices.Sort(ids)
	return strings.Join(ids, "\x00")
}

// sameAs counts the matches of a run that put together exactly the tickets
// of a real match.
func sameAs(run, actual map[string]bool) int {
	n := 0
	for set := range run {
		if actual[set] {
			n++
		}
	}
	return n
}
