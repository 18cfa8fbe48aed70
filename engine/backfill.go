package engine

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Backfill: waiting tickets join running games before new matches form.
//
// A match becomes a game session; a session with free seats is open to
// backfill (AccelByte's auto_backfill, or a game server asking by hand) and
// the service tells the pool with OpenSession. Each Step first offers the open
// sessions, oldest opened first, the waiting tickets that fit them — the
// AccelByte default, "prioritize backfilling the session that still has an
// open slot before creating a new match" — and only then forms new matches
// from the tickets left. The parties already in a session are never moved or
// split (Pragma's "a game instance cannot have parties taken from it"); a
// waiting party goes whole into one team with enough free seats.
//
// Who judges: each candidate, at its own wait, as if it were the anchor of a
// match holding the session's players. So every rule flexes on the
// candidate's wait, as it would for the ticket a new match is built around:
//
//   - distance rules: every player already in the session (and every ticket
//     taken for it in this Step) lies within the candidate's allowed
//     distance of the candidate's value (its party's average), as the
//     anchor's candidates lie within its distance; "spread" rules bound the
//     spread of everyone, candidate included. The session's players are
//     judged one by one: the session does not know their parties, and a
//     party that lost a player is no longer the party that was matched.
//   - comparison rules: numeric gates at the candidate's level; "=" holds
//     across the session; "!=" across teams (the candidate differs from the
//     players of the other teams).
//   - match options against the session's (Session.MatchOptions, else the
//     players' attributes): "all" the same set, "any" a value in common,
//     "unique" a value nobody in the session has.
//   - collections (match and team scope), with the candidate's minimum.
//   - cross-play both ways with the session's players.
//   - latency: the candidate reaches the session's region within its own
//     range at its wait (the session cannot move).
//   - role quotas: in the candidate's team, the players already there keep
//     their roles and count against each maximum; the newcomers must take
//     roles within the maxima, leaving the free seats still able to reach
//     every minimum at the candidate's level.
//   - team sizes: a party fits the free seats of one team.
//
// With OptionsOnly (match_options_referred_for_backfill) the rules comparing
// the candidate with the session's players are skipped — distance,
// comparisons between tickets, collections — and only the match options are
// compared, as AccelByte describes: the attributes a game server added to its
// session since do not keep players out. What cannot be waived still holds:
// seats, whole parties, role quotas, the region, cross-play (players on
// platforms that cannot play together cannot share a server) and the
// candidate's own gates. A ticket with new_session_only never joins a session.
//
// Rules on whole teams or the whole match — team_rule, match_total, match
// and pair expression filters — are not judged against a session: they were
// judged when the match formed, and a running game missing players would
// fail most of them until full. Block lists are the exception
// (sessionListsOK): they are about two people, not the match's shape.
//
// Which candidates first: with a distance rule, the nearest to the session's
// players (the mean of their primary attribute), then the oldest. The
// players of a running game cannot be rebalanced, so the newcomer who
// disturbs its skill picture least is the best one; the distance rules,
// flexing on each candidate's wait, already keep a young ticket from taking
// a seat an old one could not, and an old ticket left out still forms a new
// match in the same Step. Without a distance rule, the oldest first. A
// session takes as many tickets as fit in one Step and accepts a partial
// fill. A ticket goes to the team with the most free seats, then to the one
// that leaves the teams' averages of the first balancing attribute closest
// (a strong newcomer joins the weaker side), then the first in team order.
//
// Cost: a session is searched whole only when it is new or opened again (or
// after SetRuleset, or when more than an eighth of the pool is new at once);
// otherwise only against the tickets with something new — arrivals,
// returns, tickets that just relaxed — that fall in its window, which finds
// the same (a ticket refused before with nothing new is refused again). A
// whole search walks the primary index outward from the session's mean
// within the window any flex level could reach ([highest − widest distance,
// lowest + widest distance] over the session's players), stopping when the
// seats are full or after Options.ScanLimit tickets. When the players'
// spread needs a flex level young tickets have not reached, and the tickets
// old enough are fewer than the window holds, it looks at those alone
// (oldest first in the pool's order, then sorted by distance). Without a
// distance rule it walks the tickets oldest first under the same limit. So a
// Step costs at most S·ScanLimit rule checks for S sessions searched whole,
// O(log N) plus the news in its window for each other session, and nothing
// when no session is open. (1,000 sessions opened at once over 100,000
// tickets: about 15 ms when they fill from their nearest tickets, 0.8 s when
// every ticket of every window is refused; BenchmarkBackfill1000x100k.)

// Session is a running game open to backfill, as the pool sees it. The pool
// keeps its slices and maps, shared with the caller, and never modifies them.
type Session struct {
	// ID is the session's id (the service uses the match id).
	ID string
	// Teams holds one entry per team of the ruleset, in team order.
	Teams []SessionTeam
	// Region is where the session is hosted; required with latency rules
	// (a candidate must accept it at its wait), else only copied to the
	// proposals.
	Region string
	// Roles maps a player id to its role, for role quotas (may be nil).
	// Players without a role here, or with a role the queue does not
	// have, count for no role.
	Roles map[string]string
	// MatchOptions, when set, are the session's match options (option
	// name -> a string or a list of strings) that candidates are compared
	// with; an option of the ruleset missing here is unset. When nil, the
	// options are read from the players' attributes, and an option none of
	// them carries is not judged.
	MatchOptions map[string]any
	// OptionsOnly (the ruleset's match_options_referred_for_backfill)
	// compares only the match options and skips the attribute rules
	// against the session's players.
	OptionsOnly bool
	// Opened is when backfill opened: the oldest open session is filled
	// first (ties by ID).
	Opened time.Time
}

// SessionTeam is one team of a session.
type SessionTeam struct {
	// Players are the players in the team now, with their attributes
	// (never moved). An attribute a rule reads that a player lacks leaves
	// that player out of that rule.
	Players []cupid.Player
	// Free is how many seats are open in this team (may be 0).
	Free int
}

// SessionPlayers returns a ticket's players as a session should hold them:
// each with the ticket-wide attributes it does not carry itself added, since
// a session knows players, not tickets, and AccelByte's rulesets put match
// options on the ticket. The ticket is not modified.
func SessionPlayers(t *cupid.Ticket) []cupid.Player {
	out := slices.Clone(t.Players)
	if len(t.Attributes) == 0 {
		return out
	}
	for i := range out {
		attrs := slices.Clone(out[i].Attributes)
		for _, a := range t.Attributes {
			if _, own := attrs.Get(a.Name); !own {
				attrs.Set(a.Name, a.Value)
			}
		}
		out[i].Attributes = attrs
	}
	return out
}

// bsession is an open session as the pool prepared it: the numbers and
// interned values the candidate checks read.
type bsession struct {
	s     Session
	dirty bool // new or opened again: search it whole at the next Step
	teams []bteam
	// lo, hi, sum and cnt describe each distance rule's values over the
	// players (cnt 0: nobody carries it).
	lo, hi, sum []float64
	cnt         []int
	// vals holds, per distance rule with a min_distance, every player's
	// value: a newcomer must be that far from each (nil for the others).
	vals    [][]float64
	eq      [][]uint32 // per comparison rule ("=" only): distinct value ids
	allIDs  []uint32   // per "all" option; judged only where allSet
	allSet  []bool
	anySets [][]uint32 // per "any" option; nil: no preference
	uniq    [][]uint32 // per "unique" option: values taken
	coll    [][]uint32 // per match-scope collection: shared values
	collSet []bool
	plat    uint64 // platforms of the players
	accept  uint64 // platforms every player accepts
	// ids are the players' ids and listed, per block-list attribute
	// (rules.exclAttrs), the ids they list there, both sorted: a newcomer
	// whose players are listed, or who lists one of the players, stays
	// out (sessionListsOK).
	ids    []string
	listed [][]string
}

type bteam struct {
	free     int
	neq      [][]uint32 // per comparison rule ("!=" only): value ids
	coll     [][]uint32 // per team-scope collection: shared values
	collSet  []bool
	roleUsed []int // per role: players holding it
	// sum and n total the first balancing attribute over the players
	// that carry it, for the team choice.
	sum float64
	n   int
}

// backfill is the pool's set of open sessions.
type backfill struct {
	open  []*bsession // oldest opened first, then by ID
	byID  map[string]*bsession
	dirty int // open sessions with dirty set
	// news is this Step's tickets with something new, by primary key
	// (else oldest first).
	news []int32
	fill bfill
}

// OpenSession adds a session open to backfill or replaces the one with the
// same ID (the service calls it again with new seats after a backfill commits
// or a player leaves). The next Step searches it whole. An error (naming the
// field, as cupid.Invalid) changes nothing: an empty ID, a wrong team count,
// a negative Free, no free seat at all, a team over the ruleset's largest,
// a player id missing or twice, no region under latency rules, a match option
// or an attribute a rule reads of the wrong kind.
func (p *Pool) OpenSession(s Session) error {
	bs, err := p.prepareSession(p.sessionDefaults(s))
	if err != nil {
		return err
	}
	b := &p.bf
	if b.byID == nil {
		b.byID = make(map[string]*bsession)
	}
	if old, ok := b.byID[s.ID]; ok {
		p.dropSession(old)
	}
	b.byID[s.ID] = bs
	i := sort.Search(len(b.open), func(i int) bool { return sessionBefore(bs, b.open[i]) })
	b.open = slices.Insert(b.open, i, bs)
	b.dirty++
	return nil
}

func sessionBefore(a, b *bsession) bool {
	if !a.s.Opened.Equal(b.s.Opened) {
		return a.s.Opened.Before(b.s.Opened)
	}
	return a.s.ID < b.s.ID
}

// CloseSession removes an open session (full, closed by hand, ended); false
// if the pool does not hold it open.
func (p *Pool) CloseSession(id string) bool {
	bs, ok := p.bf.byID[id]
	if !ok {
		return false
	}
	p.dropSession(bs)
	return true
}

func (p *Pool) dropSession(bs *bsession) {
	b := &p.bf
	delete(b.byID, bs.s.ID)
	if i := slices.Index(b.open, bs); i >= 0 {
		b.open = slices.Delete(b.open, i, i+1)
	}
	if bs.dirty {
		b.dirty--
	}
}

// Sessions is how many sessions are open in the pool. A session with a
// backfill proposal outstanding is not: the service opens it again after
// the commit (with its new seats) or the refusal.
func (p *Pool) Sessions() int { return len(p.bf.open) }

// SessionIDs lists the open sessions, oldest opened first.
func (p *Pool) SessionIDs() []string {
	out := make([]string, len(p.bf.open))
	for i, bs := range p.bf.open {
		out[i] = bs.s.ID
	}
	return out
}

// allianceBounds are the fewest and most teams, and the most players in a
// team, any flex level allows.
func (r *rules) allianceBounds() (minTeams, maxTeams, maxPlayers int) {
	minTeams = math.MaxInt
	for i := range r.envs {
		e := &r.envs[i]
		minTeams = min(minTeams, e.minTeams)
		maxTeams = max(maxTeams, e.maxTeams)
		maxPlayers = max(maxPlayers, e.maxPlayers)
	}
	return minTeams, maxTeams, maxPlayers
}

// prepareSession checks a session and computes what the candidate checks
// read. It interns values into the pool's tables only once every check has
// passed.
func (p *Pool) prepareSession(s Session) (*bsession, error) {
	r := p.r
	if s.ID == "" {
		return nil, cupid.Invalid("id", "required")
	}
	if err := r.namedBackfill(); err != nil {
		return nil, err
	}
	minT, maxT, maxP := r.allianceBounds()
	if len(s.Teams) < minT || len(s.Teams) > maxT {
		want := fmt.Sprintf("%d", maxT)
		if minT != maxT {
			want = fmt.Sprintf("%d to %d", minT, maxT)
		}
		return nil, cupid.Invalid("teams", "%d teams, the ruleset's matches have %s", len(s.Teams), want)
	}
	free := 0
	seen := make(map[string]bool)
	for ti, t := range s.Teams {
		if t.Free < 0 {
			return nil, cupid.Invalid(fmt.Sprintf("teams[%d].free", ti), "must not be negative, got %d", t.Free)
		}
		if len(t.Players)+t.Free > maxP {
			return nil, cupid.Invalid(fmt.Sprintf("teams[%d]", ti), "%d players and %d free seats exceed the ruleset's largest team (%d players)", len(t.Players), t.Free, maxP)
		}
		free += t.Free
		for pi, pl := range t.Players {
			field := fmt.Sprintf("teams[%d].players[%d].id", ti, pi)
			if pl.ID == "" {
				return nil, cupid.Invalid(field, "required")
			}
			if seen[pl.ID] {
				return nil, cupid.Invalid(field, "player %q appears twice in the session", pl.ID)
			}
			seen[pl.ID] = true
		}
	}
	if free == 0 {
		return nil, cupid.Invalid("teams", "no free seat: a full session is not open to backfill")
	}
	if r.lat != nil && s.Region == "" {
		return nil, cupid.Invalid("region", "required: the queue matches by region latency")
	}
	opts, err := sessionOptions(s.MatchOptions)
	if err != nil {
		return nil, err
	}
	if err := p.checkSessionPlayers(&s); err != nil {
		return nil, err
	}
	return p.buildSession(s, opts), nil
}

// sessionOptions reads Session.MatchOptions as lists of strings.
func sessionOptions(m map[string]any) (map[string][]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string][]string, len(m))
	for name, v := range m {
		var vals []string
		switch x := v.(type) {
		case string:
			vals = []string{x}
		case []string:
			vals = x
		case cupid.Value:
			switch x.Kind {
			case cupid.KindString:
				vals = []string{x.String}
			case cupid.KindStrings:
				vals = x.Strings
			default:
				return nil, cupid.Invalid("match_options."+name, "must be a string or a list of strings")
			}
		case []any:
			for _, e := range x {
				str, ok := e.(string)
				if !ok {
					return nil, cupid.Invalid("match_options."+name, "must be a string or a list of strings, not a list holding %T", e)
				}
				vals = append(vals, str)
			}
		default:
			return nil, cupid.Invalid("match_options."+name, "must be a string or a list of strings, not %T", v)
		}
		out[name] = vals
	}
	return out, nil
}

// checkSessionPlayers refuses an attribute a rule reads that holds a kind of
// value the rule cannot read (a missing one leaves the player out of that
// rule), and more platforms than a pool can tell apart.
func (p *Pool) checkSessionPlayers(s *Session) error {
	var newPlatforms []string
	for ti := range s.Teams {
		for pi := range s.Teams[ti].Players {
			plats, err := p.checkSessionPlayer(&s.Teams[ti].Players[pi], fmt.Sprintf("teams[%d].players[%d]", ti, pi))
			if err != nil {
				return err
			}
			for _, name := range plats {
				if _, known := p.platforms[name]; name != "" && !known && !slices.Contains(newPlatforms, name) {
					newPlatforms = append(newPlatforms, name)
				}
			}
		}
	}
	if len(p.platformNames)+len(newPlatforms) > 64 {
		return cupid.Invalid("teams", "more than 64 distinct platforms in one queue")
	}
	return nil
}

// CheckSessionPlayer checks the attributes of a player a game server puts
// in a session (what OpenSession will read of him), naming the field under
// prefix ("teams[0].players[1]"): the rules that read an attribute decide
// which kinds of value it may hold, here and nowhere else, so a session
// refused by the pool later cannot have been stored.
func (p *Pool) CheckSessionPlayer(pl cupid.Player, prefix string) error {
	_, err := p.checkSessionPlayer(&pl, prefix)
	return err
}

// checkSessionPlayer is CheckSessionPlayer; it also returns the platforms
// the player names (cross play), for the pool's bound on them.
func (p *Pool) checkSessionPlayer(pl *cupid.Player, prefix string) ([]string, error) {
	r := p.r
	field := func(name string) string { return prefix + ".attributes." + name }
	for _, d := range r.dist {
		if v, ok := pl.Attributes.Resolve(d.attr); ok && (v.Kind != cupid.KindNumber || !cupid.Finite(v.Number)) {
			return nil, cupid.Invalid(field(d.attr), "must be a finite number (%s)", d.path)
		}
	}
	for _, c := range r.comps {
		if c.gate {
			continue
		}
		if v, ok := pl.Attributes.Resolve(c.attr); ok {
			if _, ok := scalarKey(v); !ok {
				return nil, cupid.Invalid(field(c.attr), "must be a string or a number (%s)", c.path)
			}
		}
	}
	names := make([]string, 0, len(r.options)+len(r.colls))
	for _, o := range r.options {
		names = append(names, o.name)
	}
	for _, c := range r.colls {
		names = append(names, c.attr)
	}
	for _, name := range names {
		if v, ok := pl.Attributes.Get(name); ok && v.Kind != cupid.KindString && v.Kind != cupid.KindStrings {
			return nil, cupid.Invalid(field(name), "must be a string or a list of strings")
		}
	}
	var plats []string
	if c := r.cross; c != nil {
		v, ok := pl.Attributes.Get(c.Current)
		if ok && (v.Kind != cupid.KindString || v.String == "") {
			return nil, cupid.Invalid(field(c.Current), "must be a platform name (cross_play)")
		}
		plats = append(plats, v.String)
		if acc, ok := pl.Attributes.Get(c.Accepted); ok {
			if acc.Kind != cupid.KindString && acc.Kind != cupid.KindStrings {
				return nil, cupid.Invalid(field(c.Accepted), "must be a string or a list of strings")
			}
			plats = append(plats, acc.String)
			plats = append(plats, acc.Strings...)
		}
	}
	if rr := r.roles; rr != nil {
		if v, ok := pl.Attributes.Get(rr.attr); ok && v.Kind != cupid.KindString && v.Kind != cupid.KindStrings {
			return nil, cupid.Invalid(field(rr.attr), "must be a string or a list of strings")
		}
	}
	return plats, nil
}

// playerStrs reads a string or string-list attribute of a session player.
func playerStrs(pl *cupid.Player, name string) ([]string, bool) {
	v, ok := pl.Attributes.Get(name)
	if !ok {
		return nil, false
	}
	if v.Kind == cupid.KindString {
		return []string{v.String}, true
	}
	return v.Strings, true
}

// buildSession computes a checked session's prepared form.
func (p *Pool) buildSession(s Session, opts map[string][]string) *bsession {
	r := p.r
	bs := &bsession{s: s, dirty: true}
	nd := len(r.dist)
	bs.lo, bs.hi, bs.sum, bs.cnt = make([]float64, nd), make([]float64, nd), make([]float64, nd), make([]int, nd)
	for i := range r.dist {
		bs.lo[i], bs.hi[i] = math.Inf(1), math.Inf(-1)
	}
	if r.anyMinDistance() {
		bs.vals = make([][]float64, nd)
	}
	bs.eq = make([][]uint32, len(r.comps))
	bs.coll = make([][]uint32, len(r.colls))
	bs.collSet = make([]bool, len(r.colls))
	bs.accept = ^uint64(0)
	bs.teams = make([]bteam, len(s.Teams))
	bs.listed = make([][]string, len(r.exclAttrs))
	for ti := range s.Teams {
		st := &s.Teams[ti]
		bt := &bs.teams[ti]
		bt.free = st.Free
		bt.neq = make([][]uint32, len(r.comps))
		bt.coll = make([][]uint32, len(r.colls))
		bt.collSet = make([]bool, len(r.colls))
		if rr := r.roles; rr != nil {
			bt.roleUsed = make([]int, len(rr.names))
		}
		for pi := range st.Players {
			pl := &st.Players[pi]
			if len(r.exclAttrs) > 0 {
				bs.ids = append(bs.ids, pl.ID)
				for k, attr := range r.exclAttrs {
					bs.listed[k] = append(bs.listed[k], ownList(pl, attr)...)
				}
			}
			for i, d := range r.dist {
				if v, ok := pl.Attributes.Resolve(d.attr); ok {
					bs.lo[i], bs.hi[i] = min(bs.lo[i], v.Number), max(bs.hi[i], v.Number)
					bs.sum[i] += v.Number
					bs.cnt[i]++
					if bs.vals != nil && r.c.Matching[i].MinDistance != nil {
						bs.vals[i] = append(bs.vals[i], v.Number)
					}
					if len(r.balance) > 0 && r.balance[0] == i {
						bt.sum += v.Number
						bt.n++
					}
				}
			}
			for i, c := range r.comps {
				if c.gate {
					continue
				}
				v, ok := pl.Attributes.Resolve(c.attr)
				if !ok {
					continue
				}
				k, _ := scalarKey(v)
				id := p.intern(k)
				if c.op == ruleset.OpEqual {
					bs.eq[i] = addID(bs.eq[i], id)
				} else if c.op == ruleset.OpNotEqual {
					bt.neq[i] = addID(bt.neq[i], id)
				}
			}
			for i, c := range r.colls {
				if c.contains {
					continue
				}
				vals, ok := playerStrs(pl, c.attr)
				if !ok {
					continue
				}
				ids := p.internAll(vals)
				if c.team {
					bt.coll[i], bt.collSet[i] = intersectOrSet(bt.coll[i], bt.collSet[i], ids), true
				} else {
					bs.coll[i], bs.collSet[i] = intersectOrSet(bs.coll[i], bs.collSet[i], ids), true
				}
			}
			if c := r.cross; c != nil {
				if v, ok := pl.Attributes.Get(c.Current); ok {
					bs.plat |= 1 << p.platform(v.String)
					list, ok := playerStrs(pl, c.Accepted)
					if !ok {
						list = []string{v.String}
					}
					var m uint64
					for _, name := range list {
						m |= 1 << p.platform(name)
					}
					bs.accept &= m
				}
			}
			if rr := r.roles; rr != nil {
				if k := slices.Index(rr.names, s.Roles[pl.ID]); k >= 0 {
					bt.roleUsed[k]++
				}
			}
		}
	}
	for _, o := range r.options {
		vals, set := opts[o.name]
		judged := opts != nil
		if opts == nil {
			// From the players: "all" takes the first player's set,
			// "any" what they all share, "unique" what they hold.
			for ti := range s.Teams {
				for pi := range s.Teams[ti].Players {
					pv, ok := playerStrs(&s.Teams[ti].Players[pi], o.name)
					if !ok {
						continue
					}
					switch {
					case !set:
						vals, set = pv, true
					case o.kind == optAny:
						vals = intersectStrings(vals, pv)
					case o.kind == optUnique:
						vals = append(slices.Clone(vals), pv...)
					}
				}
			}
			judged = set
		}
		switch o.kind {
		case optAll:
			id := uint32(0)
			if set {
				id = p.intern("\x00set\x00" + strings.Join(canonicalSet(vals), "\x00"))
			}
			bs.allIDs = append(bs.allIDs, id)
			bs.allSet = append(bs.allSet, judged)
		case optAny:
			var ids []uint32
			if set {
				ids = p.internAll(vals)
			}
			bs.anySets = append(bs.anySets, ids)
		case optUnique:
			bs.uniq = append(bs.uniq, p.internAll(vals))
		}
	}
	slices.Sort(bs.ids)
	for k := range bs.listed {
		bs.listed[k] = slices.Compact(slices.Sorted(slices.Values(bs.listed[k])))
	}
	return bs
}

// addID adds id to a small set kept sorted.
func addID(set []uint32, id uint32) []uint32 {
	i, found := slices.BinarySearch(set, id)
	if found {
		return set
	}
	return slices.Insert(set, i, id)
}

// intersectOrSet is the running intersection of value sets: the first set
// as it is, then what every set shares.
func intersectOrSet(cur []uint32, started bool, ids []uint32) []uint32 {
	if !started {
		return ids
	}
	return intersectIDs(cur, ids)
}

// bfill is one session's search in one Step: the session's state with the
// tickets taken so far.
type bfill struct {
	bs       *bsession
	lo, hi   []float64
	cnt      []int
	vals     [][]float64 // bsession.vals with the tickets taken
	eq       [][]uint32
	anySets  [][]uint32
	uniq     [][]uint32
	coll     [][]uint32
	collSet  []bool
	plat     uint64
	accept   uint64
	region   int // the session's region id; -1 without latency rules
	teams    []tfill
	takenAny bool
	first    int32   // the first ticket taken
	list     []int32 // scratch: the news in the window
}

// tfill is one team's part of a bfill.
type tfill struct {
	left    int // free seats left
	taken   []cand
	neq     [][]uint32
	coll    [][]uint32
	collSet []bool
	// masks and prefs are the roles the newcomers accept, player by
	// player.
	masks []uint64
	prefs []int8
	// sum and n are bteam's, newcomers included.
	sum float64
	n   int
}

// start sets the fill up for session bs; false when no ticket could join
// it now (its region is one no waiting ticket reaches).
func (f *bfill) start(p *Pool, bs *bsession) bool {
	f.bs = bs
	f.region = -1
	if p.r.lat != nil {
		id, ok := p.regions[bs.s.Region]
		if !ok {
			return false
		}
		f.region = int(id)
	}
	f.lo = append(f.lo[:0], bs.lo...)
	f.hi = append(f.hi[:0], bs.hi...)
	f.cnt = append(f.cnt[:0], bs.cnt...)
	f.vals = f.vals[:0]
	for _, vs := range bs.vals {
		f.vals = append(f.vals, slices.Clone(vs))
	}
	f.eq = cloneSets(f.eq, bs.eq)
	f.anySets = cloneSets(f.anySets, bs.anySets)
	f.uniq = cloneSets(f.uniq, bs.uniq)
	f.coll = cloneSets(f.coll, bs.coll)
	f.collSet = append(f.collSet[:0], bs.collSet...)
	f.plat, f.accept = bs.plat, bs.accept
	f.teams = sized(f.teams, len(bs.teams))
	for ti := range bs.teams {
		bt, tf := &bs.teams[ti], &f.teams[ti]
		tf.left = bt.free
		tf.sum, tf.n = bt.sum, bt.n
		tf.neq = cloneSets(tf.neq, bt.neq)
		tf.coll = cloneSets(tf.coll, bt.coll)
		tf.collSet = append(tf.collSet[:0], bt.collSet...)
	}
	f.takenAny = false
	f.first = -1
	return true
}

// cloneSets copies a list of id sets; the sets themselves are shared and
// replaced, never modified in place.
func cloneSets(dst, src [][]uint32) [][]uint32 {
	return append(dst[:0], src...)
}

// seatsLeft is how many seats the fill has not taken yet.
func (f *bfill) seatsLeft() int {
	n := 0
	for i := range f.teams {
		n += f.teams[i].left
	}
	return n
}

// newSessionOnly reports whether a ticket asked never to be backfilled
// (the reserved key new_session_only, on the ticket or on any player).
func newSessionOnly(h *held) bool {
	for i := range h.players {
		if v, ok := lookup(h.attributes, &h.players[i], ruleset.KeyNewSessionOnly); ok && v.Kind == cupid.KindBool && v.Bool {
			return true
		}
	}
	return false
}

// tryBackfill judges ticket s for the session and, when some team takes it, adds it
// there; at is where the index walk found it.
func (p *Pool) tryBackfill(f *bfill, s int32, at ipos, now time.Time) bool {
	e := &p.entries[s]
	if !e.alive || e.newOnly {
		return false
	}
	size := int(e.size)
	fits := false
	for i := range f.teams {
		fits = fits || f.teams[i].left >= size
	}
	if !fits {
		return false
	}
	wait := p.waitOf(e, now)
	env := &p.r.envs[p.r.level(wait)]
	optionsOnly := f.bs.s.OptionsOnly
	if !optionsOnly {
		for i, d := range p.r.dist {
			if f.cnt[i] == 0 {
				continue
			}
			v := p.distValue(e, s, i)
			lo, hi := f.lo[i], f.hi[i]
			if d.spread {
				if max(hi, v)-min(lo, v) > env.ref[i] {
					return false
				}
			} else if v-lo > env.ref[i] || hi-v > env.ref[i] {
				return false
			}
			if len(f.vals) > i {
				for _, u := range f.vals[i] {
					if math.Abs(v-u) < env.minRef[i] {
						return false
					}
				}
			}
		}
	}
	x := e.x
	if f.region >= 0 && maskAt(x.lats, p.r.latRange(wait))&(1<<f.region) == 0 {
		return false
	}
	if p.gateOK(s, env).kind != rOK {
		return false
	}
	if x != nil && !p.sessionPairOK(f, x, env, optionsOnly) {
		return false
	}
	if len(p.r.exclAttrs) > 0 && !p.sessionListsOK(f, e, env, now) {
		return false
	}
	// The team: the most free seats left first, then the one that leaves
	// the teams' averages closest, then team order.
	var order [16]int
	teams := order[:0]
	for i := range f.teams {
		if f.teams[i].left >= size {
			teams = append(teams, i)
		}
	}
	if len(teams) > 1 {
		slices.SortStableFunc(teams, func(a, b int) int {
			if c := f.teams[b].left - f.teams[a].left; c != 0 {
				return c
			}
			ga, gb := p.gapWith(f, a, e, s), p.gapWith(f, b, e, s)
			switch {
			case ga < gb:
				return -1
			case ga > gb:
				return 1
			}
			return 0
		})
	}
	for _, ti := range teams {
		if x != nil && !p.sessionTeamOK(f, ti, x, env, optionsOnly) {
			continue
		}
		f.take(p, s, ti, at)
		return true
	}
	return false
}

// gapWith is the gap between the highest and lowest team average of the
// first balancing attribute with ticket s in team ti; 0 without one.
func (p *Pool) gapWith(f *bfill, ti int, e *entry, s int32) float64 {
	if len(p.r.balance) == 0 {
		return 0
	}
	add := p.distValue(e, s, p.r.balance[0]) * float64(e.size)
	hi, lo := math.Inf(-1), math.Inf(1)
	for i := range f.teams {
		sum, n := f.teams[i].sum, f.teams[i].n
		if i == ti {
			sum, n = sum+add, n+int(e.size)
		}
		if n > 0 {
			avg := sum / float64(n)
			hi, lo = max(hi, avg), min(lo, avg)
		}
	}
	if hi < lo {
		return 0
	}
	return hi - lo
}

// sessionPairOK checks the rules between the candidate and the whole
// session: match options, comparisons, collections, cross-play.
func (p *Pool) sessionPairOK(f *bfill, x *extra, env *envelope, optionsOnly bool) bool {
	ai, ni, ui := 0, 0, 0
	for _, o := range p.r.options {
		switch o.kind {
		case optAll:
			if f.bs.allSet[ai] && f.bs.allIDs[ai] != x.allIDs[ai] {
				return false
			}
			ai++
		case optAny:
			if sa, sc := f.anySets[ni], x.anySets[ni]; sa != nil && sc != nil && countCommon(sa, sc) == 0 {
				return false
			}
			ni++
		case optUnique:
			if countCommon(f.uniq[ui], x.uniq[ui]) > 0 {
				return false
			}
			ui++
		}
	}
	if p.r.cross != nil && f.plat != 0 && (x.plat&f.accept != x.plat || f.plat&x.accept != f.plat) {
		return false
	}
	if optionsOnly {
		return true
	}
	for i, c := range p.r.comps {
		if c.gate || c.op != ruleset.OpEqual {
			continue
		}
		if eq := f.eq[i]; len(eq) > 1 || (len(eq) == 1 && eq[0] != x.eqIDs[i]) {
			return false
		}
	}
	for i, c := range p.r.colls {
		if c.contains || c.team || !f.collSet[i] {
			continue
		}
		common := countCommon(f.coll[i], x.colls[i])
		if common < env.collMin[i] || (c.maxCount >= 0 && common > c.maxCount) {
			return false
		}
	}
	return true
}

// sessionListsOK judges the block-list filters (excludes.go) between the
// candidate and the session: its players and the newcomers this fill took.
// Unlike the other rules on the whole match, a block list is about two
// people, not the match's shape, so a running game keeps it: a player who
// blocked another never joins his game, nor lets him join, whichever waited
// longer — OptionsOnly does not waive it either. A filter flexed off at the
// candidate's level (disable_after) no longer applies.
func (p *Pool) sessionListsOK(f *bfill, e *entry, env *envelope, now time.Time) bool {
	bs := f.bs
	for i := range p.r.filters {
		k := p.r.exclOf[i]
		if k < 0 || !env.filterOn[i] {
			continue
		}
		attr := p.r.exclAttrs[k]
		for j := range e.h.players {
			pl := &e.h.players[j]
			if _, found := slices.BinarySearch(bs.listed[k], pl.ID); found {
				return false
			}
			for _, id := range ownList(pl, attr) {
				if _, found := slices.BinarySearch(bs.ids, id); found {
					return false
				}
			}
		}
		for ti := range f.teams {
			for _, c := range f.teams[ti].taken {
				if !p.pairFilter(i, &p.entries[c.slot], e, now) {
					return false
				}
			}
		}
	}
	return true
}

// sessionTeamOK checks the rules of team ti with the candidate in it: "!="
// against the other teams, team-scope collections, role quotas.
func (p *Pool) sessionTeamOK(f *bfill, ti int, x *extra, env *envelope, optionsOnly bool) bool {
	tf := &f.teams[ti]
	if !optionsOnly {
		for i, c := range p.r.comps {
			if c.gate || c.op != ruleset.OpNotEqual {
				continue
			}
			for tj := range f.teams {
				if _, clash := slices.BinarySearch(f.teams[tj].neq[i], x.eqIDs[i]); tj != ti && clash {
					return false
				}
			}
		}
		for i, c := range p.r.colls {
			if c.contains || !c.team || !tf.collSet[i] {
				continue
			}
			common := countCommon(tf.coll[i], x.colls[i])
			if common < env.collMin[i] || (c.maxCount >= 0 && common > c.maxCount) {
				return false
			}
		}
	}
	if p.r.roles != nil {
		return p.sessionRoles(f, ti, x.roles, x.pref, env, nil)
	}
	return true
}

// sessionRoles reports whether team ti's newcomers, with the candidate's
// players (masks, prefs), can take roles within every role's maximum
// (counting the players already there), leaving the seats still free after
// them able to reach every role's minimum at env. The free seats are
// stand-ins that accept any role. With out set, it writes the newcomers'
// roles there, as many first choices as the quotas allow.
func (p *Pool) sessionRoles(f *bfill, ti int, masks []uint64, prefs []int8, env *envelope, out []int) bool {
	rr := p.r.roles
	tf := &f.teams[ti]
	used := f.bs.teams[ti].roleUsed
	all := uint64(1)<<len(rr.names) - 1
	if len(rr.names) == 64 {
		all = ^uint64(0)
	}
	sc := &p.sc
	ms := append(sc.tc.masks[:0], tf.masks...)
	ms = append(ms, masks...)
	ps := append(sc.tc.prefs[:0], tf.prefs...)
	ps = append(ps, prefs...)
	newcomers := len(ms)
	stand := tf.left - len(masks)
	for range stand {
		ms = append(ms, all)
		ps = append(ps, -1)
	}
	sc.tc.masks, sc.tc.prefs = ms, ps
	mins, maxs := sc.roleMins[:0], sc.roleMaxs[:0]
	for k := range rr.names {
		need := 0
		if k < len(env.roleMin) {
			need = max(env.roleMin[k]-used[k], 0)
		}
		mins = append(mins, need)
		if m := rr.max[k]; m < 0 {
			maxs = append(maxs, -1)
		} else {
			maxs = append(maxs, max(m-used[k], 0))
		}
	}
	sc.roleMins, sc.roleMaxs = mins, maxs
	sc.roleOut = fill(sc.roleOut, len(ms), -1)
	solve := sc.roles.assign
	if out != nil {
		solve = sc.roles.assignBest
	}
	if !solve(ms, ps, mins, maxs, sc.roleOut) {
		return false
	}
	copy(out, sc.roleOut[:newcomers])
	return true
}

// take adds ticket s to team ti of the fill.
func (f *bfill) take(p *Pool, s int32, ti int, at ipos) {
	e := &p.entries[s]
	tf := &f.teams[ti]
	tf.left -= int(e.size)
	tf.taken = append(tf.taken, cand{slot: s, at: at})
	if !f.takenAny {
		f.takenAny, f.first = true, s
	}
	for i := range p.r.dist {
		v := p.distValue(e, s, i)
		f.lo[i], f.hi[i] = min(f.lo[i], v), max(f.hi[i], v)
		f.cnt[i]++
		if len(f.vals) > i && p.r.c.Matching[i].MinDistance != nil {
			f.vals[i] = append(f.vals[i], v)
		}
	}
	if len(p.r.balance) > 0 {
		tf.sum += p.distValue(e, s, p.r.balance[0]) * float64(e.size)
		tf.n += int(e.size)
	}
	x := e.x
	if x == nil {
		return
	}
	ni, ui := 0, 0
	for _, o := range p.r.options {
		switch o.kind {
		case optAny:
			if sc := x.anySets[ni]; sc != nil {
				if f.anySets[ni] == nil {
					f.anySets[ni] = sc
				} else {
					f.anySets[ni] = intersectIDs(f.anySets[ni], sc)
				}
			}
			ni++
		case optUnique:
			u := append(slices.Clone(f.uniq[ui]), x.uniq[ui]...)
			slices.Sort(u)
			f.uniq[ui] = u
			ui++
		}
	}
	if p.r.cross != nil {
		f.plat |= x.plat
		f.accept &= x.accept
	}
	for i, c := range p.r.comps {
		switch {
		case c.gate:
		case c.op == ruleset.OpEqual:
			f.eq[i] = addID(slices.Clone(f.eq[i]), x.eqIDs[i])
		case c.op == ruleset.OpNotEqual:
			tf.neq[i] = addID(slices.Clone(tf.neq[i]), x.eqIDs[i])
		}
	}
	for i, c := range p.r.colls {
		switch {
		case c.contains:
		case c.team:
			tf.coll[i], tf.collSet[i] = intersectOrSet(tf.coll[i], tf.collSet[i], x.colls[i]), true
		default:
			f.coll[i], f.collSet[i] = intersectOrSet(f.coll[i], f.collSet[i], x.colls[i]), true
		}
	}
	tf.masks = append(tf.masks, x.roles...)
	tf.prefs = append(tf.prefs, x.pref...)
}

// backfillPass offers the open sessions, oldest first, the waiting tickets
// that fit them, appending a proposal for each session that took any; such a
// session leaves the open set until the service opens it again.
func (p *Pool) backfillPass(now time.Time, out []Proposal) []Proposal {
	b := &p.bf
	// With many tickets new at once (a bulk load, a restart) every session
	// is searched whole, a walk that stops at the nearest tickets that fit,
	// rather than through a sorted list of most of the pool.
	allWhole := p.allDirty || !p.collectNews()
	sorted := false
	keep := b.open[:0]
	for _, bs := range b.open {
		whole := bs.dirty || allWhole
		if !whole && !sorted {
			p.sortNews()
			sorted = true
		}
		if bs.dirty {
			bs.dirty = false
			b.dirty--
		}
		if p.live == 0 || !p.fillSession(bs, now, whole) {
			keep = append(keep, bs)
			continue
		}
		out = append(out, p.proposeBackfill(now))
		delete(b.byID, bs.s.ID)
	}
	clear(b.open[len(keep):])
	b.open = keep
	b.news = b.news[:0]
	return out
}

// collectNews lists the tickets with something new (new, returned,
// relaxed) for the sessions searched only against them; false, and no list,
// when they are more than an eighth of the pool.
func (p *Pool) collectNews() bool {
	b := &p.bf
	b.news = b.news[:0]
	for _, s := range p.dirty {
		if e := &p.entries[s]; e.alive && e.dirty == dirtySelf {
			if len(b.news)*8 >= p.live {
				b.news = b.news[:0]
				return false
			}
			b.news = append(b.news, s)
		}
	}
	return true
}

// sortNews orders the news by primary key with a distance rule, else
// oldest first.
func (p *Pool) sortNews() {
	b := &p.bf
	if len(p.r.dist) > 0 {
		slices.SortFunc(b.news, func(x, y int32) int {
			kx, ky := p.entries[x].key, p.entries[y].key
			switch {
			case kx < ky:
				return -1
			case kx > ky:
				return 1
			}
			return p.olderCmp(x, y)
		})
	} else {
		slices.SortFunc(b.news, p.olderCmp)
	}
}

// fillSession searches one session; true when it took any ticket (the
// fill holds them, still in the pool).
func (p *Pool) fillSession(bs *bsession, now time.Time, whole bool) bool {
	f := &p.bf.fill
	if !f.start(p, bs) {
		return false
	}
	if len(p.r.dist) > 0 && bs.cnt[0] > 0 {
		p.fillNearest(f, now, whole)
	} else {
		p.fillOldest(f, now, whole)
	}
	if !f.takenAny {
		return false
	}
	for ti := range f.teams {
		for _, c := range f.teams[ti].taken {
			p.killAt(c.slot, c.at)
		}
	}
	return true
}

// window is the range of primary values a candidate of any flex level
// could have: within the widest distance of every player of the session
// (anywhere when only the options are compared).
func (p *Pool) window(bs *bsession) (lo, hi, center float64) {
	center = bs.sum[0] / float64(bs.cnt[0])
	if bs.s.OptionsOnly {
		return math.Inf(-1), math.Inf(1), center
	}
	maxRef := p.r.envs[len(p.r.envs)-1].ref[0]
	return bs.hi[0] - maxRef, bs.lo[0] + maxRef, center
}

// fillNearest offers the session the tickets nearest the mean of its
// players first, ties to the oldest: the whole window (up to ScanLimit
// tickets) when whole, else the news in it.
func (p *Pool) fillNearest(f *bfill, now time.Time, whole bool) {
	wlo, whi, center := p.window(f.bs)
	if wlo > whi {
		return
	}
	if !whole {
		news := p.bf.news
		i := sort.Search(len(news), func(i int) bool { return p.entries[news[i]].key >= wlo })
		j := sort.Search(len(news), func(j int) bool { return p.entries[news[j]].key > whi })
		if i >= j {
			return
		}
		list := append(f.list[:0], news[i:j]...)
		slices.SortStableFunc(list, func(x, y int32) int {
			dx, dy := math.Abs(p.entries[x].key-center), math.Abs(p.entries[y].key-center)
			switch {
			case dx < dy:
				return -1
			case dx > dy:
				return 1
			}
			return p.olderCmp(x, y)
		})
		f.list = list
		for _, s := range list {
			if p.tryBackfill(f, s, nowhere, now) && f.seatsLeft() == 0 {
				return
			}
		}
		return
	}
	if f.bs.s.OptionsOnly {
		// Distance is not judged: nearest first, from anywhere.
	} else if lv := p.sessionLevel(f.bs); lv >= len(p.r.envs) {
		return // even the widest distance cannot hold the session's players
	} else if lv > 0 {
		// Only tickets that have waited until level lv could be taken;
		// when they are fewer than the window holds, look at them alone.
		cutoff := now.UnixNano() - int64(p.r.steps[lv-1])
		n := sort.Search(len(p.order), func(i int) bool { return p.entries[p.order[i]].created > cutoff })
		if n < p.idx.countBetween(wlo, whi) {
			p.fillFromOld(f, p.order[:n], wlo, whi, center, now)
			return
		}
	}
	down, up := p.idx.around(center, math.MinInt32)
	dk, ds, dok := down.next()
	uk, us, uok := up.next()
	scanned := 0
	defer func() { p.stats.Scanned += uint64(scanned) }()
	// Entries at the same distance are taken oldest first: collect each
	// run of equal distance before trying it.
	run := p.sc.cands[:0]
	defer func() { p.sc.cands = run[:0] }()
	flush := func() bool {
		if len(run) > 1 {
			slices.SortFunc(run, func(x, y cand) int { return p.olderCmp(x.slot, y.slot) })
		}
		for _, c := range run {
			if p.tryBackfill(f, c.slot, c.at, now) && f.seatsLeft() == 0 {
				return false
			}
		}
		run = run[:0]
		return true
	}
	runDist := -1.0
	for scanned < p.opts.ScanLimit {
		dok = dok && dk >= wlo
		uok = uok && uk <= whi
		if !dok && !uok {
			break
		}
		var s int32
		var k float64
		var at ipos
		if dok && (!uok || center-dk <= uk-center) {
			s, k, at = ds, dk, down.at
			dk, ds, dok = down.next()
		} else {
			s, k, at = us, uk, up.at
			uk, us, uok = up.next()
		}
		if s < 0 || !p.entries[s].alive {
			continue
		}
		scanned++
		if d := math.Abs(k - center); d != runDist {
			if !flush() {
				return
			}
			runDist = d
		}
		run = append(run, cand{slot: s, at: at})
	}
	flush()
}

// sessionLevel is the lowest flex level whose primary distance could hold
// all the session's players with one more ticket (half their spread, or the
// whole spread for a "spread" rule); len(envs) when none could.
func (p *Pool) sessionLevel(bs *bsession) int {
	need := (bs.hi[0] - bs.lo[0]) / 2
	if p.r.dist[0].spread {
		need = bs.hi[0] - bs.lo[0]
	}
	return sort.Search(len(p.r.envs), func(l int) bool { return p.r.envs[l].ref[0] >= need })
}

// fillFromOld offers the session, nearest its mean first, then oldest, the
// tickets of old (oldest first) whose primary value lies in [wlo, whi],
// looking at no more than ScanLimit of them.
func (p *Pool) fillFromOld(f *bfill, old []int32, wlo, whi, center float64, now time.Time) {
	list := f.list[:0]
	scanned := 0
	for _, s := range old {
		if scanned >= p.opts.ScanLimit {
			break
		}
		if s < 0 || !p.entries[s].alive {
			continue
		}
		scanned++
		if k := p.entries[s].key; k >= wlo && k <= whi {
			list = append(list, s)
		}
	}
	p.stats.Scanned += uint64(scanned)
	slices.SortStableFunc(list, func(x, y int32) int {
		dx, dy := math.Abs(p.entries[x].key-center), math.Abs(p.entries[y].key-center)
		switch {
		case dx < dy:
			return -1
		case dx > dy:
			return 1
		}
		return 0
	})
	f.list = list
	for _, s := range list {
		if p.tryBackfill(f, s, nowhere, now) && f.seatsLeft() == 0 {
			return
		}
	}
}

// countBetween counts the index entries (buried ones included) with keys in
// [lo, hi], reading chunk lengths only.
func (x *index) countBetween(lo, hi float64) int {
	a, b := x.search(lo, math.MinInt32), x.search(hi, math.MaxInt32)
	if a.c == b.c {
		return b.i - a.i
	}
	n := len(x.chunks[a.c].keys) - a.i
	for c := a.c + 1; c < b.c; c++ {
		n += len(x.chunks[c].keys)
	}
	if b.c < len(x.chunks) {
		n += b.i
	}
	return n
}

// fillOldest offers the session the waiting tickets oldest first: all of
// them (up to ScanLimit) when whole, else the news.
func (p *Pool) fillOldest(f *bfill, now time.Time, whole bool) {
	list := p.bf.news
	if whole {
		list = p.order
	}
	scanned := 0
	defer func() { p.stats.Scanned += uint64(scanned) }()
	for _, s := range list {
		if scanned >= p.opts.ScanLimit {
			return
		}
		if s < 0 || !p.entries[s].alive {
			continue
		}
		scanned++
		if p.tryBackfill(f, s, nowhere, now) && f.seatsLeft() == 0 {
			return
		}
	}
}

// proposeBackfill builds the proposal of the fill just made: a team per
// session team holding only the newcomers, the session's region, the
// newcomers' roles, and a quality score for the teams as they will play.
func (p *Pool) proposeBackfill(now time.Time) Proposal {
	f := &p.bf.fill
	bs := f.bs
	first := &p.entries[f.first]
	pr := Proposal{SessionID: bs.s.ID, AnchorID: first.id, Level: p.r.level(p.waitOf(first, now)),
		Region: bs.s.Region, key: p.sharedKey(), created: now, teams: len(f.teams)}
	for ti := range f.teams {
		for _, c := range f.teams[ti].taken {
			e := &p.entries[c.slot]
			pr.members = append(pr.members, member{id: e.id, created: e.created, h: e.h, team: int32(ti)})
		}
	}
	roleFirst := 0
	if rr := p.r.roles; rr != nil {
		pr.Roles = make(map[string]string)
		for ti := range f.teams {
			tf := &f.teams[ti]
			if len(tf.taken) == 0 {
				continue
			}
			// Every newcomer was taken with the roles of those before
			// it still possible, so the last one's level can staff
			// them all.
			last := &p.entries[tf.taken[len(tf.taken)-1].slot]
			env := &p.r.envs[p.r.level(p.waitOf(last, now))]
			out := make([]int, len(tf.masks))
			p.sessionRoles(f, ti, nil, nil, env, out)
			k := 0
			for _, c := range tf.taken {
				for _, pl := range p.entries[c.slot].h.players {
					pr.Roles[pl.ID] = rr.names[out[k]]
					if int(tf.prefs[k]) == out[k] {
						roleFirst++
					}
					k++
				}
			}
		}
	}
	pr.Quality = p.backfillQuality(f, roleFirst, now)
	p.stats.Formed++
	p.stats.Backfills++
	p.stats.QualitySum += pr.Quality.Score
	return pr
}

// moments sums a team's values of one attribute.
type moments struct {
	sum, sq float64
	n       int
}

func (m *moments) add(v float64) {
	m.sum += v
	m.sq += v * v
	m.n++
}

// backfillQuality scores the session as it will play, with the criteria of
// quality.go: skill gap and spread over every player of every team (the
// session's and the newcomers'), and over the newcomers alone what only
// they carry — ping to the session's region, wait, first-choice roles —
// and variety between the newcomers and their opponents. The parties
// criterion and score expressions are left out: the session does not know
// its players' parties or tickets.
func (p *Pool) backfillQuality(f *bfill, roleFirst int, now time.Time) cupid.Quality {
	q := &p.r.quality
	vals := make([]float64, len(p.r.partOrder))
	for i := range vals {
		vals[i] = math.NaN()
	}
	set := func(c int, v float64) { vals[p.r.critIndex[c]] = v }
	teams := f.bs.s.Teams
	multi := len(teams) >= 2
	if len(p.r.skill) > 0 && (q.SkillGap > 0 || q.SkillSpread > 0) {
		gap, spread, wsum := 0.0, 0.0, 0.0
		anySpread := false
		ms := make([]moments, len(teams))
		for _, di := range p.r.skill {
			d := &p.r.dist[di]
			if d.weight <= 0 {
				continue
			}
			scale := d.ref0
			if scale <= 0 {
				scale = d.scale
			}
			clear(ms)
			for ti := range teams {
				for pi := range teams[ti].Players {
					if v, ok := teams[ti].Players[pi].Attributes.Resolve(d.attr); ok {
						ms[ti].add(v.Number)
					}
				}
				for _, c := range f.teams[ti].taken {
					h := p.entries[c.slot].h
					for i := range h.players {
						ms[ti].add(h.number(i, d.attr))
					}
				}
			}
			hiAvg, loAvg, stdSum, counted := math.Inf(-1), math.Inf(1), 0.0, 0
			for _, mt := range ms {
				if mt.n == 0 {
					continue
				}
				avg := mt.sum / float64(mt.n)
				hiAvg, loAvg = max(hiAvg, avg), min(loAvg, avg)
				stdSum += math.Sqrt(max(mt.sq/float64(mt.n)-avg*avg, 0))
				counted++
				anySpread = anySpread || mt.n > 1
			}
			if counted == 0 {
				continue
			}
			gap += d.weight * clamp01(1-(hiAvg-loAvg)/scale)
			spread += d.weight * clamp01(1-stdSum/float64(counted)/scale)
			wsum += d.weight
		}
		if wsum > 0 {
			if multi && q.SkillGap > 0 {
				set(critSkillGap, gap/wsum)
			}
			if anySpread && q.SkillSpread > 0 {
				set(critSkillSpread, spread/wsum)
			}
		}
	}
	players := 0
	var ping, wait float64
	for ti := range f.teams {
		for _, c := range f.teams[ti].taken {
			e := &p.entries[c.slot]
			n := float64(e.size)
			players += int(e.size)
			if f.region >= 0 {
				ping += n * q.PingScore(float64(latencyTo(e.x.lats, uint8(f.region))))
			}
			wait += n * q.WaitScore(p.waitOf(e, now))
		}
	}
	if f.region >= 0 && q.Ping > 0 {
		set(critPing, ping/float64(players))
	}
	if q.Wait > 0 {
		set(critWait, wait/float64(players))
	}
	if multi && p.opts.Met != nil && q.Variety > 0 {
		pairs, met := 0, 0
		for ti := range f.teams {
			for _, c := range f.teams[ti].taken {
				for _, a := range p.entries[c.slot].h.players {
					for tj := range f.teams {
						if tj == ti {
							continue
						}
						opponents := slices.Clone(teams[tj].Players)
						for _, oc := range f.teams[tj].taken {
							opponents = append(opponents, p.entries[oc.slot].h.players...)
						}
						for _, b := range opponents {
							pairs++
							if p.opts.Met(a.ID, b.ID) {
								met++
							}
						}
					}
				}
			}
		}
		if pairs > 0 {
			set(critVariety, 1-float64(met)/float64(pairs))
		}
	}
	if p.r.roles != nil && q.Roles > 0 {
		set(critRoles, float64(roleFirst)/float64(players))
	}
	parts := cupid.QualityParts{}
	for k, v := range vals {
		if !math.IsNaN(v) {
			parts = append(parts, cupid.QualityPart{Name: p.r.partOrder[k], Score: v})
		}
	}
	return cupid.Quality{Score: p.r.combine(vals), Parts: parts}
}
