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
}

// RoomPair is two participants in one room during a round.
type RoomPair struct {
	Room int    `json:"room"`
	A    string `json:"a"`
	B    string `json:"b"`
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
		Lobby:    e.inState(StateLobby),
		Turn:     e.plan.turn,
		Rand:     rnd,

		PlanBroken: e.plan.broken,
	}
	if len(e.plan.seats) > 0 {
		s.Seats = slices.Clone(e.plan.seats)
	}
	for i, pr := range e.rooms {
		if pr.A != "" {
			s.Pairs = append(s.Pairs, RoomPair{Room: i + 1, A: pr.A, B: pr.B})
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
		s.People = append(s.People, Person{Key: k, State: p.state, Met: met, SatOut: p.satOut, Room: p.room, Partner: p.partner})
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
	e := &Event{
		cfg:      s.Config,
		now:      s.Now.UTC(),
		phase:    s.Phase,
		deadline: s.Deadline.UTC(),
		round:    s.Round,
		stale:    s.Stale,
		people:   make(map[string]*person, len(s.People)),
		rooms:    make([]pair, s.Config.Rooms),
		src:      src,
		rng:      rand.New(src),
	}
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
		if (p.State == StateRoom) != (p.Room != 0) || (p.Room != 0) != (p.Partner != "") {
			return nil, cupid.Invalid(field+".room", "room and partner must be set exactly when in a room")
		}
		if p.Room < 0 || p.Room > s.Config.Rooms {
			return nil, cupid.Invalid(field+".room", "no room %d", p.Room)
		}
		np := &person{state: p.State, met: make(map[string]struct{}, len(p.Met)), satOut: p.SatOut, room: p.Room, partner: p.Partner}
		for _, k := range p.Met {
			np.met[k] = struct{}{}
		}
		e.people[p.Key] = np
		if p.State == StateLobby {
			e.lobby++
		}
	}
	for i, p := range s.People {
		field := fmt.Sprintf("people[%d]", i)
		for j, k := range p.Met {
			if _, ok := e.people[k]; !ok || k == p.Key {
				return nil, cupid.Invalid(fmt.Sprintf("%s.met[%d]", field, j), "%q is not another known person", k)
			}
		}
		if len(e.people[p.Key].met) != len(p.Met) {
			return nil, cupid.Invalid(field+".met", "repeats a person")
		}
		if p.State != StateRoom {
			continue
		}
		if s.Phase != PhaseRound {
			return nil, cupid.Invalid(field+".state", "in a room outside a round")
		}
		q, ok := e.people[p.Partner]
		if !ok || q.partner != p.Key || q.room != p.Room {
			return nil, cupid.Invalid(field+".partner", "%q is not in room %d with %q", p.Partner, p.Room, p.Key)
		}
		r := &e.rooms[p.Room-1]
		switch {
		case r.A == "":
			*r = pair{A: p.Key, B: p.Partner}
		case r.A != p.Partner || r.B != p.Key:
			return nil, cupid.Invalid(field+".room", "room %d is double-booked", p.Room)
		}
	}
	if s.Phase == PhaseRound && e.roomsInUse() == 0 {
		return nil, cupid.Invalid("phase", "a round with no room in use")
	}
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
	case !slices.EqualFunc(again.Pairs, s.Pairs, func(a, b RoomPair) bool { return a == b }):
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

// MetEdge is one entry of one person's record.
type MetEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
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
