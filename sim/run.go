package sim

import (
	"container/heap"
	"math"
	"strconv"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/waitest"
)

// Origin is the virtual clock's time 0: the start of the simulated day.
var Origin = time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)

// DefaultTTL is the ticket time to live a run applies unless told
// otherwise: the server's default (ticket_ttl, 10 minutes).
const DefaultTTL = 10 * time.Minute

// party is one ticket's visit to the queue as the simulator follows it.
type party struct {
	t        *cupid.Ticket
	arrived  int64 // ns since Origin
	leaves   int64 // ns since Origin: when it gives up or expires
	expires  bool  // leaves is the ticket's expiry, not its patience
	j, visit int32 // the population party and its visit; j < 0 for traffic
	size     int32
	// skill is over the party's players: lowest, highest, sum.
	skillMin, skillMax, skillSum float64
	hasSkill                     bool
	state                        uint8
	// seq orders parties that arrived at the same moment (baselines).
	seq uint64
	// est is the wait estimate it got on arrival, when it got one
	// (estimates.go).
	est    waitest.Estimate
	hasEst bool
}

const (
	waiting uint8 = iota
	matched
	left
)

// source is what a run plays: a population's parties or recorded traffic,
// in arrival order.
type source interface {
	count() int
	arrivalAt(i int) int64
	build(i int) *party
	// comeback returns the party's next visit when it queues again after
	// being matched at ns, or nil.
	comeback(pt *party, at int64) *party
	// end is when the run stops, in ns since Origin.
	end() int64
}

// formed is a match as a matcher hands it to the run: teams of parties,
// the hosting region when the matcher chose one, the quality when it
// scored one, and the engine's whole proposal when the matcher is the
// engine (nil for a baseline). It is valid only during the emit call.
type formed struct {
	teams   [][]*party
	region  string
	quality *cupid.Quality
	prop    *engine.Proposal
}

// observer is told what happens in a run, as it happens: a recorder that
// sums a day of traffic up for the report, or a scenario's log of every
// match and refusal.
type observer interface {
	// arrive is a party's arrival, before the matcher sees it; then
	// either admitted (it waits) or refused (the matcher would not take
	// it).
	arrive(pt *party)
	admitted(pt *party)
	refused(pt *party, err error)
	// leave is a waiting party's departure at now: it gave up, was
	// cancelled, or expired.
	leave(pt *party, now int64)
	// match is a match formed at now.
	match(f *formed, now int64)
	// sampleUntil comes before the events of each moment at.
	sampleUntil(at int64)
	// finish ends the run; last is the last moment anything happened.
	finish(last int64)
}

// pool is one queue key's matcher: the real engine or a baseline.
type pool interface {
	add(pt *party) error
	remove(pt *party) bool
	step(now int64, emit func(*formed))
	nextWake(now int64) (int64, bool)
}

// keyed keeps one pool per queue key, as the server does: tickets of
// different client versions or custom keys never meet.
type keyed struct {
	make  func(cupid.QueueKey) (pool, error)
	pools []pool
	byKey map[cupid.QueueKey]int
	due   []bool
	wakes []int64
	// last is the key of the last ticket seen and lastIdx its pool.
	last    cupid.QueueKey
	lastIdx int
	hasLast bool
}

func newKeyed(mk func(cupid.QueueKey) (pool, error)) *keyed {
	return &keyed{make: mk, byKey: map[cupid.QueueKey]int{}}
}

func (k *keyed) poolOf(key cupid.QueueKey) (int, error) {
	// Most runs have one key: comparing it costs less than hashing it.
	if k.hasLast && key == k.last {
		return k.lastIdx, nil
	}
	if i, ok := k.byKey[key]; ok {
		k.last, k.lastIdx, k.hasLast = key, i, true
		return i, nil
	}
	p, err := k.make(key)
	if err != nil {
		return 0, err
	}
	k.pools = append(k.pools, p)
	k.due = append(k.due, false)
	k.wakes = append(k.wakes, math.MaxInt64)
	k.byKey[key] = len(k.pools) - 1
	return len(k.pools) - 1, nil
}

func (k *keyed) add(pt *party) error {
	i, err := k.poolOf(pt.t.Key)
	if err != nil {
		return err
	}
	if err := k.pools[i].add(pt); err != nil {
		return err
	}
	k.due[i] = true
	return nil
}

func (k *keyed) remove(pt *party) bool {
	i, ok := k.lastIdx, k.hasLast && pt.t.Key == k.last
	if !ok {
		i, ok = k.byKey[pt.t.Key]
	}
	if !ok || !k.pools[i].remove(pt) {
		return false
	}
	k.due[i] = true
	return true
}

// step runs every pool that had an arrival or a departure since its last
// step, or whose wake-up has come, as each pool of the server runs on its
// own.
func (k *keyed) step(now int64, emit func(*formed)) {
	for i, p := range k.pools {
		if k.due[i] || k.wakes[i] <= now {
			k.due[i] = false
			p.step(now, emit)
		}
	}
}

func (k *keyed) nextWake(now int64) (int64, bool) {
	best, ok := int64(math.MaxInt64), false
	for i, p := range k.pools {
		k.wakes[i] = math.MaxInt64
		if w, wok := p.nextWake(now); wok {
			k.wakes[i] = max(w, now)
			best, ok = min(best, k.wakes[i]), true
		}
	}
	return best, ok
}

// enginePool drives one engine.Pool: the code the server runs, in virtual
// time.
type enginePool struct {
	p    *engine.Pool
	live map[string]*party
	buf  formed
}

// newEnginePool makes the engine's pool for a key; the seed goes to the
// engine too, which today breaks every tie without randomness.
func newEnginePool(key cupid.QueueKey, rs *ruleset.Compiled, seed uint64) (pool, error) {
	p, err := engine.New(key, rs, engine.Options{Seed: int64(seed)})
	if err != nil {
		return nil, err
	}
	return &enginePool{p: p, live: map[string]*party{}}, nil
}

func (e *enginePool) add(pt *party) error {
	if err := e.p.Add(pt.t); err != nil {
		return err
	}
	e.live[pt.t.ID] = pt
	return nil
}

func (e *enginePool) remove(pt *party) bool {
	if !e.p.Remove(pt.t.ID) {
		return false
	}
	delete(e.live, pt.t.ID)
	return true
}

func (e *enginePool) step(now int64, emit func(*formed)) {
	props := e.p.Step(Origin.Add(time.Duration(now)))
	for i := range props {
		pr := &props[i]
		e.buf.teams = e.buf.teams[:0]
		k := 0
		for t := range pr.Teams() {
			n := 0
			for k+n < pr.Len() && pr.TeamOf(k+n) == t {
				n++
			}
			members := make([]*party, n)
			for j := range members {
				id := pr.TicketID(k + j)
				members[j] = e.live[id]
				delete(e.live, id)
			}
			k += n
			e.buf.teams = append(e.buf.teams, members)
		}
		e.buf.region, e.buf.quality, e.buf.prop = pr.Region, &pr.Quality, pr
		emit(&e.buf)
	}
}

func (e *enginePool) nextWake(now int64) (int64, bool) {
	w, ok := e.p.NextWake(Origin.Add(time.Duration(now)))
	if !ok {
		return 0, false
	}
	return w.Sub(Origin).Nanoseconds(), true
}

// timed is a departure or a return, due at a moment of virtual time.
type timed struct {
	at     int64
	seq    uint64
	pt     *party
	isBack bool // a return (the party queues again); else a departure
}

type timeline []timed

func (h timeline) Len() int { return len(h) }
func (h timeline) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timeline) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timeline) Push(x any)   { *h = append(*h, x.(timed)) }
func (h *timeline) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// simulate plays a source through a matcher in virtual time and tells rec
// what happened. Time moves to the next arrival, departure, return or
// wake-up of a pool, whichever is first; after the events of a moment the
// pools step, as the server steps a pool after each batch of operations.
// It is the one virtual-time loop of the project: "cupid sim" runs a day of
// players through it, "cupid ruleset try" a handful of scenario tickets.
func simulate(src source, m pool, rec observer) error {
	var tl timeline
	var seq uint64
	schedule := func(at int64, pt *party, back bool) {
		seq++
		heap.Push(&tl, timed{at: at, seq: seq, pt: pt, isBack: back})
	}
	end := src.end()
	now := int64(0)
	next, n := 0, src.count()
	enter := func(pt *party) {
		rec.arrive(pt)
		if err := m.add(pt); err != nil {
			pt.state = left
			rec.refused(pt, err)
			return
		}
		rec.admitted(pt)
		schedule(pt.leaves, pt, false)
	}
	emit := func(f *formed) {
		for _, team := range f.teams {
			for _, pt := range team {
				pt.state = matched
				if again := src.comeback(pt, now); again != nil && again.arrived < end {
					schedule(again.arrived, again, true)
				}
			}
		}
		rec.match(f, now)
	}
	for {
		at := int64(math.MaxInt64)
		if next < n {
			at = src.arrivalAt(next)
		}
		if len(tl) > 0 && tl[0].at < at {
			at = tl[0].at
		}
		if w, ok := m.nextWake(now); ok && w < at {
			at = max(w, now)
		}
		if at >= end {
			break
		}
		rec.sampleUntil(at)
		now = at
		for next < n && src.arrivalAt(next) <= now {
			enter(src.build(next))
			next++
		}
		for len(tl) > 0 && tl[0].at <= now {
			ev := heap.Pop(&tl).(timed)
			switch {
			case ev.isBack:
				enter(ev.pt)
			case ev.pt.state == waiting && m.remove(ev.pt):
				ev.pt.state = left
				rec.leave(ev.pt, now)
			}
		}
		m.step(now, emit)
	}
	rec.sampleUntil(end)
	rec.finish(now)
	return nil
}

// ticketID names a population party's visit: t<party>, then t<party>.<visit>
// for its returns.
func ticketID(j, visit int32) string {
	if visit == 0 {
		return "t" + strconv.Itoa(int(j))
	}
	return "t" + strconv.Itoa(int(j)) + "." + strconv.Itoa(int(visit))
}

// skillOf fills a party's skill summary from its players' attribute (or
// the ticket's, as the engine reads it).
func (pt *party) skillOf(attr string) {
	pt.skillMin, pt.skillMax, pt.skillSum, pt.hasSkill = math.Inf(1), math.Inf(-1), 0, true
	for i := range pt.t.Players {
		v, ok := pt.t.Players[i].Attributes.Get(attr)
		if !ok {
			v, ok = pt.t.Attributes.Get(attr)
		}
		if !ok || v.Kind != cupid.KindNumber {
			pt.hasSkill = false
			return
		}
		pt.skillMin = min(pt.skillMin, v.Number)
		pt.skillMax = max(pt.skillMax, v.Number)
		pt.skillSum += v.Number
	}
}

// popSource plays a population.
type popSource struct {
	p     *Population
	seed  uint64
	ttl   int64
	arr   []arrival
	g     *rng
	key   cupid.QueueKey
	endNS int64
}

func newPopSource(p *Population, seed uint64, ttl time.Duration) *popSource {
	return &popSource{p: p, seed: seed, ttl: int64(ttl), arr: p.schedule(seed), g: newRNG(),
		key: cupid.QueueKey{Queue: "sim"}, endNS: int64(p.Hours * 3600 * 1e9)}
}

func (s *popSource) count() int            { return len(s.arr) }
func (s *popSource) arrivalAt(i int) int64 { return s.arr[i].at }
func (s *popSource) end() int64            { return s.endNS }

func (s *popSource) build(i int) *party {
	t := s.p.party(s.g, s.seed, i, s.arr[i].size)
	pt := &party{t: t, j: int32(i), size: s.arr[i].size}
	s.visit(pt, s.arr[i].at)
	pt.skillOf(s.p.Skill.Attribute)
	return pt
}

// visit dates a visit and draws its patience.
func (s *popSource) visit(pt *party, at int64) {
	t := pt.t
	t.ID, t.Key, t.State = ticketID(pt.j, pt.visit), s.key, cupid.StateWaiting
	t.CreatedAt = Origin.Add(time.Duration(at))
	t.ExpiresAt = t.CreatedAt.Add(time.Duration(s.ttl))
	pt.arrived = at
	patience := int64(s.p.Patience.draw(s.g.at(s.seed, int(pt.j), int(pt.visit), streamPatience), 0) * 1e9)
	pt.leaves, pt.expires = at+s.ttl, true
	if patience < s.ttl {
		pt.leaves, pt.expires = at+patience, false
	}
}

func (s *popSource) comeback(pt *party, at int64) *party {
	ret := s.p.Return
	if ret == nil || ret.Rate == 0 {
		return nil
	}
	r := s.g.at(s.seed, int(pt.j), int(pt.visit), streamReturn)
	if r.Float64() >= ret.Rate {
		return nil
	}
	after := int64(ret.After.draw(r, 0) * 1e9)
	// The next visit shares the players and latencies (read only, by the
	// engine as by us) under a new ticket.
	t := &cupid.Ticket{Players: pt.t.Players, Latencies: pt.t.Latencies, Attributes: pt.t.Attributes}
	next := &party{t: t, j: pt.j, visit: pt.visit + 1, size: pt.size,
		skillMin: pt.skillMin, skillMax: pt.skillMax, skillSum: pt.skillSum, hasSkill: pt.hasSkill}
	s.visit(next, at+max(after, 1))
	return next
}
