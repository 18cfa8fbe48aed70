package opponent

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/cupid-match/cupid"
)

// Query is an attacker's request for an opponent.
type Query struct {
	// AttackerID is never offered as its own opponent; fake opponents'
	// ids are made from it.
	AttackerID string `json:"attacker_id"`
	// MMR is the attack MMR; it picks the MMR buckets searched.
	MMR float64 `json:"mmr"`
	// Attributes are the attacker's declared query attributes: the labels
	// of the strategies and whatever the quality expression reads.
	Attributes map[string]cupid.Value `json:"attributes,omitempty"`
	// Retries is how many times the game asked before without success;
	// each retry widens the MMR window by RetryBucketWidening buckets on
	// each side. The quality expression sees it too.
	Retries int `json:"retries,omitempty"`
	// Exclude lists players not to offer, such as ones the game tried and
	// could not fight.
	Exclude []string `json:"exclude,omitempty"`
	// ReturnModel asks for the chosen entry in the result (Config has a
	// finder-wide switch too).
	ReturnModel bool `json:"return_model,omitempty"`
	// Reserve holds the defender found for this attacker (see
	// Reservations); the finder must take reservations.
	Reserve bool `json:"reserve,omitempty"`
}

// ResultType is the outcome of a query, named as the seed names them.
type ResultType string

// The outcomes of a query.
const (
	ResultSuccess      ResultType = "SUCCESS"
	ResultNoneFound    ResultType = "NONE_FOUND"
	ResultFakeOpponent ResultType = "FAKE_OPPONENT"
)

// FakeIDPrefix starts the id of every fake opponent, so a game can never
// mistake one for a real player: "fake:<attacker id>:<sequence>".
const FakeIDPrefix = "fake:"

// Result is the answer to a query.
type Result struct {
	Type ResultType `json:"type"`
	// PlayerID is the chosen player, or the generated id of a fake.
	PlayerID string `json:"player_id,omitempty"`
	// Score is the chosen candidate's quality.
	Score float64 `json:"score,omitempty"`
	// Model is the chosen entry, when asked for: with several entries
	// per player it tells which one was chosen.
	Model *Model `json:"model,omitempty"`
	// Examined is how many cached entries the query looked at.
	Examined int `json:"examined"`
	// RemovedAfterOffer is true when the entry left the cache because its
	// bucket was filled at or above PlayerRemoveAfterCandidateOfferThreshold.
	RemovedAfterOffer bool `json:"removed_after_offer,omitempty"`
	// Reservation holds the defender for the attacker when the query
	// reserved; the offer-removal threshold then applies on Confirm.
	Reservation *Reservation `json:"reservation,omitempty"`
}

// bucketIter walks one bucket's occupants in a random order: a random start
// and a random stride coprime with the count visit every occupant exactly
// once, so no hash position is favoured and nothing is allocated.
type bucketIter struct {
	b                    int32
	n, pos, stride, left int
}

// maxStride bounds the step between the occupants a query visits in one
// bucket.
const maxStride = 4

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (f *Finder) newIter(bi int32) bucketIter {
	n := f.buckets[bi].n
	it := bucketIter{b: bi, n: n, left: n, stride: 1}
	if n > 1 {
		it.pos = f.rng.IntN(n)
		// A short stride keeps the rows a query reads close together, so
		// the processor fetches them ahead instead of waiting for memory
		// on every candidate (a random stride over a million rows was
		// half a query's time); the random start still gives every
		// occupant the same chance to be examined.
		span := min(n-1, maxStride)
		for {
			it.stride = 1 + f.rng.IntN(span)
			if gcd(it.stride, n) == 1 {
				break
			}
		}
	}
	return it
}

// exclusion is an excluded id with its hash, so most candidates are ruled
// in or out by comparing integers.
type exclusion struct {
	h  uint64
	id string
}

// groupOrder sorts the label groups that a query may search by their
// penalty vectors, lexicographically in strategy order.
type groupOrder struct {
	idx  []int32
	pens []float64
	n    int // strategies
}

func (o *groupOrder) Len() int      { return len(o.idx) }
func (o *groupOrder) Swap(i, j int) { o.idx[i], o.idx[j] = o.idx[j], o.idx[i] }
func (o *groupOrder) Less(i, j int) bool {
	return o.compare(o.idx[i], o.idx[j]) < 0
}
func (o *groupOrder) compare(a, b int32) int {
	pa := o.pens[int(a)*o.n : int(a+1)*o.n]
	pb := o.pens[int(b)*o.n : int(b+1)*o.n]
	for k := range pa {
		if c := cmp.Compare(pa[k], pb[k]); c != 0 {
			return c
		}
	}
	return 0
}

// Query finds the best opponent for q. The label groups the attacker may
// fight are searched in tiers, preferred labels first (soft labels are
// crossed only when a better tier yields nobody; hard ones never); within a
// tier, the MMR window's buckets (the attacker's, plus the neighbour when the
// attack MMR is near a bucket edge, plus RetryBucketWidening more on each
// side per retry) are visited in random order, taking one occupant from each
// in turn, so the search alternates between adjacent buckets. At most
// MaxCandidates entries are examined. The best possible one wins; without
// any, a fake opponent when enabled, else NONE_FOUND. A malformed query
// changes nothing.
func (f *Finder) Query(q Query, now time.Time) (Result, error) {
	if err := f.s.checkQuery(&q); err != nil {
		f.stats.InvalidQueries++
		return Result{}, err
	}
	reserve := q.Reserve || f.s.cfg.Reservations.Always
	if reserve {
		if !f.s.cfg.Reservations.Enabled {
			f.stats.InvalidQueries++
			return Result{}, cupid.Conflict("reserve", "this finder does not take reservations (reservations.enabled is off)")
		}
		f.sweep(now)
	}
	f.stats.Queries++
	// The query lives in the finder while it runs, so handing it to a
	// QualityFunc does not move every query to the heap.
	f.q = q
	defer func() { f.q = Query{} }()
	return f.query(&f.q, reserve, now)
}

func (f *Finder) query(q *Query, reserve bool, now time.Time) (Result, error) {
	cfg := &f.s.cfg
	// Held, shielded and online players are skipped by the time in their
	// rows; a finder that has none skips the comparison.
	nowN, blocking := now.UnixNano(), len(f.h.states) > 0

	// Which label groups, in which order.
	ns := len(f.s.strategies)
	for si := range f.s.strategies {
		st := &f.s.strategies[si]
		v, ok := q.Attributes[f.s.qattrs[st.qattr].name]
		ql := queryLabel{present: ok}
		if ok {
			ql.id, ql.known = f.labels[si].ids[labelKey(v)]
			ql.rank = st.labelRank(v)
		}
		f.qlabels[si] = ql
	}
	if need := len(f.groups) * ns; cap(f.pens) < need {
		f.pens = make([]float64, need)
	} else {
		f.pens = f.pens[:need]
	}
	f.order = f.order[:0]
	for gi := range f.groups {
		if f.groupPenalty(&f.groups[gi], f.qlabels, f.pens[gi*ns:(gi+1)*ns]) {
			f.order = append(f.order, int32(gi))
		}
	}
	order := &f.gorder
	*order = groupOrder{idx: f.order, pens: f.pens, n: ns}
	if ns > 0 && len(f.order) > 1 {
		sort.Stable(order)
	}

	// The MMR window.
	m0, at := f.s.mmrIndex(q.MMR)
	count := cfg.MmrBucketCount
	r := min(q.Retries, count)*cfg.RetryBucketWidening + cfg.BaseBucketRadius
	r = min(r, count)
	lo, hi := m0-r, m0+r
	if at < cfg.BoundaryFraction {
		lo--
	} else if at > 1-cfg.BoundaryFraction {
		hi++
	}
	lo, hi = max(lo, 0), min(hi, count-1)

	f.prepareExclusions(q)
	if xq := f.s.quality; xq != nil {
		f.prepareCtx(q)
		if xq.needsVM() {
			f.prepareEnv(q)
		}
	}

	bestB, bestI := int32(-1), -1
	bestScore := 0.0
	examined := 0
	for t := 0; t < len(f.order) && examined < cfg.MaxCandidates && bestB < 0; {
		u := t + 1
		for u < len(f.order) && order.compare(f.order[t], f.order[u]) == 0 {
			u++
		}
		f.iters = f.iters[:0]
		for _, gi := range f.order[t:u] {
			g := &f.groups[gi]
			for m := lo; m <= hi; m++ {
				if bi := g.buckets[m]; bi >= 0 && f.buckets[bi].n > 0 {
					f.iters = append(f.iters, f.newIter(bi))
				}
			}
		}
		t = u
		for i := len(f.iters) - 1; i > 0; i-- {
			j := f.rng.IntN(i + 1)
			f.iters[i], f.iters[j] = f.iters[j], f.iters[i]
		}
		active := len(f.iters)
		for active > 0 && examined < cfg.MaxCandidates {
			for k := 0; k < active && examined < cfg.MaxCandidates; {
				it := &f.iters[k]
				if it.left == 0 {
					f.iters[k] = f.iters[active-1]
					active--
					continue
				}
				i := it.pos
				it.pos += it.stride
				if it.pos >= it.n {
					it.pos -= it.n
				}
				it.left--
				k++
				examined++
				b := f.buckets[it.b]
				if f.excluded(b.hash(i), b.ids[i]) || blocking && b.until(i) > nowN {
					continue
				}
				score, ok := f.judge(q, b, i)
				if ok && (bestB < 0 || score > bestScore) {
					bestB, bestI, bestScore = it.b, i, score
				}
			}
		}
	}
	f.stats.Examined += uint64(examined)

	switch {
	case bestB >= 0:
		b := f.buckets[bestB]
		res := Result{Type: ResultSuccess, PlayerID: b.ids[bestI], Score: bestScore, Examined: examined}
		if q.ReturnModel || cfg.ReturnModel {
			res.Model = &Model{PlayerID: res.PlayerID, Entries: []Entry{f.entryAt(b, bestI)}}
		}
		if reserve {
			r, err := f.hold(q, res.PlayerID, b.key, now)
			if err != nil {
				return Result{}, err
			}
			c := *r // the caller's copy
			res.Reservation = &c
		} else if b.fill() >= f.s.removeLevel {
			f.removeAt(b, bestI)
			f.stats.OfferRemoved++
			res.RemovedAfterOffer = true
		}
		f.stats.Successes++
		return res, nil
	case cfg.FakeOpponents.Enabled:
		seq := f.fakeSeq
		f.fakeSeq++
		res := Result{
			Type:     ResultFakeOpponent,
			PlayerID: FakeIDPrefix + q.AttackerID + ":" + strconv.FormatUint(seq, 10),
			Examined: examined,
		}
		e := f.fakeEntry(q, seq)
		if q.ReturnModel || cfg.ReturnModel {
			res.Model = &Model{PlayerID: res.PlayerID, Entries: []Entry{e}}
		}
		f.stats.Fakes++
		return res, nil
	}
	f.stats.NoneFound++
	return Result{Type: ResultNoneFound, Examined: examined}, nil
}

// prepareExclusions hashes the attacker and the excluded ids; long lists are
// sorted by hash for binary search.
func (f *Finder) prepareExclusions(q *Query) {
	ex := f.exclHash[:0]
	ex = append(ex, hashID(q.AttackerID))
	for _, id := range q.Exclude {
		ex = append(ex, hashID(id))
	}
	f.exclHash = ex
	f.exclIDs = f.exclIDs[:0]
	if len(q.Exclude) > 8 {
		f.exclIDs = append(f.exclIDs, exclusion{ex[0], q.AttackerID})
		for i, id := range q.Exclude {
			f.exclIDs = append(f.exclIDs, exclusion{ex[i+1], id})
		}
		slices.SortFunc(f.exclIDs, func(a, b exclusion) int { return cmp.Compare(a.h, b.h) })
	}
	f.exclList = q.Exclude
	f.exclAttacker = q.AttackerID
}

// excluded reports whether a candidate is the attacker or an excluded player.
func (f *Finder) excluded(h uint64, id string) bool {
	if len(f.exclIDs) == 0 {
		for k, eh := range f.exclHash {
			if eh != h {
				continue
			}
			if k == 0 && id == f.exclAttacker || k > 0 && id == f.exclList[k-1] {
				return true
			}
		}
		return false
	}
	ids := f.exclIDs
	i, _ := slices.BinarySearchFunc(ids, h, func(e exclusion, h uint64) int { return cmp.Compare(e.h, h) })
	for ; i < len(ids) && ids[i].h == h; i++ {
		if ids[i].id == id {
			return true
		}
	}
	return false
}

// fakeEntry makes a fake opponent for q: the configured generator, or the
// attacker's MMR moved by up to MMRJitter with the attacker's labels, so it
// looks like what the attacker would have met.
func (f *Finder) fakeEntry(q *Query, seq uint64) Entry {
	if fn := f.s.cfg.FakeOpponents.Func; fn != nil {
		return fn(q, seq)
	}
	e := Entry{MMR: q.MMR}
	if j := f.s.cfg.FakeOpponents.MMRJitter; j > 0 {
		e.MMR += j * (2*f.rng.Float64() - 1)
	}
	for si := range f.s.strategies {
		st := &f.s.strategies[si]
		if v, ok := q.Attributes[f.s.qattrs[st.qattr].name]; ok {
			if e.Attributes == nil {
				e.Attributes = make(map[string]cupid.Value, len(f.s.strategies))
			}
			e.Attributes[f.s.attrs[st.attr].name] = v
		}
	}
	return e
}
