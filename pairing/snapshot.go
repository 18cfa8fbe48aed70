package pairing

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
)

// SnapshotVersion is the format version Snapshot writes and Restore reads.
const SnapshotVersion = 1

// Snapshot is the whole state of an event as plain data: what the server
// stores (it marshals to JSON) and what the organiser's view shows.
// Restore(Snapshot()) gives an event that behaves exactly as the original
// from then on, random choices included.
type Snapshot struct {
	Version  int       `json:"version"`
	Config   Config    `json:"config"`
	Now      time.Time `json:"now,omitzero"` // the latest time the event has seen
	Phase    Phase     `json:"phase"`
	Deadline time.Time `json:"deadline,omitzero"` // end of the countdown or round
	Round    int       `json:"round"`             // rounds started so far
	Stale    bool      `json:"stale,omitempty"`   // the last round found no pair; see Event
	// CapWake is when a stale event tries again because the exposure
	// cap lets someone back (see Event).
	CapWake time.Time `json:"cap_wake,omitzero"`

	// Participants (present, sorted), Lobby (sorted) and Pairs (rooms in
	// use) are derived from People for the organiser's convenience; Restore
	// checks that they agree.
	Participants []string   `json:"participants"`
	Lobby        []string   `json:"lobby"`
	Pairs        []RoomPair `json:"pairs"`

	// People holds everyone the event knows, present or gone, sorted by key.
	People []Person `json:"people"`
	// Seats, Turn and PlanBroken are the round-robin plan (see plan.go).
	Seats      []string `json:"seats,omitempty"`
	Turn       int      `json:"turn,omitempty"`
	PlanBroken bool     `json:"plan_broken,omitempty"`
	// Rand is the state of the event's random source.
	Rand []byte `json:"rand"`

	// RoundStart is when the current round's dates began (for MinDate).
	RoundStart time.Time `json:"round_start,omitzero"`
	// Paused is set while the event is paused, since PausedAt.
	Paused   bool      `json:"paused,omitempty"`
	PausedAt time.Time `json:"paused_at,omitzero"`
	// Revealed is set once mutual answers were revealed.
	Revealed bool `json:"revealed,omitempty"`
	// Seq counts the rounds computed, including those with no pair; Kept
	// lists the latest of them, whose records the server keeps (see
	// HistoryLimits).
	Seq  int         `json:"seq,omitempty"`
	Kept []KeptRound `json:"kept,omitempty"`
}

// RoomPair is two participants in one room during a round.
type RoomPair struct {
	Room int    `json:"room"`
	A    string `json:"a"`
	B    string `json:"b"`
	// C is the third person of a trio.
	C string `json:"c,omitempty"`
	// Round is the round the date began in; a date extended past its
	// round is still in its room in the next.
	Round int `json:"round,omitempty"`
	// Until is when an extended date ends (zero: with its round).
	Until time.Time `json:"until,omitzero"`
}

// Person is one participant as stored.
type Person struct {
	Key   string `json:"key"`
	State State  `json:"state"`
	// Met is this person's own record of whom they have met, sorted.
	Met     []string `json:"met,omitempty"`
	SatOut  int      `json:"sat_out,omitempty"`
	Room    int      `json:"room,omitempty"`
	Partner string   `json:"partner,omitempty"`
	Third   string   `json:"third,omitempty"`
	Group   string   `json:"group,omitempty"`
	// Never is the private never list, sorted.
	Never []string `json:"never,omitempty"`
	// Barred is the server's barred list (SetBarred), sorted.
	Barred []string `json:"barred,omitempty"`
	// Dated is everyone this person shared a room with, in date order.
	Dated []string `json:"dated,omitempty"`
	// Yes and No are the private "would meet again" answers, sorted.
	Yes    []string `json:"yes,omitempty"`
	No     []string `json:"no,omitempty"`
	Extend bool     `json:"extend,omitempty"`
	Home   int      `json:"home,omitempty"`
	// Dates counts this person's dates in the event; Recent holds when
	// the latest began, oldest first, when the exposure cap has a window.
	Dates  int         `json:"dates,omitempty"`
	Recent []time.Time `json:"recent,omitempty"`
}

// Snapshot returns the event's state.
func (e *Event) Snapshot() Snapshot {
	rnd, err := e.src.MarshalBinary()
	if err != nil {
		panic("pairing: cannot marshal PCG state: " + err.Error()) // PCG never fails
	}
	s := Snapshot{
		Version:  SnapshotVersion,
		Config:   e.cfg,
		Now:      e.now,
		Phase:    e.phase,
		Deadline: e.deadline,
		Round:    e.round,
		Stale:    e.stale,
		CapWake:  e.capWake,
		Lobby:    e.inState(StateLobby),
		Turn:     e.plan.turn,
		Rand:     rnd,

		PlanBroken: e.plan.broken,
		RoundStart: e.roundStart,
		Paused:     e.paused,
		PausedAt:   e.pausedAt,
		Revealed:   e.revealed,
		Seq:        e.seq,
		Kept:       slices.Clone(e.kept),
	}
	if len(e.plan.seats) > 0 {
		s.Seats = slices.Clone(e.plan.seats)
	}
	for i, pr := range e.rooms {
		if pr.A != "" {
			s.Pairs = append(s.Pairs, RoomPair{Room: i + 1, A: pr.A, B: pr.B, C: pr.C, Round: pr.round, Until: pr.until})
		}
	}
	for _, k := range cupid.SortedKeys(e.people) {
		p := e.people[k]
		if p.state != StateGone {
			s.Participants = append(s.Participants, k)
		}
		var met []string
		if len(p.met) > 0 {
			met = cupid.SortedKeys(p.met)
		}
		q := Person{Key: k, State: p.state, Met: met, SatOut: p.satOut, Room: p.room, Partner: p.partner,
			Third: p.third, Group: p.group, Dated: slices.Clone(p.dated), Extend: p.extend, Home: p.home,
			Dates: p.cap.dates, Recent: slices.Clone(p.cap.recent)}
		if len(p.never) > 0 {
			q.Never = cupid.SortedKeys(p.never)
		}
		if len(p.barred) > 0 {
			q.Barred = cupid.SortedKeys(p.barred)
		}
		for _, o := range cupid.SortedKeys(p.answers) {
			if p.answers[o] {
				q.Yes = append(q.Yes, o)
			} else {
				q.No = append(q.No, o)
			}
		}
		s.People = append(s.People, q)
	}
	return s
}

// Restore rebuilds an event from a snapshot, after checking that it is
// consistent; a snapshot that is not gives a *cupid.Error naming the first
// bad field.
func Restore(s Snapshot) (*Event, error) {
	if s.Version != SnapshotVersion {
		return nil, cupid.Invalid("version", "unsupported snapshot version %d", s.Version)
	}
	if err := s.Config.Validate(); err != nil {
		var ce *cupid.Error
		errors.As(err, &ce)
		return nil, cupid.Invalid("config."+ce.Field, "%s", ce.Message)
	}
	switch s.Phase {
	case PhaseIdle:
		if !s.Deadline.IsZero() {
			return nil, cupid.Invalid("deadline", "must be empty when idle")
		}
	case PhaseCountdown, PhaseRound:
		if s.Deadline.IsZero() {
			return nil, cupid.Invalid("deadline", "must be set during a %s", s.Phase)
		}
	default:
		return nil, cupid.Invalid("phase", "unknown phase %q", s.Phase)
	}
	if s.Round < 0 {
		return nil, cupid.Invalid("round", "must not be negative")
	}
	if len(s.People) > MaxPeople {
		return nil, cupid.Errorf(cupid.CodeTooLarge, "people", "at most %d people, got %d", MaxPeople, len(s.People))
	}
	src := &rand.PCG{}
	if err := src.UnmarshalBinary(s.Rand); err != nil {
		return nil, cupid.Invalid("rand", "bad random state: %v", err)
	}
	if s.Paused == s.PausedAt.IsZero() {
		return nil, cupid.Invalid("paused_at", "must be set exactly when paused")
	}
	e := &Event{
		cfg:        s.Config,
		now:        s.Now.UTC(),
		phase:      s.Phase,
		deadline:   s.Deadline.UTC(),
		round:      s.Round,
		stale:      s.Stale,
		capWake:    s.CapWake.UTC(),
		people:     make(map[string]*person, len(s.People)),
		rooms:      make([]pair, s.Config.Rooms),
		src:        src,
		rng:        rand.New(src),
		roundStart: s.RoundStart.UTC(),
		paused:     s.Paused,
		pausedAt:   s.PausedAt.UTC(),
		revealed:   s.Revealed,
		seq:        s.Seq,
		limits:     DefaultHistoryLimits,
	}
	mode := s.Config.mode()
	for i, p := range s.People {
		field := fmt.Sprintf("people[%d]", i)
		if err := checkKey(p.Key); err != nil {
			var ce *cupid.Error
			errors.As(err, &ce)
			return nil, cupid.Invalid(field+".key", "%s", ce.Message)
		}
		if _, dup := e.people[p.Key]; dup {
			return nil, cupid.Invalid(field+".key", "%q appears twice", p.Key)
		}
		switch p.State {
		case StateAway, StateLobby, StateRoom, StateGone:
		default:
			return nil, cupid.Invalid(field+".state", "unknown state %q", p.State)
		}
		if p.SatOut < 0 {
			return nil, cupid.Invalid(field+".sat_out", "must not be negative")
		}
		if (p.State == StateRoom) != (p.Room != 0) || (p.Room != 0) != (p.Partner != "") || (p.Third != "" && p.Room == 0) {
			return nil, cupid.Invalid(field+".room", "room and partner must be set exactly when in a room")
		}
		if p.Room < 0 || p.Room > s.Config.Rooms {
			return nil, cupid.Invalid(field+".room", "no room %d", p.Room)
		}
		switch {
		case p.Group != "" && checkGroup(p.Group) != nil:
			return nil, cupid.Invalid(field+".group", "bad group %q", p.Group)
		case p.Group != "" && !mode.grouped():
			return nil, cupid.Invalid(field+".group", "an event in mode %s has no groups", mode)
		case p.Group == "" && mode.grouped() && p.State != StateGone:
			return nil, cupid.Invalid(field+".group", "required in mode %s", mode)
		case p.Group != "" && mode == ModeTwoSided && !slices.Contains(s.Config.Sides, p.Group):
			return nil, cupid.Invalid(field+".group", "%q is not a side", p.Group)
		}
		if len(p.Never) > MaxNever {
			return nil, cupid.Errorf(cupid.CodeTooLarge, field+".never", "at most %d, got %d", MaxNever, len(p.Never))
		}
		if len(p.Barred) > MaxBarred {
			return nil, cupid.Errorf(cupid.CodeTooLarge, field+".barred", "at most %d, got %d", MaxBarred, len(p.Barred))
		}
		if p.Home < 0 || p.Home > s.Config.Rooms {
			return nil, cupid.Invalid(field+".home", "no room %d", p.Home)
		}
		if p.Dates < 0 {
			return nil, cupid.Invalid(field+".dates", "must not be negative")
		}
		if len(p.Recent) > MaxDatesCap || len(p.Recent) > p.Dates || !slices.IsSortedFunc(p.Recent, time.Time.Compare) {
			return nil, cupid.Invalid(field+".recent", "at most %d starts of the person's dates, in order", MaxDatesCap)
		}
		np := &person{state: p.State, met: make(map[string]int32, len(p.Met)), satOut: p.SatOut, room: p.Room, partner: p.Partner,
			third: p.Third, group: p.Group, dated: slices.Clone(p.Dated), extend: p.Extend, home: p.Home, id: int32(len(e.byID)),
			cap: capState{dates: p.Dates}}
		for _, t := range p.Recent {
			np.cap.recent = append(np.cap.recent, t.UTC())
		}
		e.byID = append(e.byID, np)
		for _, k := range p.Met {
			np.met[k] = -1 // the person's id below, once all are known
		}
		for j, k := range p.Never {
			if err := checkKey(k); err != nil || k == p.Key {
				return nil, cupid.Invalid(fmt.Sprintf("%s.never[%d]", field, j), "bad key %q", k)
			}
			if np.never == nil {
				np.never = make(map[string]struct{}, len(p.Never))
			}
			np.never[k] = struct{}{}
		}
		for j, k := range p.Barred {
			if err := checkKey(k); err != nil || k == p.Key {
				return nil, cupid.Invalid(fmt.Sprintf("%s.barred[%d]", field, j), "bad key %q", k)
			}
			if np.barred == nil {
				np.barred = make(map[string]struct{}, len(p.Barred))
			}
			np.barred[k] = struct{}{}
		}
		for _, list := range []struct {
			keys []string
			yes  bool
		}{{p.Yes, true}, {p.No, false}} {
			for j, k := range list.keys {
				if !slices.Contains(p.Dated, k) {
					return nil, cupid.Invalid(fmt.Sprintf("%s.yes[%d]", field, j), "an answer about %q, whom %q has not dated", k, p.Key)
				}
				if np.answers == nil {
					np.answers = make(map[string]bool)
				}
				np.answers[k] = list.yes
			}
		}
		e.people[p.Key] = np
		if p.State == StateLobby {
			e.lobby++
		}
	}
	for i, p := range s.People {
		field := fmt.Sprintf("people[%d]", i)
		for j, k := range p.Met {
			q, ok := e.people[k]
			if !ok || k == p.Key {
				return nil, cupid.Invalid(fmt.Sprintf("%s.met[%d]", field, j), "%q is not another known person", k)
			}
			e.people[p.Key].met[k] = q.id
		}
		for j, k := range p.Dated {
			if _, ok := e.people[k]; !ok || k == p.Key {
				return nil, cupid.Invalid(fmt.Sprintf("%s.dated[%d]", field, j), "%q is not another known person", k)
			}
		}
		if len(e.people[p.Key].met) != len(p.Met) {
			return nil, cupid.Invalid(field+".met", "repeats a person")
		}
	}
	// Rooms come from the pairs; the people in them must agree.
	for i, rp := range s.Pairs {
		field := fmt.Sprintf("pairs[%d]", i)
		if rp.Room < 1 || rp.Room > s.Config.Rooms {
			return nil, cupid.Invalid(field+".room", "no room %d", rp.Room)
		}
		if e.rooms[rp.Room-1].A != "" {
			return nil, cupid.Invalid(field+".room", "room %d is double-booked", rp.Room)
		}
		round := rp.Round
		if round == 0 {
			round = s.Round // written before rooms kept their round
		}
		if round < 1 || round > s.Round {
			return nil, cupid.Invalid(field+".round", "round %d of %d", round, s.Round)
		}
		if rp.Until.IsZero() && (s.Phase != PhaseRound || round != s.Round) {
			return nil, cupid.Invalid(field, "a date of round %d in room %d outside its round", round, rp.Room)
		}
		pr := pair{A: rp.A, B: rp.B, C: rp.C, round: round, until: rp.Until.UTC()}
		members := pr.members()
		for _, k := range members {
			p, ok := e.people[k]
			if !ok || p.state != StateRoom || p.room != rp.Room {
				return nil, cupid.Invalid(field, "%q is not in room %d", k, rp.Room)
			}
			others := slices.DeleteFunc(slices.Clone(members), func(o string) bool { return o == k })
			got := []string{p.partner}
			if p.third != "" {
				got = append(got, p.third)
			}
			slices.Sort(got)
			if !slices.Equal(got, others) {
				return nil, cupid.Invalid(field, "%q's partners %v are not the room's %v", k, got, others)
			}
		}
		e.rooms[rp.Room-1] = pr
		if !pr.until.IsZero() {
			e.overtime++
		}
	}
	for i, p := range s.People {
		if p.State == StateRoom && !slices.Contains(e.rooms[p.Room-1].members(), p.Key) {
			return nil, cupid.Invalid(fmt.Sprintf("people[%d].room", i), "%q is in no pair of room %d", p.Key, p.Room)
		}
	}
	if s.Phase == PhaseRound && e.roomsInUse() == 0 {
		return nil, cupid.Invalid("phase", "a round with no room in use")
	}
	for i, r := range s.Kept {
		if r.Seq < 1 || r.Seq > s.Seq || (i > 0 && r.Seq <= s.Kept[i-1].Seq) || r.Names < 0 {
			return nil, cupid.Invalid(fmt.Sprintf("kept[%d]", i), "out of order")
		}
	}
	e.kept = slices.Clone(s.Kept)
	if len(s.Seats) > 2*len(s.People)+2 {
		return nil, cupid.Invalid("seats", "%d seats for %d people", len(s.Seats), len(s.People))
	}
	if len(s.Seats)%2 == 1 {
		return nil, cupid.Invalid("seats", "must be of even length")
	}
	seen := make(map[string]bool)
	for i, k := range s.Seats {
		if k == "" {
			continue
		}
		if p, ok := e.people[k]; !ok || p.state == StateGone || seen[k] {
			return nil, cupid.Invalid(fmt.Sprintf("seats[%d]", i), "%q is not a present participant with one seat", k)
		}
		seen[k] = true
	}
	if s.Turn < 0 || s.Turn >= max(1, len(s.Seats)-1) {
		return nil, cupid.Invalid("turn", "out of range")
	}
	if len(s.Seats) > 0 {
		e.plan.seats = slices.Clone(s.Seats)
	}
	e.plan.turn = s.Turn
	e.plan.broken = s.PlanBroken

	// The derived views must agree with the people.
	again := e.Snapshot()
	switch {
	case !slices.Equal(again.Participants, s.Participants):
		return nil, cupid.Invalid("participants", "do not match people")
	case !slices.Equal(again.Lobby, s.Lobby):
		return nil, cupid.Invalid("lobby", "does not match people")
	case len(again.Pairs) != len(s.Pairs):
		return nil, cupid.Invalid("pairs", "do not match people")
	}
	return e, nil
}

// MetGraph is who has met whom, by each side's own record: what the
// organiser's graph view draws.
type MetGraph struct {
	// Participants are the people present, sorted.
	Participants []string `json:"participants"`
	// Edges are the records of everyone known, present or gone: From's
	// record says From has met To. Sorted by From, then To.
	Edges []MetEdge `json:"edges"`
}

// MetGraph returns the event's met-graph.
func (e *Event) MetGraph() MetGraph {
	var g MetGraph
	for _, k := range cupid.SortedKeys(e.people) {
		p := e.people[k]
		if p.state != StateGone {
			g.Participants = append(g.Participants, k)
		}
		for _, to := range cupid.SortedKeys(p.met) {
			g.Edges = append(g.Edges, MetEdge{From: k, To: to})
		}
	}
	slices.SortFunc(g.Edges, func(a, b MetEdge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return g
}
