package pairing

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/graph/matching"
)

// Phase is where an event is in its cycle of countdowns and rounds.
type Phase string

// The phases of an event.
const (
	// PhaseIdle: no countdown or round is running; a countdown starts as
	// soon as MinLobby people are in the lobby and a pair may be possible.
	PhaseIdle Phase = "idle"
	// PhaseCountdown: the round will be computed at the deadline.
	PhaseCountdown Phase = "countdown"
	// PhaseRound: pairs are in their rooms until the deadline.
	PhaseRound Phase = "round"
)

// State is where a participant is.
type State string

// The states of a participant.
const (
	// StateAway: joined but not in the lobby (arrived, or on a break); not
	// paired.
	StateAway State = "away"
	// StateLobby: waiting in the lobby to be paired.
	StateLobby State = "lobby"
	// StateRoom: in a room with a partner for the current round.
	StateRoom State = "room"
	// StateGone: left the event. Their record is kept in case they come
	// back under the same key, as after a crash.
	StateGone State = "gone"
)

// person is everything the event knows about one participant.
type person struct {
	state State
	// met is this person's own record of whom they have met, by key. The
	// values are those people's ids (everyone in a record is known to the
	// event), so that building a round's graph reads a small array instead
	// of looking 350,000 keys up in a 10,000-person lobby.
	met map[string]int32
	// id numbers the people of the event from 0, in the order the event
	// came to know them (sorted by key after a restore); byID[id] is this
	// person.
	id int32
	// satOut counts the rounds in a row this person was in the lobby and
	// not paired; it is their priority for the next round.
	satOut  int
	room    int
	partner string
	// third is the other partner when this person is in a trio.
	third string
	// group is the person's group, or side in a two-sided event; empty
	// in an open event.
	group string
	// never is this person's private "never pair me with" list.
	never map[string]struct{}
	// barred are the people the server says this person may not be
	// paired with: his block list and whom he met in earlier events of
	// the series (SetBarred). Like never, but the server's, not his.
	barred map[string]struct{}
	// dated holds everyone this person has shared a room with in this
	// event; unlike met it is never cleared, and it is what a "would meet
	// again" answer may be about. A slice: it is short, and a round of
	// 10,000 would otherwise make 10,000 maps.
	dated []string
	// answers are this person's private "would meet again" answers.
	answers map[string]bool
	// extend is set when this person asked to extend the current date.
	extend bool
	// home is the room a person of a two-sided event's staying side
	// keeps from round to round (0 before their first date).
	home int
	// cap is what the exposure cap reads: his dates (cap.go).
	cap capState
}

// Event is one speed-dating event: its participants, their records, the
// lobby, the rooms and the timers. It is not safe for concurrent use; the
// server owns each event from one goroutine.
//
// Every method that takes now first brings the event up to now (ending a
// countdown or round whose deadline has passed) and returns the
// notifications that this and the call itself caused, in order. A method
// that returns an error changed nothing itself, but the notifications it
// returns (due to time alone) must still be delivered. Time never runs
// backwards: a now earlier than one already seen counts as that one.
type Event struct {
	cfg      Config
	now      time.Time
	phase    Phase
	deadline time.Time
	round    int
	// stale is set when a round found no pair at all; no countdown starts
	// again until something changes that could allow one (someone enters
	// the lobby, clears a record, or a round ends), instead of counting
	// down for nothing over and over.
	stale bool
	// capWake is set when a round found no pair while the cap held
	// someone back for a window: then, rather than at the next change,
	// the event tries again (cap.go).
	capWake time.Time
	people  map[string]*person
	lobby   int       // people in the lobby
	rooms   []pair    // rooms[r-1] is room r; empty when A is ""
	plan    plan      // the round-robin seating, see plan.go
	src     *rand.PCG // kept to snapshot the random state
	rng     *rand.Rand
	out     []Notification // notifications of the call in progress

	// roundStart is when the current round's dates began (moved on by a
	// pause), for MinDate.
	roundStart time.Time
	// paused freezes every timer from pausedAt until Resume.
	paused   bool
	pausedAt time.Time
	// revealed is set once mutual answers have been revealed.
	revealed bool
	// seq numbers every computed round, including those that found no
	// pair; kept lists the latest ones, which the server keeps (see
	// history.go), and dropped those that fell out since the server last
	// asked.
	seq     int
	kept    []KeptRound
	dropped []int
	limits  HistoryLimits
	// byID lists everyone the event knows by id; vertexOf is the scratch
	// table of lobby vertices by id that lobbyGraph fills, and edges its
	// scratch edge list, both kept between rounds to spare the garbage
	// collector.
	// overtime counts the rooms whose date was extended, so that finding
	// the next deadline does not scan 50,000 rooms for none.
	overtime int
	byID     []*person
	vertexOf []int32
	edges    []matching.Edge
	// unplanned turns the round-robin plan off; tests use it to measure
	// what the plan is worth.
	unplanned bool
}

// pair is two participants (or three, with C) sharing a room.
type pair struct {
	A, B, C string
	// round is the round the date began in.
	round int
	// until is set when the date was extended: it then ends at until
	// rather than with its round.
	until time.Time
}

// members lists the people in the room.
func (p pair) members() []string {
	if p.C != "" {
		return []string{p.A, p.B, p.C}
	}
	return []string{p.A, p.B}
}

// New returns an event with no participants. The seed drives every random
// choice the event makes, so the same calls with the same seed give the
// same rounds.
func New(cfg Config, seed uint64) (*Event, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	src := rand.NewPCG(seed, 0x70616972696e67) // "pairing"
	return &Event{
		cfg:    cfg,
		phase:  PhaseIdle,
		people: make(map[string]*person),
		rooms:  make([]pair, cfg.Rooms),
		src:    src,
		rng:    rand.New(src),
		limits: DefaultHistoryLimits,
	}, nil
}

// Config returns the event's settings.
func (e *Event) Config() Config { return e.cfg }

// NextDeadline returns when the event next needs Advance (the end of the
// countdown or of the round) and false when nothing is timed.
func (e *Event) NextDeadline() (time.Time, bool) {
	at, step := e.nextStep()
	return at, step != stepNone
}

// The timed steps of an event.
const (
	stepNone = iota
	stepPhase
	stepOvertime
	stepReveal
	stepCap
)

// nextStep returns the earliest timed step and when it is due: the end
// of the countdown or round, the end of an extended date, or the reveal
// of mutual answers. A pause freezes all but the reveal, which is set by
// the clock.
func (e *Event) nextStep() (time.Time, int) {
	var at time.Time
	step := stepNone
	consider := func(t time.Time, s int) {
		if step == stepNone || t.Before(at) {
			at, step = t, s
		}
	}
	if !e.paused {
		if e.phase != PhaseIdle {
			consider(e.deadline, stepPhase)
		}
		if e.stale && !e.capWake.IsZero() {
			consider(e.capWake, stepCap)
		}
		for i := 0; i < len(e.rooms) && e.overtime > 0; i++ {
			if pr := e.rooms[i]; pr.A != "" && !pr.until.IsZero() {
				consider(pr.until, stepOvertime)
			}
		}
	}
	if !e.revealed && !e.cfg.RevealAt.IsZero() {
		consider(e.cfg.RevealAt, stepReveal)
	}
	return at, step
}

// Advance brings the event up to now and returns the notifications due:
// a countdown ending starts a round, a round ending sends everyone back to
// the lobby (and may start the next countdown).
func (e *Event) Advance(now time.Time) []Notification {
	e.begin(now)
	return e.finish()
}

// Join adds a participant, not yet in the lobby. Someone who left and comes
// back under the same key gets their old record back. Joining while present
// is a conflict.
func (e *Event) Join(now time.Time, key string) ([]Notification, error) {
	return e.JoinGroup(now, key, "")
}

// JoinGroup is Join with the participant's group (their side in a
// two-sided event). A grouped event needs one on the first join; a later
// join may change it or, left empty, keep it. An open event takes none.
func (e *Event) JoinGroup(now time.Time, key, group string) ([]Notification, error) {
	if err := checkKey(key); err != nil {
		return e.fail(now, err)
	}
	e.begin(now)
	p, known := e.people[key]
	switch {
	case known && p.state != StateGone:
		return e.failed(cupid.Conflict("participant", "%q has already joined", key))
	case !known && len(e.people) >= MaxPeople:
		return e.failed(cupid.Errorf(cupid.CodeTooLarge, "participant", "the event already knows %d people", MaxPeople))
	}
	mode := e.cfg.mode()
	switch {
	case !mode.grouped() && group != "":
		return e.failed(cupid.Invalid("group", "an event in mode %s has no groups", mode))
	case mode.grouped() && group == "" && (!known || p.group == ""):
		return e.failed(cupid.Invalid("group", "required in an event in mode %s", mode))
	case group != "":
		if err := checkGroup(group); err != nil {
			return e.failed(err)
		}
		if mode == ModeTwoSided && !slices.Contains(e.cfg.Sides, group) {
			return e.failed(cupid.Invalid("group", "must be one of the sides %q or %q, got %q", e.cfg.Sides[0], e.cfg.Sides[1], group))
		}
	}
	if !known {
		p = e.newPerson(key, StateAway)
	}
	if group != "" {
		if p.group != group {
			p.home = 0
		}
		p.group = group
	}
	p.state = StateAway
	p.satOut = 0
	return e.finish(), nil
}

// Leave removes a participant from the event. If they were in a room, the
// room is freed and the partner told; their record is kept.
func (e *Event) Leave(now time.Time, key string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	was := p.state
	p.state = StateGone
	e.plan.vacate(key)
	switch was {
	case StateRoom:
		e.leaveRoom(key, p)
	case StateLobby:
		e.lobby--
		e.checkCountdown()
	}
	return e.finish(), nil
}

// EnterLobby makes a participant available for pairing. During a countdown
// they are told when it ends; otherwise a countdown may start.
func (e *Event) EnterLobby(now time.Time, key string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	switch p.state {
	case StateLobby:
		return e.failed(cupid.Conflict("participant", "%q is already in the lobby", key))
	case StateRoom:
		return e.failed(cupid.Conflict("participant", "%q is in room %d until the round ends", key, p.room))
	}
	p.state = StateLobby
	e.lobby++
	e.stale = false
	e.capWake = time.Time{}
	if e.phase == PhaseCountdown && !e.paused {
		e.notify(Notification{Participant: key, Kind: KindCountdownStarted, Deadline: e.deadline})
	}
	e.maybeCountdown()
	return e.finish(), nil
}

// LeaveLobby takes a participant out of pairing for a break. Called from a
// room, it ends their date early: the room is freed and the partner told.
func (e *Event) LeaveLobby(now time.Time, key string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	was := p.state
	if was == StateAway {
		return e.failed(cupid.Conflict("participant", "%q is not in the lobby", key))
	}
	if was == StateRoom {
		if left := e.minDateLeft(p.room); left > 0 {
			return e.failed(cupid.Conflict("participant", "dates last at least %v; %q may leave room %d in %v", e.cfg.MinDate, key, p.room, left))
		}
	}
	p.state = StateAway
	switch was {
	case StateRoom:
		e.leaveRoom(key, p)
	case StateLobby:
		e.lobby--
		e.checkCountdown()
	}
	return e.finish(), nil
}

// ClearRecord empties the participant's own record of whom they have met.
// Others' records of them stay, so a rematch needs both sides to clear.
func (e *Event) ClearRecord(now time.Time, key string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	clear(p.met)
	e.changed()
	e.maybeCountdown()
	return e.finish(), nil
}

// begin clamps now, starts collecting notifications and processes the
// deadlines that have passed.
func (e *Event) begin(now time.Time) {
	now = now.UTC() // also drops the monotonic reading, so snapshots compare
	if now.After(e.now) {
		e.now = now
	}
	e.out = nil
	e.advance()
}

func (e *Event) finish() []Notification {
	out := e.out
	e.out = nil
	return out
}

// fail reports an error found before touching the event.
func (e *Event) fail(now time.Time, err error) ([]Notification, error) {
	e.begin(now)
	return e.failed(err)
}

func (e *Event) failed(err error) ([]Notification, error) {
	return e.finish(), err
}

// present brings the event up to now and looks up a participant who has
// joined and not left.
func (e *Event) present(now time.Time, key string) (*person, error) {
	if err := checkKey(key); err != nil {
		e.begin(now)
		return nil, err
	}
	e.begin(now)
	p, ok := e.people[key]
	if !ok {
		return nil, cupid.NotFound("participant", "%q has not joined", key)
	}
	if p.state == StateGone {
		return nil, cupid.Conflict("participant", "%q has left the event; join again first", key)
	}
	return p, nil
}

func (e *Event) notify(n Notification) {
	n.At = e.now
	e.out = append(e.out, n)
}

// advance ends the countdown or round whose deadline has passed. Each step
// schedules the next from e.now, so a late call cannot run a round in the
// past; the loop ends because every new deadline lies after e.now, or the
// event goes idle.
func (e *Event) advance() {
	for {
		at, step := e.nextStep()
		if step == stepNone || e.now.Before(at) {
			return
		}
		switch {
		case step == stepReveal:
			e.reveal()
		case step == stepOvertime:
			e.endOvertime(at)
		case step == stepCap:
			e.changed()
		case e.phase == PhaseCountdown:
			e.startRound()
		default:
			e.endRound(false)
		}
	}
}

// changed notes a change that may allow a pair where the last round found
// none, and starts a countdown if one is due.
func (e *Event) changed() {
	e.stale = false
	e.capWake = time.Time{}
	e.maybeCountdown()
}

// maybeCountdown starts a countdown if the event is idle and enough people
// wait in the lobby.
func (e *Event) maybeCountdown() {
	if e.phase != PhaseIdle || e.stale || e.paused || e.lobby < e.cfg.MinLobby {
		return
	}
	e.phase = PhaseCountdown
	e.deadline = e.now.Add(e.cfg.Countdown)
	for _, k := range e.inState(StateLobby) {
		e.notify(Notification{Participant: k, Kind: KindCountdownStarted, Deadline: e.deadline})
	}
	e.advance() // a zero countdown computes the round at once
}

// checkCountdown cancels a countdown that too few people are left for.
func (e *Event) checkCountdown() {
	if e.phase != PhaseCountdown || e.lobby >= e.cfg.MinLobby {
		return
	}
	e.phase = PhaseIdle
	e.deadline = time.Time{}
	for _, k := range e.inState(StateLobby) {
		e.notify(Notification{Participant: k, Kind: KindCountdownCancelled})
	}
}

// leaveRoom takes key out of its room. In a trio the other two go on
// with their date; otherwise the partner is sent back to the lobby and
// the room is free again. A round whose rooms have all emptied ends.
func (e *Event) leaveRoom(key string, p *person) {
	room := p.room
	pr := e.rooms[room-1]
	if pr.C != "" {
		rest := slices.DeleteFunc(pr.members(), func(k string) bool { return k == key })
		for i, k := range rest {
			q := e.people[k]
			q.partner, q.third = rest[1-i], ""
			q.extend = false
			e.notify(Notification{Participant: k, Kind: KindTrioLeft, Partner: rest[1-i], Third: key, Room: room, Round: pr.round})
		}
		pr.A, pr.B, pr.C = min(rest[0], rest[1]), max(rest[0], rest[1]), ""
		e.rooms[room-1] = pr
		p.room, p.partner, p.third, p.extend = 0, "", "", false
		return
	}
	q := e.people[p.partner]
	q.state = StateLobby
	q.room, q.partner, q.extend = 0, "", false
	e.lobby++
	e.notify(Notification{Participant: p.partner, Kind: KindPartnerLeft, Partner: key, Room: room, Round: pr.round})
	p.room, p.partner, p.extend = 0, "", false
	e.vacate(room)
	if e.phase == PhaseRound && e.roomsInUse() == 0 {
		e.phase = PhaseIdle
		e.deadline = time.Time{}
		e.changed()
		return
	}
	if pr.round != e.round || e.phase != PhaseRound {
		e.changed() // an extended date ended: its people are back
	}
}

// endRound ends the round: everyone in a room of it goes back to the
// lobby, except the dates extended beyond it, unless force (the organiser
// ended the round now).
func (e *Event) endRound(force bool) {
	for i, pr := range e.rooms {
		if pr.A == "" || (!force && pr.until.After(e.now)) {
			continue
		}
		e.closeRoom(i + 1)
	}
	e.phase = PhaseIdle
	e.deadline = time.Time{}
	e.changed()
}

// endOvertime ends the extended dates due at at.
func (e *Event) endOvertime(at time.Time) {
	for i, pr := range e.rooms {
		if pr.A != "" && !pr.until.IsZero() && !pr.until.After(at) {
			e.closeRoom(i + 1)
		}
	}
	e.changed()
}

// closeRoom sends the people in room back to the lobby.
func (e *Event) closeRoom(room int) {
	pr := e.rooms[room-1]
	for _, k := range pr.members() {
		p := e.people[k]
		e.notify(Notification{Participant: k, Kind: KindRoundEnded, Partner: p.partner, Third: p.third, Room: room, Round: pr.round})
		p.state = StateLobby
		p.room, p.partner, p.third, p.extend = 0, "", "", false
		e.lobby++
	}
	e.vacate(room)
}

// vacate empties a room.
func (e *Event) vacate(room int) {
	if !e.rooms[room-1].until.IsZero() {
		e.overtime--
	}
	e.rooms[room-1] = pair{}
}

// roomsInUse counts the rooms of the current round still in use (an
// extended date of an earlier round does not keep a round going).
func (e *Event) roomsInUse() int {
	n := 0
	for _, pr := range e.rooms {
		if pr.A != "" && pr.round == e.round {
			n++
		}
	}
	return n
}

// minDateLeft returns how long the date in room must still last.
func (e *Event) minDateLeft(room int) time.Duration {
	pr := e.rooms[room-1]
	if e.cfg.MinDate == 0 || pr.round != e.round || e.phase != PhaseRound {
		return 0
	}
	start := e.roundStart
	if e.paused {
		start = start.Add(e.now.Sub(e.pausedAt)) // a pause does not count
	}
	return max(0, e.cfg.MinDate-e.now.Sub(start))
}

// inState lists the keys of the people in a state, sorted, so that every
// decision and notification order is independent of map order.
func (e *Event) inState(s State) []string {
	var keys []string
	for k, p := range e.people {
		if p.state == s {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// metEither reports whether either record says a and b have met.
func (e *Event) metEither(a, b string) bool {
	if _, ok := e.people[a].met[b]; ok { // a's record
		return true
	}
	_, ok := e.people[b].met[a]
	return ok
}

// newPerson adds someone the event did not know.
func (e *Event) newPerson(key string, state State) *person {
	p := &person{state: state, met: make(map[string]int32), id: int32(len(e.byID))}
	e.people[key] = p
	e.byID = append(e.byID, p)
	return p
}

// mayPair is the rule for who may be paired: neither record says they
// met, neither's never list names the other, and the mode's group rule
// allows them.
func (e *Event) mayPair(a, b string) bool {
	if a == b || e.metEither(a, b) {
		return false
	}
	p, q := e.people[a], e.people[b]
	if _, ok := p.never[b]; ok {
		return false
	}
	if _, ok := q.never[a]; ok {
		return false
	}
	if _, ok := p.barred[b]; ok {
		return false
	}
	if _, ok := q.barred[a]; ok {
		return false
	}
	switch e.cfg.mode() {
	case ModeWithinGroup:
		return p.group == q.group
	case ModeTwoSided, ModeCrossGroup:
		return p.group != q.group
	}
	return true
}

// Status is one participant's place in an event: what a client that calls
// or reconnects needs to know about itself, without the whole snapshot.
type Status struct {
	State State
	// Room and Partner are set when State is StateRoom; Third too in a
	// trio.
	Room    int
	Partner string
	Third   string
	// Group is the participant's group or side, if the event has them.
	Group string
}

// Status returns the participant's status, and false when the event has
// never known the key.
func (e *Event) Status(key string) (Status, bool) {
	p, ok := e.people[key]
	if !ok {
		return Status{}, false
	}
	return Status{State: p.state, Room: p.room, Partner: p.partner, Third: p.third, Group: p.group}, true
}

// Known returns how many people the event knows, present or gone; a server
// bounds it, since a departed person's record is kept.
func (e *Event) Known() int { return len(e.people) }
