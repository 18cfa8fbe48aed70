// Package lobbysvc runs custom-game lobbies (package lobby) as part of the
// server: it owns the live lobbies of the node, keeps each as one document
// in the store, tells watchers what happens and, when a host starts his
// lobby, has the ticket service form its match (ticketsvc.CommitFormed).
//
// As with the speed-dating events, one node runs every lobby at a time:
// on a node of its own for its whole life, on a node of several sharing a
// PostgreSQL store while it holds the "lobbies" lease (RunEvents to
// StopEvents), with that lease's fence on every write; the other nodes
// hand the calls over (cluster.Forwarder). A lobby's changes happen one at
// a time under its own lock, in the order store, then tell: the caller and
// the watchers hear of a change only once its document is stored.
package lobbysvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lobby"
	"github.com/cupid-match/cupid/service/epoch"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// DocumentKind is the kind under which lobbies are kept in the document
// store; the document's id is the lobby's id.
const DocumentKind = "lobby"

// Lease is the lease of a node that runs the lobbies when several share a
// store.
const Lease = "lobbies"

// historyEvents is how many of its last events a lobby keeps (in memory
// and in its document) for watchers that resume.
const historyEvents = 64

// Matches is what the service needs of the ticket service: a lobby's start
// forms a match, whose free seats may be opened to the queue (backfill).
type Matches interface {
	CommitFormed(ctx context.Context, f ticketsvc.FormedMatch) (*cupid.MatchRecord, error)
	OpenBackfill(ctx context.Context, id string, options map[string][]string) (*cupid.MatchRecord, error)
	Queues() []string
}

// FromTickets is the ticket service as Matches: the formed match and the
// queues are the service's, the backfill its hand-off's (package handoff).
func FromTickets(mm *ticketsvc.Service) Matches { return tickets{mm} }

// tickets joins the two parts of the ticket service the lobbies use.
type tickets struct{ *ticketsvc.Service }

func (t tickets) OpenBackfill(ctx context.Context, id string, options map[string][]string) (*cupid.MatchRecord, error) {
	return t.Handoff().OpenBackfill(ctx, id, options)
}

// Options configure the service.
type Options struct {
	Docs    cupid.DocumentStore
	Matches Matches
	// Limits bound lobbies and lists; zero fields take lobby.DefaultLimits.
	Limits lobby.Limits
	// Retention is how long a started or closed lobby stays readable (and
	// watchable) before it is forgotten; 10 minutes when zero.
	Retention time.Duration
	Logger    *slog.Logger
	Registry  prometheus.Registerer
	Now       func() time.Time
	// Seed drives join codes; random when zero.
	Seed uint64
	// Blocks, when set, keeps a player out of a lobby holding someone he
	// blocked or who blocked him (the encounter history's block lists).
	Blocks Blocks
}

// Blocks refuses a player's joining a group holding someone he must never
// be with (encountersvc.Service.CheckJoin).
type Blocks interface {
	CheckJoin(ctx context.Context, player string, members []string, group string) error
}

// Service runs the lobbies of the server.
type Service struct {
	docs      cupid.DocumentStore
	matches   Matches
	blocks    Blocks
	limits    lobby.Limits
	retention time.Duration
	log       *slog.Logger
	now       func() time.Time
	metrics   *metrics

	mu      sync.Mutex
	rnd     *rand.Rand
	lobbies map[string]*entry
	// byCode finds a lobby by its join code, byPlayer the live lobby a
	// player is in (a player is in one live lobby at most), hosts counts
	// the live lobbies each player hosts.
	byCode   map[string]string
	byPlayer map[string]string
	hosts    map[string]int
	// states is each held lobby's state, for the gauge.
	states map[string]lobby.State
	// gate is the life of the lobbies on this node and its lease's fence
	// (guarded by mu). While the stored lobbies are read, a call waits: a
	// lobby not read yet is not "not found", and no one may take a host's
	// or player's place that a stored lobby holds.
	gate   *epoch.Gate
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// entry is one lobby as the node holds it. mu serialises its changes,
// which hold it across the store's write; the service's mu is never held
// while waiting for it.
type entry struct {
	mu      sync.Mutex
	lobby   *lobby.Lobby
	history []lobby.Event
	// changed is closed and replaced at each change, waking watchers.
	changed chan struct{}
	// finishedAt is when the lobby started or closed (zero while live).
	finishedAt time.Time
}

// document is how a lobby is stored.
type document struct {
	Version int           `json:"version"`
	Lobby   *lobby.Lobby  `json:"lobby"`
	Events  []lobby.Event `json:"events"`
	// FinishedAt is when it started or closed.
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

const documentVersion = 1

// New builds the service; Start loads the stored lobbies.
func New(o Options) (*Service, error) {
	if o.Docs == nil || o.Matches == nil {
		return nil, errors.New("lobbysvc: a document store and the ticket service are required")
	}
	lim, err := o.Limits.WithDefaults()
	if err != nil {
		return nil, err
	}
	s := &Service{
		docs: o.Docs, matches: o.Matches, blocks: o.Blocks, limits: lim, retention: o.Retention, log: o.Logger, now: o.Now,
		metrics: newMetrics(o.Registry),
		lobbies: map[string]*entry{}, byCode: map[string]string{}, byPlayer: map[string]string{}, hosts: map[string]int{},
		states: map[string]lobby.State{},
	}
	if s.retention <= 0 {
		s.retention = 10 * time.Minute
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	seed := o.Seed
	for seed == 0 {
		seed = rand.Uint64()
	}
	s.rnd = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.gate = epoch.New(s.ctx, errShuttingDown)
	return s, nil
}

// Limits are the limits the service applies.
func (s *Service) Limits() lobby.Limits { return s.limits }

// Start loads the stored lobbies. A lobby that was starting when the
// server stopped finishes starting: its match is formed, or found formed.
func (s *Service) Start(ctx context.Context) error {
	epoch, _ := s.running()
	after := ""
	var starting []*entry
	for {
		docs, err := s.docs.Documents(ctx, DocumentKind, after, 256)
		if err != nil {
			return fmt.Errorf("lobbysvc: load lobbies: %w", err)
		}
		for _, d := range docs {
			var doc document
			if err := json.Unmarshal(d.Body, &doc); err != nil || doc.Version != documentVersion || doc.Lobby == nil || doc.Lobby.ID != d.ID {
				s.log.Error("a stored lobby cannot be read; it is left in the store", "lobby", d.ID, "err", err)
				continue
			}
			e := &entry{lobby: doc.Lobby, history: doc.Events, changed: make(chan struct{}), finishedAt: doc.FinishedAt}
			s.mu.Lock()
			s.lobbies[d.ID] = e
			s.index(nil, e.lobby)
			s.mu.Unlock()
			if e.lobby.State == lobby.Starting {
				starting = append(starting, e)
			}
		}
		if len(docs) < 256 {
			break
		}
		after = docs[len(docs)-1].ID
	}
	s.updateGauge()
	s.mu.Lock()
	s.gate.Loaded(epoch)
	s.mu.Unlock()
	for _, e := range starting {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if _, err := s.finishStart(epoch, e); err != nil {
				s.log.Warn("finishing a lobby's start after a restart failed; its host may start it again", "lobby", e.lobby.ID, "err", err)
			}
		}()
	}
	return nil
}

// RunEvents runs the stored lobbies under the fence of the lease this node
// took (cluster.Events; the name is the speed-dating service's, so one
// interface serves both).
func (s *Service) RunEvents(ctx context.Context, fence cupid.Fence) error {
	s.mu.Lock()
	s.gate.Begin(fence)
	s.mu.Unlock()
	return s.Start(ctx)
}

// StopEvents stops running the lobbies (watches end with unavailable) and
// forgets them; they stay in the store for the node that runs them next.
func (s *Service) StopEvents() {
	s.mu.Lock()
	s.gate.End()
	s.lobbies, s.byCode, s.byPlayer, s.hosts = map[string]*entry{}, map[string]string{}, map[string]string{}, map[string]int{}
	s.states = map[string]lobby.State{}
	s.mu.Unlock()
	s.updateGauge()
}

// Close ends the watches; the lobbies stay in the store.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
}

func (s *Service) running() (context.Context, cupid.Fence) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate.Current()
}

var errShuttingDown = cupid.Errorf(cupid.CodeUnavailable, "", "the lobbies are not running on this node now (shutting down or moving); try again")

// index moves a lobby's players, code and host count from what old was to
// what l is; s.mu is held.
func (s *Service) index(old, l *lobby.Lobby) {
	if old != nil && !old.State.Final() {
		for _, id := range old.Players() {
			if s.byPlayer[id] == old.ID {
				delete(s.byPlayer, id)
			}
		}
		delete(s.byCode, old.Code)
		if s.hosts[old.Host]--; s.hosts[old.Host] <= 0 {
			delete(s.hosts, old.Host)
		}
	}
	if l != nil && !l.State.Final() {
		for _, id := range l.Players() {
			s.byPlayer[id] = l.ID
		}
		s.byCode[l.Code] = l.ID
		s.hosts[l.Host]++
	}
	switch {
	case l != nil:
		s.states[l.ID] = l.State
	case old != nil:
		delete(s.states, old.ID)
	}
}

// NewLobby is what a host asks for.
type NewLobby struct {
	Host string
	// HostAttributes are the host's own values for his ticket.
	HostAttributes cupid.Attributes
	Settings       lobby.Settings
}

// CreateLobby opens and stores a lobby; the host is its first member.
func (s *Service) CreateLobby(ctx context.Context, req NewLobby) (*View, error) {
	if req.Settings.Queue != "" && !slices.Contains(s.matches.Queues(), req.Settings.Queue) {
		return nil, cupid.NotFound("settings.queue", "no queue %q; configured queues: %s", req.Settings.Queue, strings.Join(s.matches.Queues(), ", "))
	}
	now := s.now().UTC()
	s.sweep(ctx, now)
	id, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("lobbysvc: lobby id: %w", err)
	}
	s.mu.Lock()
	_, fence, werr := s.gate.Wait(ctx, &s.mu)
	code := s.freshCode()
	l, evs, err := lobby.New(id.String(), code, req.Host, req.HostAttributes, req.Settings, s.limits, now)
	switch {
	case err != nil:
	case werr != nil:
		err = werr
	case s.byPlayer[req.Host] != "":
		err = cupid.Errorf(cupid.CodeAlreadyExists, "host", "player %s is already in lobby %s: leave it first", req.Host, s.byPlayer[req.Host])
	case s.hosts[req.Host] >= s.limits.MaxPerHost:
		err = cupid.Errorf(cupid.CodeExhausted, "host", "player %s already hosts %d lobbies (at most %d)", req.Host, s.hosts[req.Host], s.limits.MaxPerHost)
	case len(s.byCode) >= s.limits.MaxLobbies:
		err = cupid.Errorf(cupid.CodeExhausted, "", "the server already runs %d lobbies (at most %d)", len(s.byCode), s.limits.MaxLobbies)
	}
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	e := &entry{lobby: l, history: evs, changed: make(chan struct{})}
	e.mu.Lock() // nobody reaches it before it is stored
	s.lobbies[l.ID] = e
	s.index(nil, l)
	s.mu.Unlock()
	defer e.mu.Unlock()
	if err := s.put(ctx, fence, e, l, e.history, now); err != nil {
		s.mu.Lock()
		delete(s.lobbies, l.ID)
		s.index(l, nil)
		s.mu.Unlock()
		return nil, err
	}
	s.metrics.events.WithLabelValues(string(lobby.EventCreated)).Inc()
	s.updateGauge()
	return viewOf(l), nil
}

// freshCode draws a code no live lobby has; s.mu is held.
func (s *Service) freshCode() string {
	for {
		c := lobby.NewCode(s.rnd.IntN)
		if s.byCode[c] == "" {
			return c
		}
	}
}

// put stores a lobby's document; e.mu is held.
func (s *Service) put(ctx context.Context, fence cupid.Fence, e *entry, l *lobby.Lobby, history []lobby.Event, now time.Time) error {
	doc := document{Version: documentVersion, Lobby: l, Events: history, FinishedAt: e.finishedAt}
	if l.State.Final() && doc.FinishedAt.IsZero() {
		doc.FinishedAt = now
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("lobbysvc: encode lobby %s: %w", l.ID, err)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.docs.PutDocument(wctx, fence, DocumentKind, l.ID, body, now); err != nil {
		s.metrics.storeErrors.Inc()
		s.log.Error("storing a lobby failed", "lobby", l.ID, "err", err)
		return cupid.Errorf(cupid.CodeUnavailable, "", "the lobby could not be stored; try again")
	}
	return nil
}

// lookup finds a live or recently finished lobby by id.
func (s *Service) lookup(ctx context.Context, field, id string) (*entry, error) {
	if id == "" {
		return nil, cupid.Invalid(field, "required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, err := s.gate.Wait(ctx, &s.mu); err != nil {
		return nil, err
	}
	e := s.lobbies[id]
	if e == nil {
		return nil, cupid.NotFound(field, "no lobby %q", id)
	}
	return e, nil
}

// change applies a transition to a lobby, stores the result and tells
// watchers; the caller hears nothing that is not stored.
func (s *Service) change(ctx context.Context, e *entry, fn func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error)) (*lobby.Lobby, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	epoch, fence := s.running()
	if epoch.Err() != nil {
		return nil, errShuttingDown
	}
	old := e.lobby
	now := s.now().UTC()
	n, evs, err := fn(old, now)
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return n, nil // nothing changed
	}
	history := append(slices.Clone(e.history), evs...)
	if over := len(history) - historyEvents; over > 0 {
		history = history[over:]
	}
	if err := s.put(ctx, fence, e, n, history, now); err != nil {
		return nil, err
	}
	e.lobby, e.history = n, history
	if n.State.Final() && e.finishedAt.IsZero() {
		e.finishedAt = now
	}
	s.mu.Lock()
	s.index(old, n)
	s.mu.Unlock()
	close(e.changed)
	e.changed = make(chan struct{})
	for _, ev := range evs {
		s.metrics.events.WithLabelValues(string(ev.Kind)).Inc()
	}
	if n.State != old.State {
		s.updateGauge()
	}
	return n, nil
}

// GetLobby returns a lobby. A private lobby's code is shown only to its
// members and to trusted callers (the API decides; see View.Code).
func (s *Service) GetLobby(ctx context.Context, id string) (*View, error) {
	e, err := s.lookup(ctx, "lobby_id", id)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return viewOf(e.lobby), nil
}

// LobbyOf returns the live lobby a player is in, if any.
func (s *Service) LobbyOf(player string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byPlayer[player]
	return id, ok
}

// Join adds a player to a lobby, found by id or by code (one of them).
func (s *Service) Join(ctx context.Context, lobbyID, code, player string, attrs cupid.Attributes, team int) (*View, error) {
	viaCode := false
	switch {
	case lobbyID == "" && code == "":
		return nil, cupid.Invalid("lobby_id", "give the lobby's id or its code")
	case code != "":
		code = lobby.NormalizeCode(code)
		s.mu.Lock()
		// The codes are known once the lobbies run: while they load or
		// run elsewhere, "no lobby has it" would be wrong.
		_, _, err := s.gate.Wait(ctx, &s.mu)
		id := s.byCode[code]
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if id == "" || (lobbyID != "" && id != lobbyID) {
			return nil, cupid.NotFound("code", "no open lobby has code %q", code)
		}
		lobbyID, viaCode = id, true
	}
	e, err := s.lookup(ctx, "lobby_id", lobbyID)
	if err != nil {
		return nil, err
	}
	// One live lobby per player: reserve him while the change is made.
	s.mu.Lock()
	if other := s.byPlayer[player]; other != "" && player != "" {
		s.mu.Unlock()
		if other == lobbyID {
			return nil, cupid.Errorf(cupid.CodeAlreadyExists, "player", "player %s is already in lobby %s", player, other)
		}
		return nil, cupid.Errorf(cupid.CodeAlreadyExists, "player", "player %s is already in lobby %s: leave it first", player, other)
	}
	if player != "" {
		s.byPlayer[player] = lobbyID
	}
	s.mu.Unlock()
	n, err := s.change(ctx, e, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		if err := s.blockedFrom(ctx, l, player); err != nil {
			return nil, nil, err
		}
		return l.Join(player, attrs, team, viaCode, now)
	})
	if err != nil {
		// The lobby is read under its own lock, before the service's (the
		// order every change keeps).
		e.mu.Lock()
		_, i := e.lobby.Member(player)
		e.mu.Unlock()
		s.mu.Lock()
		if s.byPlayer[player] == lobbyID && i < 0 {
			delete(s.byPlayer, player)
		}
		s.mu.Unlock()
		return nil, err
	}
	return viewOf(n), nil
}

// blockedFrom refuses a player who must never be with one of the lobby's
// members (Blocks). It runs under the lobby's lock, so two players who
// blocked each other cannot both slip in at once.
func (s *Service) blockedFrom(ctx context.Context, l *lobby.Lobby, player string) error {
	if s.blocks == nil || player == "" {
		return nil
	}
	var members []string
	for _, m := range l.Members {
		members = append(members, m.ID)
	}
	return s.blocks.CheckJoin(ctx, player, members, "lobby "+l.ID)
}

// Leave takes a player out of his lobby.
func (s *Service) Leave(ctx context.Context, lobbyID, player string) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.Leave(player, now)
	})
}

// SetTeam moves a player to a team (lobby.AnyTeam: the emptiest).
func (s *Service) SetTeam(ctx context.Context, lobbyID, player string, team int) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.SetTeam(player, team, now)
	})
}

// SetReady marks a player ready or not.
func (s *Service) SetReady(ctx context.Context, lobbyID, player string, ready bool) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.SetReady(player, ready, now)
	})
}

// Kick is the host's: target leaves and may not come back.
func (s *Service) Kick(ctx context.Context, lobbyID, by, target string) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.Kick(by, target, now)
	})
}

// SetLocked is the host's.
func (s *Service) SetLocked(ctx context.Context, lobbyID, by string, locked bool) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.SetLocked(by, locked, now)
	})
}

// HandOver is the host's: to becomes the host.
func (s *Service) HandOver(ctx context.Context, lobbyID, by, to string) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.HandOver(by, to, now)
	})
}

// CloseLobby is the host's: the lobby ends without a match.
func (s *Service) CloseLobby(ctx context.Context, lobbyID, by string) (*View, error) {
	return s.do(ctx, lobbyID, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		return l.Close(by, "", now)
	})
}

func (s *Service) do(ctx context.Context, lobbyID string, fn func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error)) (*View, error) {
	e, err := s.lookup(ctx, "lobby_id", lobbyID)
	if err != nil {
		return nil, err
	}
	n, err := s.change(ctx, e, fn)
	if err != nil {
		return nil, err
	}
	return viewOf(n), nil
}

// StartLobby is the host's: every member ready, the lobby becomes a match
// of its queue, with its teams, through the same hand-off as the queue's
// matches. A lobby left starting by a failure of the store is finished by
// the host starting it again (or by the next start of the server).
func (s *Service) StartLobby(ctx context.Context, lobbyID, by string) (*View, *cupid.MatchRecord, error) {
	e, err := s.lookup(ctx, "lobby_id", lobbyID)
	if err != nil {
		return nil, nil, err
	}
	_, err = s.change(ctx, e, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
		if l.State == lobby.Starting && l.Host == by {
			return l, nil, nil // a retry: finish below
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, nil, fmt.Errorf("lobbysvc: match id: %w", err)
		}
		return l.Start(by, id.String(), now)
	})
	if err != nil {
		return nil, nil, err
	}
	rec, err := s.finishStart(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	v := viewOf(e.lobby)
	e.mu.Unlock()
	return v, rec, nil
}

// finishStart forms a starting lobby's match and records the outcome: the
// lobby started, or open again with why the store refused the match. A
// failure of the store leaves it starting.
func (s *Service) finishStart(ctx context.Context, e *entry) (*cupid.MatchRecord, error) {
	e.mu.Lock()
	l := e.lobby
	e.mu.Unlock()
	if l.State != lobby.Starting {
		return nil, cupid.Conflict("lobby_id", "lobby %s is %s", l.ID, l.State)
	}
	f := ticketsvc.FormedMatch{ID: l.MatchID, Queue: l.Queue, RequestID: "lobby/" + l.ID + "/" + l.MatchID}
	for _, team := range l.TeamPlayers() {
		var ps []cupid.Player
		for _, m := range team {
			ps = append(ps, cupid.Player{ID: m.ID, Attributes: m.Attributes})
		}
		f.Teams = append(f.Teams, ps)
		f.Seats = append(f.Seats, l.TeamSize)
	}
	rec, err := s.matches.CommitFormed(ctx, f)
	switch code := cupid.ErrorCode(err); {
	case err == nil:
		s.metrics.starts.WithLabelValues("formed").Inc()
		if l.FillFromQueue && len(cupid.MatchPlayerIDs(rec.Match)) < l.Teams*l.TeamSize {
			// The match is formed whatever comes of this: a session that
			// could not open stays as it is, full or not, and says so.
			if opened, berr := s.matches.OpenBackfill(context.WithoutCancel(ctx), rec.Match.ID, nil); berr != nil {
				s.log.Warn("a lobby's match could not open its free seats to the queue", "lobby", l.ID, "match", rec.Match.ID, "err", berr)
			} else {
				rec = opened
			}
		}
		_, err = s.change(ctx, e, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
			if l.State != lobby.Starting {
				return l, nil, nil
			}
			return l.Formed(now)
		})
		return rec, err
	case code == cupid.CodeUnavailable || code == "" || errors.Is(err, context.Canceled):
		s.metrics.starts.WithLabelValues("failed").Inc()
		return nil, err
	default:
		s.metrics.starts.WithLabelValues("refused").Inc()
		why := err.Error()
		if _, cerr := s.change(ctx, e, func(l *lobby.Lobby, now time.Time) (*lobby.Lobby, []lobby.Event, error) {
			if l.State != lobby.Starting {
				return l, nil, nil
			}
			return l.StartFailed(why, now)
		}); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
}

// sweep forgets lobbies that finished more than the retention ago; their
// documents are deleted. It runs as lobbies are created (and from the
// wiring's ticker, Sweep), so finished lobbies never pile up.
func (s *Service) sweep(ctx context.Context, now time.Time) {
	s.mu.Lock()
	var gone []string
	for id, e := range s.lobbies {
		if e.mu.TryLock() {
			if !e.finishedAt.IsZero() && now.Sub(e.finishedAt) >= s.retention {
				gone = append(gone, id)
			}
			e.mu.Unlock()
		}
	}
	_, fence := s.gate.Current()
	s.mu.Unlock()
	for _, id := range gone {
		if err := s.docs.DeleteDocument(ctx, fence, DocumentKind, id); err != nil {
			s.log.Warn("deleting a finished lobby failed; tried again later", "lobby", id, "err", err)
			continue
		}
		s.mu.Lock()
		delete(s.lobbies, id)
		delete(s.states, id)
		s.mu.Unlock()
	}
	if len(gone) > 0 {
		s.updateGauge()
	}
}

// Sweep forgets the lobbies finished longer ago than the retention.
func (s *Service) Sweep(ctx context.Context) { s.sweep(ctx, s.now().UTC()) }

// Page is one page of a list.
type Page struct {
	Lobbies []*View
	// Next is the cursor of the next page; empty on the last.
	Next string
}

// ListLobbies lists the public open lobbies the filter selects, by id (so
// by creation time), a page at a time: cursor is the last id of the
// previous page.
func (s *Service) ListLobbies(ctx context.Context, f lobby.Filter, cursor string, size int) (*Page, error) {
	n, err := s.limits.Page(size)
	if err != nil {
		return nil, err
	}
	if err := f.Check(s.limits); err != nil {
		return nil, err
	}
	if len(cursor) > 64 {
		return nil, cupid.Invalid("cursor", "not a cursor this server gave")
	}
	s.mu.Lock()
	if _, _, err := s.gate.Wait(ctx, &s.mu); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	ids := make([]string, 0, len(s.byCode))
	for _, id := range s.byCode {
		if id > cursor {
			ids = append(ids, id)
		}
	}
	entries := make(map[string]*entry, len(ids))
	for _, id := range ids {
		entries[id] = s.lobbies[id]
	}
	s.mu.Unlock()
	slices.Sort(ids)
	out := &Page{}
	for _, id := range ids {
		e := entries[id]
		e.mu.Lock()
		l := e.lobby
		e.mu.Unlock()
		if !f.Matches(l) {
			continue
		}
		if len(out.Lobbies) == n {
			out.Next = out.Lobbies[n-1].ID
			break
		}
		out.Lobbies = append(out.Lobbies, viewOf(l))
	}
	return out, nil
}

// View is a lobby as callers see it; never changed once made.
type View struct {
	lobby.Lobby
	// Free is the number of empty seats.
	Free int
}

func viewOf(l *lobby.Lobby) *View {
	c := l.Clone()
	return &View{Lobby: *c, Free: c.Free()}
}

// Running lists every lobby this node holds, for the dashboard: the live
// ones, then those finished within the retention.
func (s *Service) Running() []*View {
	s.mu.Lock()
	es := make([]*entry, 0, len(s.lobbies))
	for _, e := range s.lobbies {
		es = append(es, e)
	}
	s.mu.Unlock()
	out := make([]*View, 0, len(es))
	for _, e := range es {
		e.mu.Lock()
		out = append(out, viewOf(e.lobby))
		e.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b *View) int {
		if fa, fb := a.State.Final(), b.State.Final(); fa != fb {
			if fa {
				return 1
			}
			return -1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
