// Package party holds the rules of parties: players who chose to play
// together, formed by invites they accept or a join code they use, and
// queued as one ticket by their leader. It is pure: every transition takes
// a party and the time, and returns the new party and the events to tell
// its members, or a *cupid.Error naming the field at fault, leaving the
// party as it was. The service (service/partysvc) stores, tells and calls
// the ticket service; what may happen is decided here, once.
//
// A party is the consent the ticket service cannot see: each member joined
// it with his own credential, so the leader's one ticket naming them all is
// a ticket every player in it asked for.
package party

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
)

// Phase is where a party is with its queue.
type Phase string

// The phases. Idle: together, not queued (after a match the party is idle
// again, ready to queue once more). Queued: its ticket waits. Matched: its
// ticket is in a match that no backend has assigned a server yet.
const (
	Idle    Phase = "idle"
	Queued  Phase = "queued"
	Matched Phase = "matched"
)

// Member is one player of a party with the values he set for himself: the
// leader's ticket carries them as he last set them.
type Member struct {
	ID         string           `json:"id"`
	Attributes cupid.Attributes `json:"attributes,omitempty"`
	Latencies  map[string]int32 `json:"latencies,omitempty"`
	Ready      bool             `json:"ready,omitempty"`
	JoinedAt   time.Time        `json:"joined_at"`
}

// Invite is a pending invitation of a player, until he answers or it
// expires.
type Invite struct {
	Player    string    `json:"player"`
	By        string    `json:"by"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Party is the whole state of one party. Members are in the order they
// joined (the leader need not be first: leadership can be handed over);
// when the leader leaves, the member who joined earliest leads.
type Party struct {
	ID        string    `json:"id"`
	Leader    string    `json:"leader"`
	Members   []Member  `json:"members"`
	Invites   []Invite  `json:"invites,omitempty"`
	Code      string    `json:"code"`
	CreatedAt time.Time `json:"created_at"`
	Phase     Phase     `json:"phase"`
	// Queue and TicketID are the party's ticket while it is queued or
	// matched; MatchID its match once matched. TicketSeq is the last of
	// the ticket's events the party has followed, so a restarted server
	// resumes after it.
	Queue     string `json:"queue,omitempty"`
	TicketID  string `json:"ticket_id,omitempty"`
	MatchID   string `json:"match_id,omitempty"`
	TicketSeq int64  `json:"ticket_seq,omitempty"`
	// Seq is the sequence number of the party's last event.
	Seq int64 `json:"seq"`
}

// EventKind says what happened to a party.
type EventKind string

// The party events members hear.
const (
	EventCreated       EventKind = "created"
	EventInvited       EventKind = "invited"
	EventDeclined      EventKind = "declined"
	EventInviteExpired EventKind = "invite_expired"
	EventJoined        EventKind = "joined"
	EventLeft          EventKind = "left"
	EventRemoved       EventKind = "removed"
	EventLeader        EventKind = "leader"
	EventReady         EventKind = "ready"
	EventMember        EventKind = "member"
	EventQueued        EventKind = "queued"
	EventMatched       EventKind = "matched"
	EventAssigned      EventKind = "assigned"
	EventRequeued      EventKind = "requeued"
	EventCancelled     EventKind = "cancelled"
	EventDisbanded     EventKind = "disbanded"
)

// Event is one change of a party. Player is whom it is about, By who did
// it when that is someone else (the leader who removed a member).
type Event struct {
	Seq        int64             `json:"seq"`
	Kind       EventKind         `json:"kind"`
	At         time.Time         `json:"at"`
	Player     string            `json:"player,omitempty"`
	By         string            `json:"by,omitempty"`
	Ready      bool              `json:"ready,omitempty"`
	Queue      string            `json:"queue,omitempty"`
	TicketID   string            `json:"ticket_id,omitempty"`
	MatchID    string            `json:"match_id,omitempty"`
	Assignment *cupid.Assignment `json:"assignment,omitempty"`
	Reason     string            `json:"reason,omitempty"`
}

// Limits bound a party. They are decided here so that every way in meets
// the same ones.
type Limits struct {
	// MaxMembers is the most players a party holds: the largest party any
	// configured queue takes (its ruleset's player_max_number), since a
	// larger party could queue nowhere.
	MaxMembers int
	// MaxInvites bounds the pending invites of one party, and
	// MaxInvitesPerPlayer those one player holds from all parties, so
	// nobody can flood a player or grow the server without bound.
	MaxInvites          int
	MaxInvitesPerPlayer int
	// InviteTTL is how long an invite waits for its answer.
	InviteTTL time.Duration
}

// The default limits (MaxMembers comes from the queues).
const (
	DefaultMaxInvites          = 16
	DefaultMaxInvitesPerPlayer = 32
	DefaultInviteTTL           = 5 * time.Minute
	// MaxMembersCap bounds MaxMembers whatever the queues allow: a ticket
	// holds at most cupid.MaxPlayersPerTicket players.
	MaxMembersCap = cupid.MaxPlayersPerTicket
)

// WithDefaults fills zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxMembers <= 0 || l.MaxMembers > MaxMembersCap {
		l.MaxMembers = MaxMembersCap
	}
	if l.MaxInvites <= 0 {
		l.MaxInvites = DefaultMaxInvites
	}
	if l.MaxInvitesPerPlayer <= 0 {
		l.MaxInvitesPerPlayer = DefaultMaxInvitesPerPlayer
	}
	if l.InviteTTL <= 0 {
		l.InviteTTL = DefaultInviteTTL
	}
	return l
}

// World is what a transition needs to know of the other parties: the party
// a player is in ("" for none) and how many pending invites he holds. The
// service keeps these indexes; a test passes maps.
type World struct {
	PartyOf func(player string) string
	Invites func(player string) int
}

func (w World) partyOf(p string) string {
	if w.PartyOf == nil {
		return ""
	}
	return w.PartyOf(p)
}

func (w World) invites(p string) int {
	if w.Invites == nil {
		return 0
	}
	return w.Invites(p)
}

// Result is a transition's outcome: the party after it (nil when the party
// ended: its last member left) and the events, numbered. CancelTicket,
// when set, is the party's ticket the service must cancel, with Reason
// (a member left or is no longer ready while the party was queued).
type Result struct {
	Party        *Party
	Events       []Event
	CancelTicket string
	Reason       string
}

// clone copies p deeply enough that a transition never changes its input.
func (p *Party) clone() *Party {
	c := *p
	c.Members = slices.Clone(p.Members)
	for i := range c.Members {
		c.Members[i].Attributes = slices.Clone(c.Members[i].Attributes)
		c.Members[i].Latencies = maps.Clone(c.Members[i].Latencies)
	}
	c.Invites = slices.Clone(p.Invites)
	return &c
}

// emit numbers an event and adds it to r.
func (r *Result) emit(ev Event) {
	r.Party.Seq++
	ev.Seq = r.Party.Seq
	r.Events = append(r.Events, ev)
}

// Member returns the member id, if he is one.
func (p *Party) Member(id string) (Member, bool) {
	i := p.member(id)
	if i < 0 {
		return Member{}, false
	}
	return p.Members[i], true
}

func (p *Party) member(id string) int {
	return slices.IndexFunc(p.Members, func(m Member) bool { return m.ID == id })
}

func (p *Party) invite(id string) int {
	return slices.IndexFunc(p.Invites, func(i Invite) bool { return i.Player == id })
}

// Invited reports whether player holds a pending invite of the party.
func (p *Party) Invited(player string) bool { return p.invite(player) >= 0 }

// MemberIDs lists the members in join order.
func (p *Party) MemberIDs() []string {
	out := make([]string, len(p.Members))
	for i, m := range p.Members {
		out[i] = m.ID
	}
	return out
}

// NextExpiry is when the party's earliest invite expires (zero: none).
func (p *Party) NextExpiry() time.Time {
	var t time.Time
	for _, i := range p.Invites {
		if t.IsZero() || i.ExpiresAt.Before(t) {
			t = i.ExpiresAt
		}
	}
	return t
}

// checkPlayer checks an id a caller names (the acting player, an invitee).
func checkPlayer(field, id string) error {
	switch {
	case id == "":
		return cupid.Invalid(field, "required")
	case len(id) > cupid.MaxIDLength:
		return cupid.Invalid(field, "at most %d bytes, got %d", cupid.MaxIDLength, len(id))
	case !utf8.ValidString(id):
		return cupid.Invalid(field, "must be valid UTF-8")
	}
	return nil
}

// Create makes a party of one: leader, who sets his own values m (its ID
// is the leader's). id and code are the service's (unique, random).
func Create(id, code string, m Member, now time.Time, l Limits, w World) (Result, error) {
	if err := checkPlayer("player", m.ID); err != nil {
		return Result{}, err
	}
	if err := checkMember(m); err != nil {
		return Result{}, err
	}
	if other := w.partyOf(m.ID); other != "" {
		return Result{}, cupid.Errorf(cupid.CodeAlreadyExists, "player", "player %s is already in party %s; a player is in one party at a time: leave it first", m.ID, other)
	}
	m.JoinedAt = now
	p := &Party{ID: id, Leader: m.ID, Members: []Member{m}, Code: code, CreatedAt: now, Phase: Idle}
	r := Result{Party: p}
	r.emit(Event{Kind: EventCreated, At: now, Player: m.ID})
	return r, nil
}

// checkMember checks the values a member sets for himself, as a ticket of
// him alone would be checked (sizes, lengths, finite numbers), naming the
// request's fields.
func checkMember(m Member) error {
	t := cupid.Ticket{Key: cupid.QueueKey{Queue: "party"}, Players: []cupid.Player{{ID: m.ID, Attributes: m.Attributes}}, Latencies: m.Latencies}
	err := t.Validate()
	if e, ok := err.(*cupid.Error); ok {
		f, _ := strings.CutPrefix(e.Field, "players[0].")
		if f == "id" {
			f = "player"
		}
		return cupid.Errorf(e.Code, f, "%s", e.Message)
	}
	return err
}

// Expire drops the invites due at now, telling the members each one
// expired. It changes nothing when none is due (Result.Events empty).
func (p *Party) Expire(now time.Time) Result {
	r := Result{Party: p}
	if !slices.ContainsFunc(p.Invites, func(i Invite) bool { return !now.Before(i.ExpiresAt) }) {
		return r
	}
	r.Party = p.clone()
	kept := r.Party.Invites[:0]
	for _, i := range r.Party.Invites {
		if now.Before(i.ExpiresAt) {
			kept = append(kept, i)
			continue
		}
		r.emit(Event{Kind: EventInviteExpired, At: now, Player: i.Player, By: i.By})
	}
	r.Party.Invites = kept
	return r
}

// mustMember refuses a caller who is not a member.
func (p *Party) mustMember(field, player string) error {
	if err := checkPlayer(field, player); err != nil {
		return err
	}
	if p.member(player) < 0 {
		return cupid.Errorf(cupid.CodeDenied, field, "%s is not a member of party %s", player, p.ID)
	}
	return nil
}

// mustLead refuses a caller who is not the leader.
func (p *Party) mustLead(player, what string) error {
	if err := p.mustMember("player", player); err != nil {
		return err
	}
	if p.Leader != player {
		return cupid.Errorf(cupid.CodeDenied, "player", "only the party's leader (%s) may %s", p.Leader, what)
	}
	return nil
}

// notQueued refuses a change of who is in the party while its ticket
// stands for the members it has.
func (p *Party) notQueued(what string) error {
	switch p.Phase {
	case Queued:
		return cupid.Conflict("party_id", "party %s is in queue %s; %s once its leader cancels the queue", p.ID, p.Queue, what)
	case Matched:
		return cupid.Conflict("party_id", "party %s is in a match being placed on a server; %s once it is assigned", p.ID, what)
	}
	return nil
}

// Invite invites player on behalf of by (any member may invite; the
// leader alone removes). The invite expires after l.InviteTTL.
func (p *Party) Invite(by, player string, now time.Time, l Limits, w World) (Result, error) {
	if err := p.mustMember("player", by); err != nil {
		return Result{}, err
	}
	if err := checkPlayer("invitee", player); err != nil {
		return Result{}, err
	}
	switch {
	case p.member(player) >= 0:
		return Result{}, cupid.Errorf(cupid.CodeAlreadyExists, "invitee", "%s is already a member of party %s", player, p.ID)
	case p.invite(player) >= 0:
		return Result{}, cupid.Errorf(cupid.CodeAlreadyExists, "invitee", "%s is already invited to party %s (until %s)", player, p.ID, p.Invites[p.invite(player)].ExpiresAt.UTC().Format(time.RFC3339))
	case len(p.Members)+len(p.Invites) >= l.MaxMembers:
		return Result{}, cupid.Errorf(cupid.CodeExhausted, "invitee", "party %s has %d members and %d pending invites; a party holds at most %d players (the largest party a queue takes)", p.ID, len(p.Members), len(p.Invites), l.MaxMembers)
	case len(p.Invites) >= l.MaxInvites:
		return Result{}, cupid.Errorf(cupid.CodeExhausted, "invitee", "party %s has %d pending invites, the most it may have; wait for answers or expiries", p.ID, len(p.Invites))
	case w.invites(player) >= l.MaxInvitesPerPlayer:
		return Result{}, cupid.Errorf(cupid.CodeExhausted, "invitee", "%s holds %d pending invites, the most a player may; he must answer some first", player, w.invites(player))
	}
	r := Result{Party: p.clone()}
	r.Party.Invites = append(r.Party.Invites, Invite{Player: player, By: by, ExpiresAt: now.Add(l.InviteTTL)})
	r.emit(Event{Kind: EventInvited, At: now, Player: player, By: by})
	return r, nil
}

// Answer is an invitee's answer, with his own credential: accept joins him
// (his values m: ID is his), decline drops the invite.
func (p *Party) Answer(m Member, accept bool, now time.Time, l Limits, w World) (Result, error) {
	if err := checkPlayer("player", m.ID); err != nil {
		return Result{}, err
	}
	i := p.invite(m.ID)
	if i < 0 || !now.Before(p.Invites[i].ExpiresAt) {
		why := "has no pending invite to party %s (an invite ends when it is answered or expires)"
		if i >= 0 {
			why = "has an invite to party %s that expired"
		}
		return Result{}, cupid.NotFound("party_id", "%s "+why, m.ID, p.ID)
	}
	if !accept {
		r := Result{Party: p.clone()}
		r.Party.Invites = slices.Delete(r.Party.Invites, i, i+1)
		r.emit(Event{Kind: EventDeclined, At: now, Player: m.ID})
		return r, nil
	}
	r, err := p.join(m, now, l, w)
	if err != nil {
		return Result{}, err
	}
	return r, nil
}

// JoinByCode joins m (his own values) to the party whose code he gives:
// the service found the party by the code; this checks it matches.
func (p *Party) JoinByCode(m Member, code string, now time.Time, l Limits, w World) (Result, error) {
	if err := checkPlayer("player", m.ID); err != nil {
		return Result{}, err
	}
	if code == "" || code != p.Code {
		return Result{}, cupid.NotFound("code", "no party has join code %q", code)
	}
	if p.member(m.ID) >= 0 {
		return Result{}, cupid.Errorf(cupid.CodeAlreadyExists, "player", "%s is already a member of party %s", m.ID, p.ID)
	}
	return p.join(m, now, l, w)
}

func (p *Party) join(m Member, now time.Time, l Limits, w World) (Result, error) {
	if err := checkMember(m); err != nil {
		return Result{}, err
	}
	if other := w.partyOf(m.ID); other != "" {
		return Result{}, cupid.Errorf(cupid.CodeAlreadyExists, "player", "player %s is already in party %s; a player is in one party at a time: leave it first", m.ID, other)
	}
	if err := p.notQueued("join"); err != nil {
		return Result{}, err
	}
	if len(p.Members) >= l.MaxMembers {
		return Result{}, cupid.Errorf(cupid.CodeExhausted, "party_id", "party %s is full: %d members, the largest party a queue takes", p.ID, l.MaxMembers)
	}
	r := Result{Party: p.clone()}
	if i := r.Party.invite(m.ID); i >= 0 {
		r.Party.Invites = slices.Delete(r.Party.Invites, i, i+1)
	}
	m.JoinedAt, m.Ready = now, false
	r.Party.Members = append(r.Party.Members, m)
	r.emit(Event{Kind: EventJoined, At: now, Player: m.ID})
	return r, nil
}

// Leave takes player out of the party himself.
func (p *Party) Leave(player string, now time.Time) (Result, error) {
	if err := p.mustMember("player", player); err != nil {
		return Result{}, err
	}
	return p.without(player, "", now, fmt.Sprintf("%s left the party", player)), nil
}

// Remove is the leader's: he takes member out.
func (p *Party) Remove(by, member string, now time.Time) (Result, error) {
	if err := p.mustLead(by, "remove members"); err != nil {
		return Result{}, err
	}
	if err := p.mustMember("member", member); err != nil {
		return Result{}, cupid.NotFound("member", "%s is not a member of party %s", member, p.ID)
	}
	if member == by {
		return Result{}, cupid.Invalid("member", "the leader leaves with Leave, not Remove")
	}
	return p.without(member, by, now, fmt.Sprintf("%s was removed from the party by %s", member, by)), nil
}

// without takes a member out: the party's waiting ticket (which names him)
// is cancelled with reason; a leader who leaves is followed by the member
// who joined earliest; the last member's leaving ends the party.
func (p *Party) without(player, by string, now time.Time, reason string) Result {
	r := Result{Party: p.clone()}
	i := r.Party.member(player)
	r.Party.Members = slices.Delete(r.Party.Members, i, i+1)
	kind := EventLeft
	if by != "" {
		kind = EventRemoved
	}
	r.emit(Event{Kind: kind, At: now, Player: player, By: by})
	r.cancelQueue(now, reason)
	if len(r.Party.Members) == 0 {
		r.emit(Event{Kind: EventDisbanded, At: now, Reason: "its last member left"})
		// The result carries the final party so the service can tell the
		// watchers; Party.Members empty means it is gone.
		return r
	}
	if r.Party.Leader == player {
		r.Party.Leader = r.Party.Members[0].ID
		r.emit(Event{Kind: EventLeader, At: now, Player: r.Party.Leader, Reason: "the leader left"})
	}
	return r
}

// cancelQueue asks the service to cancel a waiting ticket, and says so to
// the members with reason. A matched ticket cannot be cancelled: its match
// goes on (the ticket service's leavers and sessions handle a player who
// does not come).
func (r *Result) cancelQueue(now time.Time, reason string) {
	if r.Party.Phase != Queued {
		return
	}
	r.CancelTicket, r.Reason = r.Party.TicketID, reason
	r.emit(Event{Kind: EventCancelled, At: now, Queue: r.Party.Queue, TicketID: r.Party.TicketID, Reason: reason})
	r.Party.idle()
}

func (p *Party) idle() {
	p.Phase, p.Queue, p.TicketID, p.MatchID, p.TicketSeq = Idle, "", "", "", 0
}

// Gone reports whether the party ended (its last member left).
func (p *Party) Gone() bool { return len(p.Members) == 0 }

// HandOver is the leader's: to, a member, leads from now on.
func (p *Party) HandOver(by, to string, now time.Time) (Result, error) {
	if err := p.mustLead(by, "hand over the leadership"); err != nil {
		return Result{}, err
	}
	if err := checkPlayer("to", to); err != nil {
		return Result{}, err
	}
	if p.member(to) < 0 {
		return Result{}, cupid.NotFound("to", "%s is not a member of party %s", to, p.ID)
	}
	if to == by {
		return Result{}, cupid.Invalid("to", "%s leads the party already", to)
	}
	r := Result{Party: p.clone()}
	r.Party.Leader = to
	r.emit(Event{Kind: EventLeader, At: now, Player: to, By: by})
	return r, nil
}

// SetReady marks player ready or not. Not ready while the party waits in
// a queue cancels its ticket: he no longer wants to play now.
func (p *Party) SetReady(player string, ready bool, now time.Time) (Result, error) {
	if err := p.mustMember("player", player); err != nil {
		return Result{}, err
	}
	i := p.member(player)
	if p.Members[i].Ready == ready {
		return Result{Party: p}, nil
	}
	r := Result{Party: p.clone()}
	r.Party.Members[i].Ready = ready
	r.emit(Event{Kind: EventReady, At: now, Player: player, Ready: ready})
	if !ready {
		r.cancelQueue(now, player+" is no longer ready")
	}
	return r, nil
}

// SetMember replaces player's own attributes and latencies. A queued
// party's ticket carries the values it was made with, so they change only
// while the party is not queued.
func (p *Party) SetMember(m Member, now time.Time) (Result, error) {
	if err := p.mustMember("player", m.ID); err != nil {
		return Result{}, err
	}
	if err := checkMember(m); err != nil {
		return Result{}, err
	}
	if err := p.notQueued("change a member's values"); err != nil {
		return Result{}, err
	}
	r := Result{Party: p.clone()}
	i := r.Party.member(m.ID)
	r.Party.Members[i].Attributes, r.Party.Members[i].Latencies = m.Attributes, m.Latencies
	r.emit(Event{Kind: EventMember, At: now, Player: m.ID})
	return r, nil
}

// QueueRules are what a queue asks of a party.
type QueueRules struct {
	// MaxParty is the largest party the queue takes (its ruleset's
	// player_max_number); zero: no limit here (the ticket service's check
	// still applies).
	MaxParty int
	// AllReady makes the leader wait until every member is ready.
	AllReady bool
}

// Ticket is the leader's check before queueing: it returns the one ticket
// naming every member with his own values, which the service creates with
// the server's authority, then records with Queued. The ticket's latency to
// a region is the worst of the members' for the regions every member who
// gave latencies gave (a party plays on one server).
func (p *Party) Ticket(by, queue string, q QueueRules) (*cupid.Ticket, error) {
	if err := p.mustLead(by, "queue the party"); err != nil {
		return nil, err
	}
	if queue == "" {
		return nil, cupid.Invalid("queue", "required")
	}
	if p.Phase != Idle {
		return nil, cupid.Conflict("party_id", "party %s is %s already (ticket %s)", p.ID, p.Phase, p.TicketID)
	}
	if q.MaxParty > 0 && len(p.Members) > q.MaxParty {
		return nil, cupid.Invalid("queue", "party %s has %d members; queue %s takes parties of at most %d", p.ID, len(p.Members), queue, q.MaxParty)
	}
	if q.AllReady {
		var waiting []string
		for _, m := range p.Members {
			if !m.Ready {
				waiting = append(waiting, m.ID)
			}
		}
		if len(waiting) > 0 {
			return nil, cupid.Errorf(cupid.CodeConflict, "party_id", "queue %s needs every member ready; not ready: %s", queue, strings.Join(waiting, ", "))
		}
	}
	t := &cupid.Ticket{Key: cupid.QueueKey{Queue: queue}}
	var lat map[string]int32
	for _, m := range p.Members {
		t.Players = append(t.Players, cupid.Player{ID: m.ID, Attributes: slices.Clone(m.Attributes)})
		if len(m.Latencies) == 0 {
			continue
		}
		if lat == nil {
			lat = maps.Clone(m.Latencies)
			continue
		}
		for region, ms := range lat {
			mine, ok := m.Latencies[region]
			switch {
			case !ok:
				delete(lat, region)
			case mine > ms:
				lat[region] = mine
			}
		}
	}
	t.Latencies = lat
	return t, nil
}

// Queued records the ticket the service created for the party.
func (p *Party) Queued(queue, ticketID string, seq int64, now time.Time) Result {
	r := Result{Party: p.clone()}
	r.Party.Phase, r.Party.Queue, r.Party.TicketID, r.Party.MatchID, r.Party.TicketSeq = Queued, queue, ticketID, "", seq
	r.emit(Event{Kind: EventQueued, At: now, Queue: queue, TicketID: ticketID})
	return r
}

// CancelQueue is the leader's: the party's waiting ticket is cancelled.
func (p *Party) CancelQueue(by string, now time.Time) (Result, error) {
	if err := p.mustLead(by, "cancel the queue"); err != nil {
		return Result{}, err
	}
	if p.Phase != Queued {
		return Result{}, cupid.Conflict("party_id", "party %s is not waiting in a queue (it is %s)", p.ID, p.Phase)
	}
	r := Result{Party: p.clone()}
	r.cancelQueue(now, "the leader "+by+" cancelled the queue")
	return r, nil
}

// TicketEvent follows the party's ticket: matched, assigned (the party is
// idle again, together, and its members' ready flags are cleared for the
// next game), requeued, and an end without a match (cancelled, expired).
// Events of another ticket, or seen already, change nothing.
func (p *Party) TicketEvent(ev cupid.Event) Result {
	r := Result{Party: p}
	if ev.TicketID != p.TicketID || p.TicketID == "" || ev.Seq <= p.TicketSeq {
		return r
	}
	r.Party = p.clone()
	r.Party.TicketSeq = ev.Seq
	base := Event{At: ev.At, Queue: p.Queue, TicketID: p.TicketID}
	switch ev.Kind {
	case cupid.EventMatched:
		r.Party.Phase = Matched
		if ev.Match != nil {
			r.Party.MatchID = ev.Match.ID
		}
		base.Kind, base.MatchID = EventMatched, r.Party.MatchID
	case cupid.EventAssigned:
		base.Kind, base.MatchID, base.Assignment = EventAssigned, r.Party.MatchID, ev.Assignment
		if base.MatchID == "" && ev.Match != nil {
			base.MatchID = ev.Match.ID
		}
		r.Party.idle()
		for i := range r.Party.Members {
			r.Party.Members[i].Ready = false
		}
	case cupid.EventRequeued:
		r.Party.Phase, r.Party.MatchID = Queued, ""
		base.Kind, base.Reason = EventRequeued, ev.Reason
	case cupid.EventCancelled, cupid.EventExpired:
		base.Kind, base.Reason = EventCancelled, ev.Reason
		if ev.Kind == cupid.EventExpired && base.Reason == "" {
			base.Reason = "the ticket expired"
		}
		if base.Reason == "" {
			base.Reason = "the ticket was cancelled"
		}
		r.Party.idle()
	default:
		// created, proposed: nothing the party shows.
		return r
	}
	r.emit(base)
	return r
}
