// Package partysvc runs parties (package party) as part of the server: it
// owns every party of the node, keeps each in the store as a document,
// queues a party's one ticket through the ticket service with the server's
// authority, follows that ticket, and tells the party's watchers.
//
// One node runs the parties at a time, like the speed-dating events: alone
// on its own store, or the holder of the "parties" lease on a shared one,
// every write carrying the lease's fence (RunParties, StopParties).
//
// Every change is store, then tell: a transition of package party decides,
// the document is written, and only then do the indexes, the watchers and
// the caller hear of it. A refused or failed change leaves everything as it
// was. Changes are serialized by one lock: parties change at human speed
// (an invite, a ready click), and one order makes the rules that span
// parties (a player is in one party; his pending invites) exact.
package partysvc

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/epoch"
)

// DocumentKind is the kind under which parties are kept in the document
// store; the document's id is the party's id.
const DocumentKind = "party"

// Lease is the lease that gives a node of several the parties.
const Lease = "parties"

// Limits of the service besides a party's own (party.Limits).
const (
	// DefaultMaxParties bounds the parties of a server: each is a player's
	// choice, but tokens are cheap and the memory is the server's.
	DefaultMaxParties = 100_000
	// historyLen is how many of a party's latest events it keeps (in the
	// store too) for watchers that resume by sequence number.
	historyLen = 64
	// watchBuffer is a watcher's buffer; one that lets it fill is dropped
	// and resumes with after_seq, losing nothing.
	watchBuffer = 64
	// codeLen is the length of a join code: 8 of 32 letters, 40 bits.
	codeLen = 8
)

// Tickets is what the service needs of the ticket service
// (*ticketsvc.Service).
type Tickets interface {
	CreateTicket(ctx context.Context, t *cupid.Ticket, replace bool) (*cupid.Ticket, bool, error)
	CancelTicketBecause(ctx context.Context, id, reason string) (*cupid.Ticket, error)
	WatchAssignment(ctx context.Context, id string, afterSeq int64, send func(cupid.Event) error) error
}

// Options configure the service.
type Options struct {
	// Docs keeps the parties; Tickets queues them. Both required.
	Docs    cupid.DocumentStore
	Tickets Tickets
	// Queues gives each queue's rules for parties (its largest party,
	// whether every member must be ready); a queue not listed asks nothing
	// beyond what the ticket service checks.
	Queues map[string]party.QueueRules
	// Limits bound each party; zero fields take party's defaults, and a
	// zero MaxMembers the largest MaxParty of Queues.
	Limits party.Limits
	// MaxParties bounds the parties of the server; DefaultMaxParties when
	// zero.
	MaxParties int
	Logger     *slog.Logger
	Registry   prometheus.Registerer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Retry is how long a follower waits before watching its ticket again
	// after the watch failed; a second when zero.
	Retry time.Duration
	// Blocks, when set, keeps a player out of a party holding someone he
	// blocked or who blocked him (the encounter history's block lists).
	Blocks Blocks
}

// Blocks refuses a player's joining a group holding someone he must never
// be with (encountersvc.Service.CheckJoin).
type Blocks interface {
	CheckJoin(ctx context.Context, player string, members []string, group string) error
}

// Service runs the parties of the node.
type Service struct {
	blocks     Blocks
	docs       cupid.DocumentStore
	tickets    Tickets
	queues     map[string]party.QueueRules
	limits     party.Limits
	maxParties int
	log        *slog.Logger
	now        func() time.Time
	retry      time.Duration
	metrics    *metrics

	mu       sync.Mutex
	parties  map[string]*entry
	byPlayer map[string]string          // player → his party
	byCode   map[string]string          // join code → party
	invites  map[string]map[string]bool // player → the parties that invited him
	// gate is the life of the parties this node runs now (guarded by mu);
	// its fence is the lease's, which every write carries (zero on a node
	// of its own).
	gate *epoch.Gate

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}
}

// entry is one party with what only this node holds: its recent events
// and its watchers.
type entry struct {
	p      *party.Party
	events []party.Event
	subs   map[*watcher]struct{}
	// following is the ticket the party's follower goroutine watches.
	following string
}

// New builds the service; Start (or RunParties) loads the stored parties.
func New(o Options) (*Service, error) {
	if o.Docs == nil || o.Tickets == nil {
		return nil, errors.New("partysvc: a document store and the ticket service are required")
	}
	l := o.Limits
	if l.MaxMembers == 0 {
		for _, q := range o.Queues {
			l.MaxMembers = max(l.MaxMembers, q.MaxParty)
		}
	}
	s := &Service{
		docs: o.Docs, tickets: o.Tickets, queues: o.Queues, limits: l.WithDefaults(),
		maxParties: o.MaxParties, log: o.Logger, now: o.Now, retry: o.Retry, blocks: o.Blocks,
		metrics:  newMetrics(o.Registry),
		parties:  map[string]*entry{},
		byPlayer: map[string]string{}, byCode: map[string]string{}, invites: map[string]map[string]bool{},
		wake: make(chan struct{}, 1),
	}
	if s.maxParties <= 0 {
		s.maxParties = DefaultMaxParties
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.retry <= 0 {
		s.retry = time.Second
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.gate = epoch.New(s.ctx, errNotRunning)
	return s, nil
}

// Running is closed once this node runs the parties (at Start, or when it
// takes their lease); a test waits on it rather than on time.
func (s *Service) Running() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate.Serving()
}

// Limits are the limits the service applies to each party.
func (s *Service) Limits() party.Limits { return s.limits }

// Start loads the stored parties and follows their tickets; a node of its
// own calls it once.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	epoch, _ := s.gate.Current()
	s.mu.Unlock()
	if err := s.load(ctx, epoch); err != nil {
		return err
	}
	s.mu.Lock()
	s.gate.Loaded(epoch)
	s.mu.Unlock()
	s.wg.Add(1)
	go s.sweep(epoch)
	return nil
}

// RunParties runs the stored parties in a new epoch whose writes carry
// fence: a node of several calls it when it takes the parties' lease.
func (s *Service) RunParties(ctx context.Context, fence cupid.Fence) error {
	s.mu.Lock()
	s.gate.Begin(fence)
	s.mu.Unlock()
	return s.Start(ctx)
}

// StopParties stops running the parties (followers and watches end) and
// forgets them; they stay in the store for the node that runs them next.
func (s *Service) StopParties() {
	s.mu.Lock()
	s.gate.End()
	for _, e := range s.parties {
		for w := range e.subs {
			w.drop()
		}
	}
	s.parties = map[string]*entry{}
	s.byPlayer, s.byCode, s.invites = map[string]string{}, map[string]string{}, map[string]map[string]bool{}
	s.mu.Unlock()
	s.metrics.reset()
}

// Close stops the followers and the watches; the parties stay in the store.
func (s *Service) Close() {
	s.cancel()
	s.mu.Lock()
	for _, e := range s.parties {
		for w := range e.subs {
			w.drop()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// load reads every stored party, indexes it and follows its ticket.
func (s *Service) load(ctx context.Context, epoch context.Context) error {
	after := ""
	loaded, skipped := 0, 0
	for {
		docs, err := s.docs.Documents(ctx, DocumentKind, after, 256)
		if err != nil {
			return fmt.Errorf("partysvc: load parties: %w", err)
		}
		s.mu.Lock()
		for _, d := range docs {
			doc, err := decode(d)
			if err != nil {
				s.log.Error("a stored party cannot be read; it is left in the store and not run", "party", d.ID, "err", err)
				skipped++
				continue
			}
			e := &entry{p: doc.Party, events: doc.Events, subs: map[*watcher]struct{}{}}
			s.index(nil, e.p)
			s.parties[e.p.ID] = e
			s.metrics.change(nil, e.p)
			s.follow(epoch, e)
			loaded++
		}
		s.mu.Unlock()
		if len(docs) < 256 {
			break
		}
		after = docs[len(docs)-1].ID
	}
	s.log.Info("loaded parties", "parties", loaded, "unreadable", skipped)
	return nil
}

// documentVersion is the stored format; decode refuses others.
const documentVersion = 1

// document is how a party is stored: its state and its latest events.
type document struct {
	Version int           `json:"version"`
	Party   *party.Party  `json:"party"`
	Events  []party.Event `json:"events,omitempty"`
}

func decode(d cupid.Document) (document, error) {
	var doc document
	if err := json.Unmarshal(d.Body, &doc); err != nil {
		return doc, fmt.Errorf("not a party document: %w", err)
	}
	if doc.Version != documentVersion {
		return doc, fmt.Errorf("document version %d, this server reads %d", doc.Version, documentVersion)
	}
	if doc.Party == nil || doc.Party.ID != d.ID || len(doc.Party.Members) == 0 {
		return doc, fmt.Errorf("document of party %q stored under id %q has no members", partyID(doc.Party), d.ID)
	}
	return doc, nil
}

func partyID(p *party.Party) string {
	if p == nil {
		return ""
	}
	return p.ID
}

// world is the indexes as package party reads them; s.mu is held.
func (s *Service) world() party.World {
	return party.World{
		PartyOf: func(p string) string { return s.byPlayer[p] },
		Invites: func(p string) int { return len(s.invites[p]) },
	}
}

// index moves the indexes from old to new (either may be nil); s.mu is
// held.
func (s *Service) index(old, new *party.Party) {
	if old != nil {
		for _, m := range old.Members {
			delete(s.byPlayer, m.ID)
		}
		for _, i := range old.Invites {
			if delete(s.invites[i.Player], old.ID); len(s.invites[i.Player]) == 0 {
				delete(s.invites, i.Player)
			}
		}
		delete(s.byCode, old.Code)
	}
	if new != nil && !new.Gone() {
		for _, m := range new.Members {
			s.byPlayer[m.ID] = new.ID
		}
		for _, i := range new.Invites {
			if s.invites[i.Player] == nil {
				s.invites[i.Player] = map[string]bool{}
			}
			s.invites[i.Player][new.ID] = true
		}
		s.byCode[new.Code] = new.ID
	}
}

// errNotRunning answers a call while this node runs no parties.
var errNotRunning = cupid.Errorf(cupid.CodeUnavailable, "", "the parties are not running on this node right now; try again in a few seconds")

// live returns the epoch, waiting while the parties are being loaded and
// refusing when this node runs none; s.mu is held (and let go while it
// waits).
func (s *Service) live(ctx context.Context) (context.Context, error) {
	epoch, _, err := s.gate.Wait(ctx, &s.mu)
	return epoch, err
}

// get finds a party, with its invites due expired first; s.mu is held.
func (s *Service) get(ctx context.Context, id string) (*entry, error) {
	if id == "" {
		return nil, cupid.Invalid("party_id", "required")
	}
	if len(id) > cupid.MaxIDLength {
		return nil, cupid.Invalid("party_id", "at most %d bytes", cupid.MaxIDLength)
	}
	e := s.parties[id]
	if e == nil {
		return nil, cupid.NotFound("party_id", "no party %s", id)
	}
	if r := e.p.Expire(s.now()); len(r.Events) > 0 {
		if err := s.apply(ctx, e, r); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// apply stores a transition's result, then updates the indexes and tells
// the watchers; s.mu is held. On a store error nothing changes.
func (s *Service) apply(ctx context.Context, e *entry, r party.Result) error {
	if len(r.Events) == 0 {
		return nil
	}
	events := append(e.events, r.Events...)
	if len(events) > historyLen {
		events = append([]party.Event(nil), events[len(events)-historyLen:]...)
	}
	_, fence := s.gate.Current()
	var err error
	if r.Party.Gone() {
		err = s.docs.DeleteDocument(ctx, fence, DocumentKind, r.Party.ID)
	} else {
		body, merr := json.Marshal(document{Version: documentVersion, Party: r.Party, Events: events})
		if merr != nil {
			return merr
		}
		err = s.docs.PutDocument(ctx, fence, DocumentKind, r.Party.ID, body, s.now())
	}
	if err != nil {
		s.metrics.storeErrors.Inc()
		s.log.Warn("storing a party failed; the change is refused", "party", r.Party.ID, "err", err)
		if errors.Is(err, cupid.ErrFenced) {
			return cupid.Errorf(cupid.CodeUnavailable, "", "the parties moved to another node; try again")
		}
		return cupid.Errorf(cupid.CodeUnavailable, "", "the party could not be stored; try again")
	}
	s.index(e.p, r.Party)
	s.metrics.change(e.p, r.Party)
	for _, ev := range r.Events {
		s.metrics.events.WithLabelValues(string(ev.Kind)).Inc()
	}
	e.p, e.events = r.Party, events
	if r.Party.Gone() {
		delete(s.parties, r.Party.ID)
	}
	for w := range e.subs {
		w.send(r.Events)
	}
	if len(r.Party.Invites) > 0 {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// newCode returns a join code no party has; s.mu is held.
func (s *Service) newCode() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // no I, O, 0, 1
	for {
		var b [codeLen]byte
		rand.Read(b[:])
		for i := range b {
			b[i] = alphabet[int(b[i])%len(alphabet)]
		}
		if c := string(b[:]); s.byCode[c] == "" {
			return c
		}
	}
}

// Create makes a party led by m.ID, who sets his own values in m.
func (s *Service) Create(ctx context.Context, m party.Member) (*party.Party, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.live(ctx); err != nil {
		return nil, err
	}
	if len(s.parties) >= s.maxParties {
		return nil, cupid.Errorf(cupid.CodeExhausted, "", "the server holds %d parties, the most it may; try again later", len(s.parties))
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	r, err := party.Create(id.String(), s.newCode(), m, s.now(), s.limits, s.world())
	if err != nil {
		return nil, err
	}
	// An empty party before it: nothing to take out of the indexes.
	e := &entry{p: &party.Party{}, subs: map[*watcher]struct{}{}}
	if err := s.apply(ctx, e, r); err != nil {
		return nil, err
	}
	s.parties[e.p.ID] = e
	return e.p, nil
}

// Get returns a party as player sees it: he must be a member or hold an
// invite ("" for a trusted caller, a server key).
func (s *Service) Get(ctx context.Context, id, player string) (*party.Party, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.live(ctx); err != nil {
		return nil, err
	}
	e, err := s.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := mayRead(e.p, player); err != nil {
		return nil, err
	}
	return e.p, nil
}

// PartyOf returns the party player is in. The index is read once the
// parties run: while they load or run elsewhere it is empty, and "in no
// party" would be wrong.
func (s *Service) PartyOf(ctx context.Context, player string) (*party.Party, error) {
	if player == "" {
		return nil, cupid.Invalid("player", "required (or party_id)")
	}
	s.mu.Lock()
	_, err := s.live(ctx)
	id := s.byPlayer[player]
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, cupid.NotFound("player", "%s is in no party", player)
	}
	return s.Get(ctx, id, player)
}

// PendingInvite is one invite a player holds, with its party.
type PendingInvite struct {
	party.Invite
	PartyID, Leader string
}

// Invites lists player's pending invites (at most party.Limits'
// MaxInvitesPerPlayer), by party id.
func (s *Service) Invites(ctx context.Context, player string) ([]PendingInvite, error) {
	if player == "" {
		return nil, cupid.Invalid("player", "required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.live(ctx); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(s.invites[player]))
	for id := range s.invites[player] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := []PendingInvite{}
	for _, id := range ids {
		e, err := s.get(ctx, id) // expires what is due first
		if err != nil {
			continue
		}
		for _, i := range e.p.Invites {
			if i.Player == player {
				out = append(out, PendingInvite{Invite: i, PartyID: id, Leader: e.p.Leader})
			}
		}
	}
	return out, nil
}

// mayRead lets members and invitees read a party.
func mayRead(p *party.Party, player string) error {
	if player == "" {
		return nil
	}
	if _, ok := p.Member(player); ok || p.Invited(player) {
		return nil
	}
	return cupid.Errorf(cupid.CodeDenied, "player", "%s is neither a member of party %s nor invited to it", player, p.ID)
}

// change runs one transition of an existing party.
func (s *Service) change(ctx context.Context, id string, f func(p *party.Party, now time.Time) (party.Result, error)) (*party.Party, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.live(ctx); err != nil {
		return nil, err
	}
	e, err := s.get(ctx, id)
	if err != nil {
		return nil, err
	}
	r, err := f(e.p, s.now())
	if err != nil {
		return nil, err
	}
	if r.CancelTicket != "" {
		// The ticket goes first: a party that says it left the queue must
		// have. A ticket that ended meanwhile (matched a moment ago) is
		// fine: its events reach the members on their ticket watch.
		if _, err := s.tickets.CancelTicketBecause(ctx, r.CancelTicket, r.Reason); err != nil {
			switch cupid.ErrorCode(err) {
			case cupid.CodeNotFound, cupid.CodeConflict, cupid.CodeInvalid:
				s.log.Info("a party's ticket had ended before the party cancelled it", "party", id, "ticket", r.CancelTicket, "err", err)
			default:
				return nil, err
			}
		}
	}
	if err := s.apply(ctx, e, r); err != nil {
		return nil, err
	}
	return r.Party, nil
}

// Invite invites invitee on behalf of by, a member.
func (s *Service) Invite(ctx context.Context, id, by, invitee string) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.Invite(by, invitee, now, s.limits, s.world())
	})
}

// Answer is m.ID's answer to his invite; accepting joins him with m.
func (s *Service) Answer(ctx context.Context, id string, m party.Member, accept bool) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		if accept {
			if err := s.blockedFrom(ctx, p, m.ID); err != nil {
				return party.Result{}, err
			}
		}
		return p.Answer(m, accept, now, s.limits, s.world())
	})
}

// JoinByCode joins m.ID to the party whose join code is code.
func (s *Service) JoinByCode(ctx context.Context, code string, m party.Member) (*party.Party, error) {
	if code == "" {
		return nil, cupid.Invalid("code", "required")
	}
	if len(code) > cupid.MaxIDLength {
		return nil, cupid.Invalid("code", "at most %d bytes", cupid.MaxIDLength)
	}
	s.mu.Lock()
	_, err := s.live(ctx) // the index is read once the parties run (PartyOf)
	id := s.byCode[code]
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, cupid.NotFound("code", "no party has join code %q", code)
	}
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		if err := s.blockedFrom(ctx, p, m.ID); err != nil {
			return party.Result{}, err
		}
		return p.JoinByCode(m, code, now, s.limits, s.world())
	})
}

// blockedFrom refuses a player who must never be with one of the party's
// members (Blocks). It runs under the service's lock, so two players who
// blocked each other cannot both slip in at once.
func (s *Service) blockedFrom(ctx context.Context, p *party.Party, player string) error {
	if s.blocks == nil || player == "" {
		return nil
	}
	var members []string
	for _, m := range p.Members {
		members = append(members, m.ID)
	}
	return s.blocks.CheckJoin(ctx, player, members, "party "+p.ID)
}

// Leave takes player out of his party.
func (s *Service) Leave(ctx context.Context, id, player string) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.Leave(player, now)
	})
}

// Remove is the leader by's: member leaves the party.
func (s *Service) Remove(ctx context.Context, id, by, member string) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.Remove(by, member, now)
	})
}

// HandOver is the leader by's: to leads.
func (s *Service) HandOver(ctx context.Context, id, by, to string) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.HandOver(by, to, now)
	})
}

// SetReady marks player ready or not.
func (s *Service) SetReady(ctx context.Context, id, player string, ready bool) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.SetReady(player, ready, now)
	})
}

// SetMember replaces m.ID's own attributes and latencies.
func (s *Service) SetMember(ctx context.Context, id string, m party.Member) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.SetMember(m, now)
	})
}

// CancelQueue is the leader by's: the party's waiting ticket is cancelled.
func (s *Service) CancelQueue(ctx context.Context, id, by string) (*party.Party, error) {
	return s.change(ctx, id, func(p *party.Party, now time.Time) (party.Result, error) {
		return p.CancelQueue(by, now)
	})
}

// Queue is the leader by's: one ticket naming every member with his own
// values is created in queue, with the server's authority (each member
// joined the party himself: that is his consent), and the party follows it.
func (s *Service) Queue(ctx context.Context, id, by, queue string) (*party.Party, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	epoch, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.get(ctx, id)
	if err != nil {
		return nil, err
	}
	t, err := e.p.Ticket(by, queue, s.queues[queue])
	if err != nil {
		return nil, err
	}
	made, _, err := s.tickets.CreateTicket(ctx, t, false)
	if err != nil {
		return nil, ticketError(err)
	}
	r := e.p.Queued(queue, made.ID, 0, s.now())
	if err := s.apply(ctx, e, r); err != nil {
		// The party could not record its ticket: take it back, so no
		// ticket names the members without the party knowing.
		if _, cerr := s.tickets.CancelTicketBecause(context.WithoutCancel(ctx), made.ID, "the party could not record its ticket"); cerr != nil {
			s.log.Error("a party's ticket could not be recorded nor cancelled; it waits unfollowed", "party", id, "ticket", made.ID, "err", cerr)
		}
		return nil, err
	}
	s.follow(epoch, e)
	return e.p, nil
}

// ticketError places the ticket service's field under "ticket." so the
// caller knows it is about the ticket the party made ("ticket.players[1].id:
// player bob already has a live ticket …").
func ticketError(err error) error {
	var ce *cupid.Error
	if errors.As(err, &ce) && ce.Field != "" && ce.Field != "queue" {
		return cupid.Within("ticket", err)
	}
	return err
}
