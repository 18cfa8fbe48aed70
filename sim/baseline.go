package sim

import (
	"cmp"
	"slices"

	"github.com/cupid-match/cupid"
)

// The baselines are what a studio would get without rules, run on the same
// players so the report shows what the ruleset buys. Both fill the
// ruleset's full layout (max_number teams of player_max_number players,
// parties kept whole) and ignore every other rule; both wait until the
// oldest ticket has waited hold, which the run sets so that their median
// wait is the ruleset's: the comparison is then at equal waits.
//
//   - FIFO: first come, first matched. The oldest tickets, in arrival
//     order, fill the teams (each party into the first team with room).
//   - Greedy: the oldest ticket takes the tickets nearest to it in skill,
//     and the teams are balanced greedily (largest parties first, each to
//     the team with the lowest total that has room).
//
// Neither looks at latency: the match is hosted where its worst latency is
// lowest, as for a ruleset without latency rules.

// layout is a match's shape: teams of size players.
type layout struct{ teams, size int }

// check refuses a party no team can hold, as the engine does.
func (l layout) check(pt *party) error {
	if int(pt.size) > l.size {
		return cupid.Invalid("players", "a party of %d is larger than a team (%d)", pt.size, l.size)
	}
	return nil
}

// filler places parties into teams, each into the first team with room.
type filler struct {
	l     layout
	fill  []int
	teams [][]*party
	total int
}

func (f *filler) reset(l layout) {
	f.l, f.total = l, 0
	f.fill = slices.Grow(f.fill[:0], l.teams)[:l.teams]
	clear(f.fill)
	if len(f.teams) < l.teams {
		f.teams = make([][]*party, l.teams)
	}
	f.teams = f.teams[:l.teams]
	for i := range f.teams {
		f.teams[i] = f.teams[i][:0]
	}
}

func (f *filler) place(pt *party) bool {
	for t := range f.fill {
		if f.fill[t]+int(pt.size) <= f.l.size {
			f.fill[t] += int(pt.size)
			f.teams[t] = append(f.teams[t], pt)
			f.total += int(pt.size)
			return true
		}
	}
	return false
}

func (f *filler) full() bool { return f.total == f.l.teams*f.l.size }

// fifoPool matches in arrival order.
type fifoPool struct {
	l    layout
	hold int64
	arrivalOrder
	dirty bool
	f     filler
	out   formed
}

func (b *fifoPool) add(pt *party) error {
	if err := b.l.check(pt); err != nil {
		return err
	}
	b.q = append(b.q, pt)
	b.dirty = true
	return nil
}

// remove is called only for waiting parties; the queue skips parties that
// no longer wait, so there is nothing to find.
func (b *fifoPool) remove(pt *party) bool {
	b.dirty = true
	return true
}

// arrivalOrder is the parties of a baseline pool in arrival order, with
// head at the oldest that may still wait.
type arrivalOrder struct {
	q    []*party
	head int
}

// oldest moves head to the oldest waiting party, dropping the rest.
func (b *arrivalOrder) oldest() *party {
	for b.head < len(b.q) && b.q[b.head].state != waiting {
		b.head++
	}
	if b.head > 1024 && b.head > len(b.q)/2 {
		b.q = append(b.q[:0], b.q[b.head:]...)
		b.head = 0
	}
	if b.head == len(b.q) {
		return nil
	}
	return b.q[b.head]
}

func (b *fifoPool) step(now int64, emit func(*formed)) {
	b.dirty = false
	for {
		o := b.oldest()
		if o == nil || now-o.arrived < b.hold {
			return
		}
		b.f.reset(b.l)
		for i := b.head; i < len(b.q) && !b.f.full(); i++ {
			if pt := b.q[i]; pt.state == waiting {
				b.f.place(pt)
			}
		}
		if !b.f.full() {
			return
		}
		b.out.teams, b.out.region, b.out.quality = b.f.teams, "", nil
		emit(&b.out)
	}
}

func (b *fifoPool) nextWake(now int64) (int64, bool) {
	if b.dirty {
		return now, true
	}
	if o := b.oldest(); o != nil && now-o.arrived < b.hold {
		return o.arrived + b.hold, true
	}
	return 0, false
}

// greedyPool matches the oldest ticket with its nearest in skill.
type greedyPool struct {
	l    layout
	hold int64
	seq  uint64
	arrivalOrder
	idx   []*party // by mean skill, then arrival
	dead  int      // parties in idx that no longer wait
	dirty bool
	f     filler
	out   formed
	picks []*party
}

func mean(pt *party) float64 { return pt.skillSum / float64(pt.size) }

func bySkill(a, b *party) int {
	if c := cmp.Compare(mean(a), mean(b)); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func (b *greedyPool) add(pt *party) error {
	if err := b.l.check(pt); err != nil {
		return err
	}
	if !pt.hasSkill {
		return cupid.Invalid("players", "the greedy baseline needs every player's skill")
	}
	b.seq++
	pt.seq = b.seq
	b.q = append(b.q, pt)
	i, _ := slices.BinarySearchFunc(b.idx, pt, bySkill)
	b.idx = slices.Insert(b.idx, i, pt)
	b.dirty = true
	return nil
}

func (b *greedyPool) remove(pt *party) bool {
	b.dead++
	b.dirty = true
	return true
}

func (b *greedyPool) step(now int64, emit func(*formed)) {
	b.dirty = false
	for {
		if b.dead > 64 && b.dead > len(b.idx)/2 {
			b.idx = slices.DeleteFunc(b.idx, func(pt *party) bool { return pt.state != waiting })
			b.dead = 0
		}
		o := b.oldest()
		if o == nil || now-o.arrived < b.hold {
			return
		}
		if !b.gather(o) {
			return
		}
		b.balance()
		b.out.teams, b.out.region, b.out.quality = b.f.teams, "", nil
		// The members leave the index lazily: emit marks them matched.
		b.dead += len(b.picks)
		emit(&b.out)
	}
}

// gather takes the oldest party and then the waiting parties nearest to it
// in mean skill until the layout is full.
func (b *greedyPool) gather(o *party) bool {
	b.f.reset(b.l)
	b.picks = append(b.picks[:0], o)
	b.f.place(o)
	at, _ := slices.BinarySearchFunc(b.idx, o, bySkill)
	lo, hi := at-1, at+1
	key := mean(o)
	for !b.f.full() {
		for lo >= 0 && b.idx[lo].state != waiting {
			lo--
		}
		for hi < len(b.idx) && b.idx[hi].state != waiting {
			hi++
		}
		var c *party
		switch {
		case lo < 0 && hi >= len(b.idx):
			return false
		case lo < 0:
			c, hi = b.idx[hi], hi+1
		case hi >= len(b.idx):
			c, lo = b.idx[lo], lo-1
		case key-mean(b.idx[lo]) <= mean(b.idx[hi])-key:
			c, lo = b.idx[lo], lo-1
		default:
			c, hi = b.idx[hi], hi+1
		}
		if b.f.place(c) {
			b.picks = append(b.picks, c)
		}
	}
	return true
}

// balance puts the picked parties into teams again, largest first, each
// into the team with room and the lowest skill total; when that packing
// fails the first-fit teams of gather stand.
func (b *greedyPool) balance() {
	parties := slices.Clone(b.picks)
	slices.SortStableFunc(parties, func(x, y *party) int {
		if x.size != y.size {
			return cmp.Compare(y.size, x.size)
		}
		return cmp.Compare(y.skillSum, x.skillSum)
	})
	teams := make([][]*party, b.l.teams)
	fill := make([]int, b.l.teams)
	sum := make([]float64, b.l.teams)
	for _, pt := range parties {
		best := -1
		for t := range teams {
			if fill[t]+int(pt.size) <= b.l.size && (best < 0 || sum[t] < sum[best]) {
				best = t
			}
		}
		if best < 0 {
			return
		}
		teams[best] = append(teams[best], pt)
		fill[best] += int(pt.size)
		sum[best] += pt.skillSum
	}
	b.f.teams = teams
}

func (b *greedyPool) nextWake(now int64) (int64, bool) {
	if b.dirty {
		return now, true
	}
	if o := b.oldest(); o != nil && now-o.arrived < b.hold {
		return o.arrived + b.hold, true
	}
	return 0, false
}
