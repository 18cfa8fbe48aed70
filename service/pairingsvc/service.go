// Package pairingsvc runs speed-dating events (package pairing) as part of
// the server: it owns their state, keeps it in the store and tells clients
// what happens.
//
// Each event is driven by its own goroutine, which owns the pure
// pairing.Event: calls reach it as operations through an inbox, and a timer
// armed at the event's next deadline ends countdowns and rounds. So every
// change to one event happens in one order, without locks, while a thousand
// events run side by side.
//
// The order of every change is persist, then publish. The goroutine takes
// the operations waiting in its inbox as one batch, applies them, stores the
// event's snapshot once for the whole batch (the same group commit as the
// ticket intake), and only then tells watchers and answers callers. When the
// store fails, the event goes back to its last stored snapshot, callers get
// an "unavailable" error and nobody is told anything that did not happen; a
// change due to time alone is retried a second later.
package pairingsvc

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
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/actor"
	"github.com/cupid-match/cupid/service/epoch"
)

// DocumentKind is the kind under which events are kept in the document
// store; the document's id is the event's id.
const DocumentKind = "pairing-event"

// Limits on what identifies an event.
const (
	// MaxIDBytes bounds an event id chosen by the caller.
	MaxIDBytes = 64
	// MaxNameBytes bounds an event's display name.
	MaxNameBytes = 200
)

// Options configure the service.
type Options struct {
	// Docs keeps the events; required.
	Docs cupid.DocumentStore
	// Limits bound the events and give their default settings; zero
	// fields take the defaults written on Limits.
	Limits Limits
	// Logger receives the service's logs; slog.Default when nil.
	Logger *slog.Logger
	// Registry receives the metrics; none are registered when nil.
	Registry prometheus.Registerer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// History bounds the round history each event keeps in the store; a
	// zero field takes pairing.DefaultHistoryLimits (1,000 rounds,
	// 1,000,000 names), the documented limits. Tests set smaller ones.
	History pairing.HistoryLimits
	// Encounters is the encounter history: rounds are recorded in it and
	// participants' barred lists read from it (see encounters.go). None
	// when nil.
	Encounters Encounters
}

// Service runs every speed-dating event of the server.
type Service struct {
	docs    cupid.DocumentStore
	limits  Limits
	history pairing.HistoryLimits
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics
	// encounters is the encounter history, or nil.
	encounters Encounters

	mu     sync.Mutex
	events map[string]*event
	// reserved holds the ids of events being created, so two creations of
	// one id cannot both succeed.
	reserved map[string]bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once

	// gate is the life of the events this node runs now (guarded by mu):
	// the service's own life on a node of its own; on a node of several
	// sharing the store, the time it holds the pairing lease (RunEvents to
	// StopEvents), whose fence every write carries. While the stored events
	// are read a call waits: an event not loaded yet is not "not found".
	gate *epoch.Gate
}

// New builds the service; Start loads the stored events.
func New(o Options) (*Service, error) {
	if o.Docs == nil {
		return nil, errors.New("pairingsvc: a document store is required")
	}
	limits, err := o.Limits.WithDefaults()
	if err != nil {
		return nil, prefixField("limits.", err)
	}
	s := &Service{
		docs:       o.Docs,
		limits:     limits,
		history:    o.History,
		encounters: o.Encounters,
		log:        o.Logger,
		now:        o.Now,
		metrics:    newMetrics(o.Registry),
		events:     map[string]*event{},
		reserved:   map[string]bool{},
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.gate = epoch.New(s.ctx, errShuttingDown)
	return s, nil
}

// Start loads the stored events and starts a goroutine for each. An event
// whose deadline passed while the server was down catches up at once: its
// countdown ends or its round ends, as of now.
func (s *Service) Start(ctx context.Context) error {
	epoch, _ := s.running()
	after := ""
	loaded, skipped := 0, 0
	for {
		docs, err := s.docs.Documents(ctx, DocumentKind, after, 256)
		if err != nil {
			return fmt.Errorf("pairingsvc: load events: %w", err)
		}
		for _, d := range docs {
			doc, ev, err := decode(d)
			if err != nil {
				// One unreadable event must not keep the others down. It
				// stays in the store for someone to look at.
				s.log.Error("a stored pairing event cannot be read; it is left in the store and not run", "event", d.ID, "err", err)
				skipped++
				continue
			}
			s.mu.Lock()
			s.startEvent(newEvent(s, doc, ev))
			s.mu.Unlock()
			loaded++
		}
		if len(docs) < 256 {
			break
		}
		after = docs[len(docs)-1].ID
	}
	s.mu.Lock()
	s.gate.Loaded(epoch)
	s.mu.Unlock()
	s.log.Info("loaded pairing events", "events", loaded, "unreadable", skipped)
	return nil
}

// running is the current epoch's context and fence.
func (s *Service) running() (context.Context, cupid.Fence) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate.Current()
}

// StopEvents stops running the events (their goroutines end, watches end with
// unavailable) and forgets them; they stay in the store for the node that
// runs them next. A node of several calls it when it gives the pairing
// lease up, and before it first takes it (StopEvents instead of Start).
func (s *Service) StopEvents() {
	s.mu.Lock()
	s.gate.End()
	running := make([]*event, 0, len(s.events))
	for _, e := range s.events {
		running = append(running, e)
	}
	s.events = map[string]*event{}
	s.mu.Unlock()
	for _, e := range running {
		<-e.inbox.Done()
		s.metrics.lobby.Add(-float64(e.lobby))
	}
	s.metrics.events.Set(0)
}

// RunEvents runs the stored events again, after StopEvents, in a new epoch whose
// store writes carry the fence of the lease the node took.
func (s *Service) RunEvents(ctx context.Context, fence cupid.Fence) error {
	s.mu.Lock()
	s.gate.Begin(fence)
	s.mu.Unlock()
	return s.Start(ctx)
}

// Close stops every event's goroutine and ends the watches; the events stay
// in the store.
func (s *Service) Close() {
	s.closed.Do(func() {
		s.cancel()
		s.wg.Wait()
	})
}

// startEvent registers a new event and starts its goroutine; s.mu is held.
func (s *Service) startEvent(e *event) {
	s.events[e.doc.ID] = e
	s.metrics.events.Set(float64(len(s.events)))
	s.metrics.lobby.Add(float64(len(e.view.Load().Lobby)))
	s.wg.Add(1)
	go e.run()
}

// removeEvent forgets a deleted event.
func (s *Service) removeEvent(e *event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events[e.doc.ID] == e {
		delete(s.events, e.doc.ID)
	}
	s.metrics.events.Set(float64(len(s.events)))
}

// EventView is an event as callers see it. It is never changed once made,
// so it can be shared by many readers.
type EventView struct {
	ID        string
	Name      string
	CreatedAt time.Time
	// Seed is the seed of the event's random tie-breaking: with it and the
	// same calls at the same times, the event replays exactly.
	Seed   uint64
	Config pairing.Config
	Phase  pairing.Phase
	// Round is the number of rounds started so far.
	Round int
	// Deadline ends the countdown or the round; zero when idle.
	Deadline time.Time
	// Participants are the people present, sorted; Lobby those waiting to
	// be paired, sorted; Pairs the rooms in use.
	Participants []string
	Lobby        []string
	Pairs        []pairing.RoomPair
	// Stale is set when the last round found nobody in the lobby who
	// could be paired, and nothing has changed since that could allow a
	// pair: no countdown starts until something does (or, when only the
	// exposure cap held people back, until its window lets one back).
	Stale bool
	// Paused is set while the organiser has paused the event.
	Paused bool
	// Revealed is set once mutual answers were revealed.
	Revealed bool
	// Seq counts the rounds computed, including those with no pair.
	Seq int
}

// NewEvent is what an organiser asks for.
type NewEvent struct {
	// ID is the event's id; generated (a UUIDv7) when empty.
	ID   string
	Name string
	// Config is the event's settings. Rooms is required; a zero Round,
	// Countdown or MinLobby takes the configured default.
	Config pairing.Config
	// Seed drives the event's random tie-breaking; random when zero.
	Seed uint64
}

// CreateEvent validates and stores a new event and starts running it. The
// caller hears "yes" only once the event is stored.
func (s *Service) CreateEvent(ctx context.Context, req NewEvent) (*EventView, error) {
	if err := checkID(req.ID); err != nil {
		return nil, err
	}
	if err := checkName(req.Name); err != nil {
		return nil, err
	}
	cfg := req.Config
	d := s.limits.Defaults
	if cfg.Round == 0 {
		cfg.Round = d.Round
	}
	if cfg.Countdown == 0 {
		cfg.Countdown = d.Countdown
	}
	if cfg.MinLobby == 0 {
		cfg.MinLobby = d.MinLobby
	}
	if err := cfg.Validate(); err != nil {
		return nil, prefixField("settings.", err)
	}
	id := req.ID
	if id == "" {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("pairingsvc: event id: %w", err)
		}
		id = u.String()
	}
	seed := req.Seed
	for seed == 0 {
		seed = rand.Uint64()
	}
	ev, err := pairing.New(cfg, seed)
	if err != nil {
		return nil, prefixField("settings.", err)
	}

	s.mu.Lock()
	// While loading, an event not read yet may have this id: a create
	// waits, since now it could overwrite it.
	_, fence, err := s.gate.Wait(ctx, &s.mu)
	switch {
	case err != nil:
		s.mu.Unlock()
		return nil, err
	case s.events[id] != nil || s.reserved[id]:
		s.mu.Unlock()
		return nil, cupid.Conflict("id", "event %q already exists", id)
	case len(s.events)+len(s.reserved) >= s.limits.MaxEvents:
		s.mu.Unlock()
		return nil, cupid.Errorf(cupid.CodeTooLarge, "", "the server already runs %d events (pairing.max_events)", s.limits.MaxEvents)
	}
	s.reserved[id] = true
	s.mu.Unlock()

	now := s.now().UTC()
	doc := document{Version: documentVersion, ID: id, Name: req.Name, CreatedAt: now, Seed: seed, Event: ev.Snapshot()}
	// The store's outcome decides, not the caller's patience: once the
	// write has begun, it finishes either way.
	err = s.put(context.WithoutCancel(ctx), fence, doc, now)

	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reserved, id)
	if err != nil {
		s.metrics.storeErrors.Inc()
		s.log.Error("storing a new pairing event failed", "event", id, "err", err)
		return nil, cupid.Errorf(cupid.CodeUnavailable, "", "the event could not be stored; try again")
	}
	if epoch, _ := s.gate.Current(); epoch.Err() != nil {
		// Stored, but the service is closing: it runs after the restart.
		return nil, errShuttingDown
	}
	e := newEvent(s, doc, ev)
	s.startEvent(e)
	return e.view.Load(), nil
}

// put stores an event's document.
func (s *Service) put(ctx context.Context, fence cupid.Fence, doc document, now time.Time) error {
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("pairingsvc: encode event %s: %w", doc.ID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	return s.docs.PutDocument(ctx, fence, DocumentKind, doc.ID, body, now)
}

// storeTimeout bounds one write to the store.
const storeTimeout = 30 * time.Second

// GetEvent returns an event as of now (a deadline that has passed is
// processed first).
func (s *Service) GetEvent(ctx context.Context, id string) (*EventView, error) {
	var v *EventView
	_, err := s.call(ctx, id, "id", &op{read: func(e *event) { v = e.view.Load() }})
	return v, err
}

// ListEvents returns every event, by id (so by creation time for generated
// ids). Each is as of its last change; deadlines are processed on time by
// each event's timer.
func (s *Service) ListEvents(ctx context.Context) ([]*EventView, error) {
	s.mu.Lock()
	if _, _, err := s.gate.Wait(ctx, &s.mu); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	out := make([]*EventView, 0, len(s.events))
	for _, e := range s.events {
		out = append(out, e.view.Load())
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *EventView) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// DeleteEvent removes an event from the store and from the server. Its
// watchers get a final event_deleted notification.
func (s *Service) DeleteEvent(ctx context.Context, id string) error {
	_, err := s.call(ctx, id, "id", &op{del: true})
	return err
}

// Join adds a participant to an event, or brings back one who left with
// their record.
func (s *Service) Join(ctx context.Context, eventID, participant string) (*EventView, pairing.Status, error) {
	return s.JoinGroup(ctx, eventID, participant, "")
}

// Leave takes a participant out of the event; a partner in a room is told.
func (s *Service) Leave(ctx context.Context, eventID, participant string) (*EventView, pairing.Status, error) {
	return s.participantOp(ctx, eventID, participant, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.Leave(now, participant)
	})
}

// EnterLobby makes a participant available for pairing.
func (s *Service) EnterLobby(ctx context.Context, eventID, participant string) (*EventView, pairing.Status, error) {
	barred, err := s.barred(ctx, eventID, participant)
	if err != nil {
		return nil, pairing.Status{}, err
	}
	return s.participantOp(ctx, eventID, participant, withBarred(participant, barred, true, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.EnterLobby(now, participant)
	}))
}

// LeaveLobby takes a participant out of pairing for a break; from a room,
// it ends their date and their partner is told.
func (s *Service) LeaveLobby(ctx context.Context, eventID, participant string) (*EventView, pairing.Status, error) {
	return s.participantOp(ctx, eventID, participant, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.LeaveLobby(now, participant)
	})
}

// ClearRecord empties the participant's own record of whom they have met.
func (s *Service) ClearRecord(ctx context.Context, eventID, participant string) (*EventView, pairing.Status, error) {
	return s.participantOp(ctx, eventID, participant, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.ClearRecord(now, participant)
	})
}

// participantOp runs one participant call on the event's goroutine and
// returns the event and the participant's status once the change is
// stored.
func (s *Service) participantOp(ctx context.Context, eventID, participant string, write func(*pairing.Event, time.Time) ([]pairing.Notification, error)) (*EventView, pairing.Status, error) {
	var v *EventView
	var st pairing.Status
	_, err := s.call(ctx, eventID, "event_id", &op{
		write: write,
		read: func(e *event) {
			v = e.view.Load()
			st, _ = e.ev.Status(participant)
		},
	})
	if err != nil {
		return nil, pairing.Status{}, err
	}
	return v, st, nil
}

// MetGraphView is an event's met-graph and the round it was taken after.
type MetGraphView struct {
	pairing.MetGraph
	// Round is the number of rounds started when the graph was taken: it
	// holds the meetings of rounds 1 to Round.
	Round int
}

// MetGraph returns who has met whom in an event, by each side's record.
func (s *Service) MetGraph(ctx context.Context, eventID string) (*MetGraphView, error) {
	var g *MetGraphView
	_, err := s.call(ctx, eventID, "event_id", &op{read: func(e *event) {
		g = &MetGraphView{MetGraph: e.ev.MetGraph(), Round: e.view.Load().Round}
	}})
	return g, err
}

// errShuttingDown answers a call while this node does not run the events:
// it is starting, stopping, or has just taken them over and is loading
// them. A client tries again (on another node's forward, it reaches the
// node that runs them).
var errShuttingDown = cupid.Errorf(cupid.CodeUnavailable, "", "the speed-dating events are not running on this node just now (it is starting, stopping or taking them over); try again")

// call hands an operation to an event's goroutine and waits until it has
// run. Once the operation is in the inbox the call waits for its outcome
// even if ctx ends, so that the caller's view of what happened is never a
// guess.
func (s *Service) call(ctx context.Context, id, field string, o *op) (*event, error) {
	if id == "" {
		return nil, cupid.Invalid(field, "required")
	}
	s.mu.Lock()
	_, _, err := s.gate.Wait(ctx, &s.mu)
	e := s.events[id]
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, s.gone(field, id)
	}
	o.done = make(chan struct{})
	if err := e.inbox.Send(ctx, o); err != nil {
		if errors.Is(err, actor.ErrEnded) {
			return nil, s.gone(field, id)
		}
		return nil, err
	}
	select {
	case <-o.done:
		return e, o.err
	case <-e.inbox.Done():
		// The goroutine finishes every operation it takes before it exits,
		// so an operation that is not done now was never taken.
		select {
		case <-o.done:
			return e, o.err
		default:
			return nil, s.gone(field, id)
		}
	}
}

// gone is the error for an operation on an event that stopped: deleted, or
// the server is closing.
func (s *Service) gone(field, id string) error {
	if epoch, _ := s.running(); epoch.Err() != nil {
		return errShuttingDown
	}
	return cupid.NotFound(field, "no event %q", id)
}

// checkID accepts ids that are safe in a URL path: letters, digits and
// "-._~", starting with a letter or digit (so never "." or ".."), at most
// MaxIDBytes. Empty asks for a generated id.
func checkID(id string) error {
	if len(id) > MaxIDBytes {
		return cupid.Invalid("id", "must be at most %d bytes, got %d", MaxIDBytes, len(id))
	}
	for i, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && strings.ContainsRune("-._~", r):
		default:
			return cupid.Invalid("id", "may hold only letters, digits and -._~ (starting with a letter or digit), got %q", id)
		}
	}
	return nil
}

// checkName accepts a display name: valid UTF-8 without control
// characters, at most MaxNameBytes.
func checkName(name string) error {
	switch {
	case len(name) > MaxNameBytes:
		return cupid.Invalid("name", "must be at most %d bytes, got %d", MaxNameBytes, len(name))
	case !utf8.ValidString(name):
		return cupid.Invalid("name", "must be valid UTF-8")
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return cupid.Invalid("name", "must not contain control characters")
	}
	return nil
}

// prefixField puts a prefix before the field of a *cupid.Error ("rooms"
// becomes "settings.rooms").
func prefixField(prefix string, err error) error {
	var e *cupid.Error
	if errors.As(err, &e) {
		return &cupid.Error{Code: e.Code, Field: prefix + e.Field, Message: e.Message}
	}
	return err
}
