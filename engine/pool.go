package engine

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Options tune a pool's work bounds and feed it optional inputs. The zero
// value is a good default.
type Options struct {
	// Seed seeds any randomness the engine uses, so a pool replays
	// exactly. Today it uses none: every tie is broken by age, arrival
	// order or ticket order.
	Seed int64
	// Candidates is how many compatible candidates an anchor gathers
	// first, as a multiple of the players a full match still needs
	// (default 2): with a distance rule the nearest, of which the oldest
	// are taken first. When they make no match the anchor gathers four
	// times as many, and so on (anchor.go), so this trades closeness in
	// skill against age, not matches against time.
	Candidates int
	// ScanLimit bounds how many waiting tickets one anchor looks at while
	// gathering candidates (default 20000), so a pool full of incompatible
	// tickets costs bounded time per anchor. Tickets matched earlier in
	// the same pass do not count.
	ScanLimit int
	// ExactTeamSize is the largest team (in players) that team balancing
	// solves exactly; beyond it a heuristic runs (default 12, see
	// balance.go).
	ExactTeamSize int
	// Met reports whether two players have met recently; when set, the
	// quality score gains the "variety" criterion. The server fills it from
	// its match history; the engine only reads it.
	Met func(a, b string) bool
}

func (o Options) withDefaults() Options {
	if o.Candidates <= 0 {
		o.Candidates = 2
	}
	if o.ScanLimit <= 0 {
		o.ScanLimit = 20000
	}
	if o.ExactTeamSize <= 0 {
		o.ExactTeamSize = 12
	}
	return o
}

// Stats are a pool's counters for metrics and the dashboard.
type Stats struct {
	// Tickets and Players waiting now.
	Tickets, Players int
	// Steps, AnchorTries and Scanned count work done since New.
	Steps, AnchorTries, Scanned uint64
	// Formed counts proposals, Backfills those among them that fill an
	// open session; Returned counts tickets handed back.
	Formed, Backfills, Returned uint64
	// QualitySum is the sum of the formed matches' scores (divide by
	// Formed for the mean).
	QualitySum float64
}

// Pool is the waiting room of one queue key: the state machine the
// matchmaker drives from a single goroutine. It does no I/O, reads no clock
// and starts no goroutines; every decision depends only on the tickets, the
// ruleset and the times passed in, so the simulator and tests replay it
// exactly. A Pool is not safe for concurrent use.
type Pool struct {
	key cupid.QueueKey
	// keyRef is a copy of key its proposals share (sharedKey).
	keyRef *cupid.QueueKey
	r      *rules
	opts   Options

	entries []entry
	nums    []float64 // stride floats per slot
	// masks caches each ticket's own-range region set for the Step at
	// maskAt (latency rules only).
	masks  []uint64
	maskAt []int64
	stride int
	free   []int32
	ids    idTable
	// heads holds headSize words per slot for block lists in a pool of
	// solo tickets (excludes.go).
	heads []uint64
	// exLists holds, beside the heads, each slot's block lists (slices of
	// its summary, nil for a value that is not a list), na per slot, so
	// that a hit on a head reaches the list in one read (excludes.go).
	exLists [][]uint64
	seq     uint64

	// countBase is where a slot's count-limit columns start in nums: the
	// players of the ticket holding each limit's value (group.go).
	countBase int

	// order lists slots oldest first (by CreatedAt, then arrival);
	// orderSorted is false after an out-of-order Add until the next sort.
	order       []int32
	orderSorted bool
	// idx is the primary-attribute index; pending holds slots added since
	// the last flush.
	idx     index
	pending []int32

	live, players, dead int
	// idxDead counts removed tickets still in the index; the index is
	// rebuilt without them once they outnumber the living, so walks stay
	// short even in the middle of a pass that matches most of the pool.
	idxDead int
	// idxLoose counts the removed tickets among idxDead that could not be
	// buried (their index position was unknown, or they were still
	// pending). While it is zero every unburied index entry is alive, so
	// filtering the index needs no look at the entries — a cache miss per
	// surviving ticket.
	idxLoose int

	// dirty lists slots to try as anchors at the next Step; allDirty asks
	// for every ticket; fresh lists newcomers whose neighbours may now
	// match.
	dirty    []int32
	allDirty bool
	fresh    []int32
	lastStep time.Time
	stepped  bool

	needsExtra bool
	// queries caches the compiled ticket queries by text (query.go).
	queries map[string]*ruleset.Query
	// plain: at most one distance rule and nothing else judged between
	// two tickets (no gates, no extras) but block lists, so the index
	// key and the block-list summaries alone decide.
	plain bool
	// groupExtra: a group's running state reads its tickets' extras
	// (options, latency spread, cross-play, roles, collections).
	groupExtra bool
	// maxSize is the largest party ever added (a bound, never lowered).
	maxSize int32
	// classParts counts the rules that split tickets into classes that
	// can never meet ("all" options, "=" comparisons; ticket.go).
	classParts    int
	teamRules     bool // any rule judged on complete teams (teams.go)
	teamGates     bool // a team comparison decides which teams a ticket may join (named.go)
	anySpread     bool // a distance rule with the "spread" criteria
	strIDs        map[string]uint32
	regions       map[string]uint8
	regionNames   []string
	platforms     map[string]uint8
	platformNames []string
	// classes interns combinations of three or more class values
	// (ticket.go, classOf).
	classes map[string]uint64

	stats Stats
	sc    scratch
	slab  slab
	// pass is the current Step's record of its work (anchor.go); ages the
	// class lists a Step without distance rules walks.
	pass passState
	ages ageLists
	// rank maps a slot to its place in order while rankOn (a Step over
	// the whole order), which is how the index's position table is
	// indexed (index.go).
	rank   []int32
	rankOn bool
	// bf holds the sessions open to backfill (backfill.go).
	bf backfill
	// solo is the state of a solo pass (solo.go).
	solo soloPass
}

// New makes an empty pool for one queue key under a ruleset. The ruleset is
// compiled once here; an error names the ruleset field the engine cannot run
// with.
func New(key cupid.QueueKey, rs *ruleset.Compiled, opts Options) (*Pool, error) {
	r, err := compile(rs)
	if err != nil {
		return nil, err
	}
	p := &Pool{
		key:         key,
		opts:        opts.withDefaults(),
		ids:         newIDTable(0),
		orderSorted: true,
		strIDs:      make(map[string]uint32),
		regions:     make(map[string]uint8),
		platforms:   make(map[string]uint8),
	}
	p.setRules(r)
	return p, nil
}

func (p *Pool) setRules(r *rules) {
	p.r = r
	p.stride = len(r.dist)
	for _, c := range r.comps {
		if c.gate && !c.isStr {
			p.stride += 2
		}
	}
	p.countBase = p.stride
	p.stride += len(r.counts)
	p.anySpread = false
	for _, d := range r.dist {
		p.anySpread = p.anySpread || d.spread
	}
	// Pair filters are judged as a candidate joins (group.accepts), not
	// on complete teams.
	p.teamRules = r.roles != nil || len(r.teams) > 0
	for _, f := range r.filters {
		p.teamRules = p.teamRules || f.Scope != ruleset.ExprPair
	}
	for _, c := range r.colls {
		p.teamRules = p.teamRules || (c.team && !c.contains)
	}
	for _, c := range r.comps {
		p.teamRules = p.teamRules || (!c.gate && c.op == ruleset.OpNotEqual)
	}
	p.teamRules = p.teamRules || len(r.tcomps) > 0
	p.teamGates = false
	for _, c := range r.tcomps {
		p.teamGates = p.teamGates || c.PerPlayer()
	}
	// Block lists (excludes.go) are the only filters a plain pool may
	// have: they are judged on the two tickets' summaries, which is
	// what the encounter history's queues need.
	onlyLists := true
	for i, f := range r.filters {
		onlyLists = onlyLists && r.exclOf[i] >= 0 && f.Scope == ruleset.ExprPair
	}
	other := r.lat != nil || len(r.options) > 0 || len(r.comps) > 0 || len(r.colls) > 0 ||
		r.cross != nil || r.roles != nil || len(r.scores) > 0 || len(r.tcomps) > 0 || r.namedTeams() ||
		r.query != nil
	p.needsExtra = other || len(r.filters) > 0
	// A min_distance is judged only by pairOK, so a ruleset with one is
	// never plain (pairKey's shortcut knows the maximum only).
	p.plain = !other && onlyLists && p.stride == len(r.dist) && len(r.dist) <= 1 && !r.anyMinDistance()
	p.groupExtra = len(r.options) > 0 || r.spread > 0 || r.cross != nil || r.roles != nil || len(r.colls) > 0
	p.classParts = 0
	for _, o := range r.options {
		if o.kind == optAll {
			p.classParts++
		}
	}
	for _, c := range r.comps {
		if !c.gate && c.op == ruleset.OpEqual {
			p.classParts++
		}
	}
}

// Key is the queue key the pool serves.
func (p *Pool) Key() cupid.QueueKey { return p.key }

// Check reports whether the ticket could ever match under this pool's
// ruleset, without changing the pool: the API calls it before storing a
// ticket so that one that could never match is refused up front with the
// field at fault (a party larger than a team, a missing or non-finite
// attribute a rule needs, latencies all above the cap, a role the queue does
// not have…). It compares only the queue name of the key, so one pool per
// queue can check tickets of every version; Add also requires the full key.
func (p *Pool) Check(t *cupid.Ticket) error {
	if err := p.check(p.withDefaults(t)); err != nil {
		return err
	}
	if _, dup := p.lookupID(t.ID); dup {
		return cupid.Conflict("id", "ticket %q is already waiting in this pool", t.ID)
	}
	return nil
}

// Add puts a waiting ticket in the pool. Its age counts from t.CreatedAt, so
// tickets reloaded after a restart keep the relaxation they had earned. The
// pool keeps what matching reads (players, latencies, attributes, times),
// sharing those slices and maps with t and never modifying them, and not
// the Ticket itself: proposals and Tickets return tickets rebuilt from it,
// equal to t but for RequestID and UpdatedAt, with times in UTC.
func (p *Pool) Add(t *cupid.Ticket) error {
	t = p.withDefaults(t)
	if err := p.Check(t); err != nil {
		return err
	}
	if t.Key != p.key {
		return cupid.Invalid("key", "ticket is for %q, this pool is %q", t.Key.String(), p.key.String())
	}
	p.insert(t)
	return nil
}

func (p *Pool) insert(t *cupid.Ticket) int32 {
	var slot int32
	if n := len(p.free); n > 0 {
		slot = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		slot = int32(len(p.entries))
		p.entries = append(p.entries, entry{})
		for range p.stride {
			p.nums = append(p.nums, 0)
		}
		if p.r.lat != nil {
			p.masks = append(p.masks, 0)
			p.maskAt = append(p.maskAt, math.MinInt64)
		}
	}
	p.seq++
	e := &p.entries[slot]
	*e = entry{h: hold(t), id: t.ID, pid: soloID(t), created: t.CreatedAt.UnixNano(), seq: p.seq, size: int32(len(t.Players)), alive: true}
	e.newOnly = newSessionOnly(e.h)
	p.maxSize = max(p.maxSize, e.size)
	if p.r.lat != nil {
		p.maskAt[slot] = math.MinInt64
	}
	p.extract(t, e, p.numsOf(slot))
	p.setHead(slot, e)
	p.ids.set(t.ID, slot, p.entries)
	if n := len(p.order); n > 0 && p.orderSorted {
		last := &p.entries[p.order[n-1]]
		if last.created > e.created {
			p.orderSorted = false
		}
	}
	p.order = append(p.order, slot)
	if len(p.r.dist) > 0 {
		p.pending = append(p.pending, slot)
	}
	p.live++
	p.players += int(e.size)
	p.markDirty(slot, dirtySelf)
	p.fresh = append(p.fresh, slot)
	return slot
}

func soloID(t *cupid.Ticket) string {
	if len(t.Players) == 1 {
		return t.Players[0].ID
	}
	return ""
}

func (p *Pool) numsOf(slot int32) []float64 {
	return p.nums[int(slot)*p.stride : int(slot+1)*p.stride]
}

// distValue is the ticket's value for distance rule di. The first rule's
// is the entry's key, which the anchor loop has just read: taking it from
// there spares a cache miss on the nums slab per matched ticket.
func (p *Pool) distValue(e *entry, slot int32, di int) float64 {
	if di == 0 {
		return e.key
	}
	return p.nums[int(slot)*p.stride+di]
}

func (p *Pool) markDirty(slot int32, why uint8) {
	e := &p.entries[slot]
	if e.dirty == dirtyNone {
		p.dirty = append(p.dirty, slot)
	}
	if e.dirty == dirtyNone || why == dirtySelf {
		e.dirty = why
	}
}

// Remove takes a ticket out of the pool (cancelled or expired) and reports
// whether it was waiting here.
func (p *Pool) Remove(id string) bool {
	slot, ok := p.lookupID(id)
	if !ok {
		return false
	}
	p.kill(slot)
	p.maybeCompact()
	return true
}

// kill marks a ticket gone. Its id stays in the id map until compaction
// (lookupID checks liveness): deleting from a map of a million ids one by one
// costs more than the rest of a pass, while rebuilding the map of survivors
// after a pass that matched most of the pool costs almost nothing.
func (p *Pool) kill(slot int32) { p.killAt(slot, nowhere) }

// killAt is kill for a ticket whose index position a walk just found.
func (p *Pool) killAt(slot int32, at ipos) {
	e := &p.entries[slot]
	e.alive = false
	if p.solo.on {
		// The array marks it; the index is set right when the
		// solo pass ends (solo.go, soloEnd).
		p.soloKill(slot, at)
	} else if len(p.r.dist) > 0 {
		p.idxDead++
		if !p.idx.bury(slot, at) && !(p.rankOn && p.idx.bury(slot, p.idx.located(p.rank[slot]))) {
			p.idxLoose++
		}
	}
	if p.ages.on {
		p.ages.remove(slot)
	}
	p.live--
	p.players -= int(e.size)
	p.dead++
}

// revive undoes killAt for a ticket taken earlier in the current Step, which
// settling has displaced from its match (anchor.go): the slot, its id and its
// place in the order are untouched until the Step compacts, so only the
// counters and the index entry come back.
func (p *Pool) revive(slot int32) {
	e := &p.entries[slot]
	e.alive = true
	e.dirty = dirtyNone
	p.live++
	p.players += int(e.size)
	p.dead--
	if len(p.r.dist) > 0 {
		switch p.idx.unbury(e.key, slot) {
		case 2:
			p.idxDead--
		case 1:
			p.idxDead--
			p.idxLoose--
		default:
			p.idx.insert(e.key, slot)
		}
	}
}

// Return puts back the tickets of a proposal the server could not commit.
// They keep their CreatedAt, so they lose neither age nor relaxation, and
// are tried again at the next Step. Tickets already waiting are skipped. A
// ticket the current ruleset refuses (possible only after SetRuleset) is not
// taken back but returned with the reason, so the server can end it.
func (p *Pool) Return(tickets []*cupid.Ticket) (refused []Eviction) {
	for _, t := range tickets {
		if t == nil {
			continue
		}
		if _, dup := p.lookupID(t.ID); dup {
			continue
		}
		filled := p.withDefaults(t)
		if err := p.check(filled); err != nil {
			refused = append(refused, Eviction{Ticket: t, Err: err})
			continue
		}
		p.insert(filled)
		p.stats.Returned++
	}
	return refused
}

// Times returns a waiting ticket's creation and expiry times in Unix
// nanoseconds (expires 0 when it has none), without rebuilding it.
func (p *Pool) Times(id string) (created, expires int64, ok bool) {
	slot, ok := p.lookupID(id)
	if !ok {
		return 0, 0, false
	}
	e := &p.entries[slot]
	return e.created, e.h.expires, true
}

// EachTimes calls fn with every waiting ticket's id and times (as Times
// gives them), in no particular order, without rebuilding the tickets.
func (p *Pool) EachTimes(fn func(id string, created, expires int64)) {
	for i := range p.entries {
		if e := &p.entries[i]; e.alive {
			fn(e.id, e.created, e.h.expires)
		}
	}
}

// Contains reports whether a ticket waits in the pool.
func (p *Pool) Contains(id string) bool {
	_, ok := p.lookupID(id)
	return ok
}

// Oldest is the creation time of the oldest waiting ticket; false when
// none waits.
func (p *Pool) Oldest() (time.Time, bool) {
	p.sortOrder()
	for _, s := range p.order {
		if e := &p.entries[s]; e.alive {
			return time.Unix(0, e.created).UTC(), true
		}
	}
	return time.Time{}, false
}

// Len is the number of waiting tickets.
func (p *Pool) Len() int { return p.live }

// Players is the number of waiting players.
func (p *Pool) Players() int { return p.players }

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	s := p.stats
	s.Tickets, s.Players = p.live, p.players
	return s
}

// Tickets returns the waiting tickets oldest first, for snapshots and tests.
func (p *Pool) Tickets() []*cupid.Ticket {
	p.sortOrder()
	out := make([]*cupid.Ticket, 0, p.live)
	for _, s := range p.order {
		if e := &p.entries[s]; e.alive {
			t := new(cupid.Ticket)
			p.fill(t, e)
			out = append(out, t)
		}
	}
	return out
}

// SetRuleset replaces the pool's ruleset while tickets wait. Waiting tickets
// stay, keep their age and are all tried again at the next Step under the
// new rules. Tickets the new ruleset refuses (Check would fail) are taken
// out and returned with their errors, so the server can end them with a
// reason instead of letting them wait forever. On error nothing changes.
func (p *Pool) SetRuleset(rs *ruleset.Compiled) (evicted []Eviction, err error) {
	r, err := compile(rs)
	if err != nil {
		return nil, err
	}
	old := p.Tickets()
	fresh := &Pool{
		key: p.key, opts: p.opts, ids: newIDTable(len(old)), orderSorted: true,
		strIDs: make(map[string]uint32), regions: make(map[string]uint8), platforms: make(map[string]uint8),
		stats: p.stats, lastStep: p.lastStep, stepped: p.stepped,
	}
	fresh.setRules(r)
	for _, t := range old {
		filled := fresh.withDefaults(t)
		if err := fresh.check(filled); err != nil {
			evicted = append(evicted, Eviction{Ticket: t, Err: err})
			continue
		}
		fresh.insert(filled)
	}
	fresh.allDirty = true
	// Open sessions stay open under the new rules; one they can no longer
	// hold (another team count, smaller teams) is closed, as SessionIDs
	// shows.
	for _, bs := range p.bf.open {
		_ = fresh.OpenSession(bs.s)
	}
	*p = *fresh
	return evicted, nil
}

// Eviction is a ticket a new ruleset refused, with the reason.
type Eviction struct {
	Ticket *cupid.Ticket
	Err    error
}

// sortOrder restores oldest-first order after out-of-order Adds (reloads,
// Returns).
func (p *Pool) sortOrder() {
	if p.orderSorted {
		return
	}
	sort.Slice(p.order, func(i, j int) bool {
		a, b := &p.entries[p.order[i]], &p.entries[p.order[j]]
		return a.created < b.created || (a.created == b.created && a.seq < b.seq)
	})
	p.orderSorted = true
}

// flush moves pending slots into the index: one by one when few, by a sort
// and merge when many (bulk loads).
func (p *Pool) flush() {
	if len(p.pending) == 0 {
		return
	}
	if len(p.pending) > 256 && len(p.pending) > p.idx.n/16 {
		keys := make([]float64, len(p.pending))
		for i, s := range p.pending {
			keys[i] = p.entries[s].key
		}
		p.idx.merge(keys, p.pending)
		// A bulk load's list would otherwise stay as large as the load.
		p.pending = nil
		return
	}
	for _, s := range p.pending {
		p.idx.insert(p.entries[s].key, s)
	}
	p.pending = p.pending[:0]
}

// maybeCompact drops removed tickets from the order and the index once they
// are a quarter of what is stored, and frees their slots for reuse.
func (p *Pool) maybeCompact() {
	if p.dead < 1024 || p.dead*4 < len(p.order) {
		return
	}
	p.compact()
}

func (p *Pool) compact() {
	p.flush()
	p.pruneIDs()
	keep := func(s int32) bool { return s >= 0 && p.entries[s].alive }
	// Room for every freed slot at once: after a pass that matched most
	// of a large pool, growing the list by appends cost five times its
	// size in allocations.
	p.free = slices.Grow(p.free, p.dead)
	w := 0
	for _, s := range p.order {
		if keep(s) {
			p.order[w] = s
			w++
		} else {
			p.freeSlot(s)
		}
	}
	p.order = p.order[:w]
	p.filterIndex()
	filterSlots := func(list []int32) []int32 {
		out := list[:0]
		for _, s := range list {
			if keep(s) {
				out = append(out, s)
			}
		}
		return out
	}
	p.dirty = filterSlots(p.dirty)
	p.fresh = filterSlots(p.fresh)
	p.dead = 0
}

// maybeCompactIndex drops removed tickets from the index alone; safe in the
// middle of a pass, since it leaves the order list (which the pass walks)
// untouched.
func (p *Pool) maybeCompactIndex() {
	if p.idxDead < 4096 || p.idxDead < p.idx.n-p.idxDead {
		return
	}
	p.flush()
	relocate := p.idx.posValid && p.rankOn
	p.filterIndex()
	if relocate {
		p.idx.locate(p.rank, len(p.order))
	}
}

// filterIndex drops removed tickets from the index.
func (p *Pool) filterIndex() {
	if p.idxLoose == 0 {
		p.idx.filter(func(s int32) bool { return s >= 0 })
	} else {
		p.idx.filter(func(s int32) bool { return s >= 0 && p.entries[s].alive })
	}
	p.idxDead, p.idxLoose = 0, 0
}

// lookupID finds a waiting ticket's slot.
func (p *Pool) lookupID(id string) (int32, bool) {
	slot, ok := p.ids.get(id, p.entries)
	if !ok || !p.entries[slot].alive {
		return 0, false
	}
	return slot, true
}

// pruneIDs removes dead tickets from the id map before their slots are
// freed: by rebuilding the map when most ids are dead, else one by one.
func (p *Pool) pruneIDs() {
	if p.dead > p.live {
		// The same seed: the block-list summaries of the waiting
		// tickets (excludes.go) hold hashes made with it.
		p.ids = newIDTableSeeded(p.live, p.ids.seed)
		for _, s := range p.order {
			if e := &p.entries[s]; e.alive {
				p.ids.set(e.id, s, p.entries)
			}
		}
		return
	}
	for _, s := range p.order {
		if e := &p.entries[s]; !e.alive {
			p.ids.deleteIf(e.id, s, p.entries)
		}
	}
}

func (p *Pool) freeSlot(s int32) {
	p.entries[s] = entry{}
	if na := len(p.r.exclAttrs); na > 0 && int(s+1)*na <= len(p.exLists) {
		// The removed ticket's lists are not kept alive by its slot.
		clear(p.exLists[int(s)*na : int(s+1)*na])
	}
	p.free = append(p.free, s)
}
