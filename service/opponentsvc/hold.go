package opponentsvc

import (
	"context"
	"encoding/json"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// StateKindPrefix starts the store kind of a player table's player states
// (the table's name follows): one document per player who is held by a
// reservation, shielded or online (id = player id, body = the
// opponent.PlayerState as JSON). Each change is written before the caller
// hears of it, so reservations, shields and online flags survive a restart
// of a finder that stores its players; a memory-only finder keeps them in
// memory only, like its cache.
const StateKindPrefix = "opponent-state/"

// storeState writes a player's current state in fd's finder (or deletes
// the document when the player is free). Call it with the player's stripe
// held, after the change: every change is followed by a write of the state
// as it then stands, so the last write is always the latest state.
func (s *Service) storeState(ctx context.Context, fd *finder, player string) error {
	if !fd.table.stores {
		return nil
	}
	fd.mu.Lock()
	st, ok := fd.f.PlayerState(player)
	fd.mu.Unlock()
	kind := StateKindPrefix + fd.table.name
	var err error
	if !ok {
		err = s.docs.DeleteDocument(ctx, cupid.Fence{}, kind, player)
	} else {
		var body []byte
		body, err = json.Marshal(st)
		if err == nil {
			err = s.docs.PutDocument(ctx, cupid.Fence{}, kind, player, body, s.now())
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Error("opponent finder: player state write failed", "finder", fd.name, "err", err)
		return cupid.Errorf(cupid.CodeUnavailable, "", "the player's state could not be stored; try again")
	}
	return nil
}

// holdOffer stores the reservation a query made. When the store refuses,
// the hold is undone, so the caller hears "unavailable" and nothing changed.
func (s *Service) holdOffer(ctx context.Context, fd *finder, res opponent.Result) error {
	r := res.Reservation
	mu := fd.table.stripe(r.Defender)
	mu.Lock()
	defer mu.Unlock()
	err := s.storeState(ctx, fd, r.Defender)
	if err == nil {
		return nil
	}
	fd.mu.Lock()
	_, rerr := fd.f.Release(r.ID, "", s.now())
	fd.mu.Unlock()
	if rerr != nil {
		s.log.Error("opponent finder: an unstored reservation could not be undone", "finder", fd.name, "reservation", r.ID, "err", rerr)
	}
	return cupid.Errorf(cupid.CodeUnavailable, "", "the defender could not be held (the reservation could not be stored); try again")
}

// ConfirmAttack records that the attack of a reservation happened: the
// hold ends, the defender's shield starts, and the offer-removal threshold
// applies to the entry offered. attacker, when given, must be the
// reservation's (a player token confirms only his own). An unknown
// reservation is not found; a released, lapsed or already confirmed one is
// a failed precondition; neither changes anything.
func (s *Service) ConfirmAttack(ctx context.Context, finderName, reservationID, attacker string) (opponent.Confirmation, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return opponent.Confirmation{}, err
	}
	var c opponent.Confirmation
	err = s.onReservation(ctx, fd, reservationID, func(now time.Time) error {
		var err error
		c, err = fd.f.Confirm(reservationID, attacker, now)
		return err
	})
	if err != nil {
		return opponent.Confirmation{}, err
	}
	s.recordAttack(ctx, fd, c) // encounters.go
	return c, nil
}

// ReleaseReservation ends a reservation without an attack: the defender
// may be offered again at once. Same errors as ConfirmAttack.
func (s *Service) ReleaseReservation(ctx context.Context, finderName, reservationID, attacker string) (opponent.Reservation, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return opponent.Reservation{}, err
	}
	var r opponent.Reservation
	err = s.onReservation(ctx, fd, reservationID, func(now time.Time) error {
		var err error
		r, err = fd.f.Release(reservationID, attacker, now)
		return err
	})
	if err != nil {
		return opponent.Reservation{}, err
	}
	return r, nil
}

// onReservation runs op (Confirm or Release) under the defender's stripe
// and the finder's lock, then stores the defender's state, which op may
// have changed even when it failed (a reservation found past its expiry
// ends as expired).
func (s *Service) onReservation(ctx context.Context, fd *finder, id string, op func(now time.Time) error) error {
	if !fd.cfg.Opponent.Reservations.Enabled {
		return cupid.Conflict("finder", "finder %q does not take reservations (reservations.enabled is off)", fd.name)
	}
	fd.mu.Lock()
	r, ok := fd.f.Reservation(id)
	if !ok {
		// Unknown or ended: op says which, and changes nothing.
		err := op(s.now())
		fd.mu.Unlock()
		return err
	}
	fd.mu.Unlock()
	mu := fd.table.stripe(r.Defender)
	mu.Lock()
	defer mu.Unlock()
	fd.mu.Lock()
	err := op(s.now())
	fd.mu.Unlock()
	if werr := s.storeState(ctx, fd, r.Defender); werr != nil && err == nil {
		return cupid.Errorf(cupid.CodeUnavailable, "", "done, but it could not be stored, so a restart would bring the reservation back until it expires; try again later")
	}
	return err
}

// OnlineResult says what SetPlayerOnline did.
type OnlineResult struct {
	Online bool
	// Stored is true when the flag was written to the store.
	Stored bool
}

// SetPlayerOnline sets or clears a player's online flag in every instance
// of the finder's player table: while set, the player is never offered.
// The flag is stored first where the finder stores its players, so it
// survives a restart. Past max_player_states a new flag is refused as
// resource exhausted, and nothing changes.
func (s *Service) SetPlayerOnline(ctx context.Context, finderName, playerID string, online bool) (OnlineResult, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return OnlineResult{}, err
	}
	if err := checkRealID("player_id", playerID); err != nil {
		return OnlineResult{}, err
	}
	if err := fd.f.CheckModel(opponent.Model{PlayerID: playerID}); err != nil {
		return OnlineResult{}, err
	}
	t := fd.table
	mu := t.stripe(playerID)
	mu.Lock()
	defer mu.Unlock()
	now := s.now()
	var done []*finder
	undo := func() {
		for _, inst := range done {
			inst.mu.Lock()
			if err := inst.f.SetOnline(playerID, !online, now); err != nil {
				s.log.Error("opponent finder: online flag could not be undone", "finder", inst.name, "err", err)
			}
			inst.mu.Unlock()
		}
	}
	for _, inst := range t.finders {
		inst.mu.Lock()
		was, _ := inst.f.PlayerState(playerID)
		err := inst.f.SetOnline(playerID, online, now)
		inst.mu.Unlock()
		if err != nil {
			undo()
			return OnlineResult{}, err
		}
		if was.Online != online {
			done = append(done, inst)
		}
	}
	if err := s.storeState(ctx, fd, playerID); err != nil {
		undo()
		return OnlineResult{}, err
	}
	return OnlineResult{Online: online, Stored: t.stores}, nil
}

// loadStates installs the stored player states of every storing table into
// its finders, dropping what lapsed while the server was down.
func (s *Service) loadStates(ctx context.Context) error {
	for _, name := range s.names {
		fd := s.finders[name]
		t := fd.table
		if !t.stores || t.finders[0] != fd {
			continue // memory only, or loaded with the table's first finder
		}
		kind := StateKindPrefix + t.name
		docs, err := s.docs.Documents(ctx, kind, "", 0)
		if err != nil {
			return err
		}
		states := make([]opponent.PlayerState, 0, len(docs))
		for _, d := range docs {
			var st opponent.PlayerState
			if err := json.Unmarshal(d.Body, &st); err != nil {
				s.log.Warn("opponent finder: undecodable player state skipped", "table", t.name, "player", d.ID, "err", err)
				continue
			}
			st.PlayerID = d.ID // the row's key is the truth
			states = append(states, st)
		}
		if len(states) == 0 {
			continue
		}
		now := s.now()
		for _, inst := range t.finders {
			inst.mu.Lock()
			err := inst.f.LoadStates(states, now)
			inst.mu.Unlock()
			if err != nil {
				s.log.Warn("opponent finder: stored player states not used", "finder", inst.name, "err", err)
				continue
			}
			s.log.Info("opponent finder: player states loaded", "finder", inst.name, "states", len(states))
		}
	}
	return nil
}

// sweep forgets the reservations and shields of fd that lapsed and stores
// the players' states; it returns when the next one lapses (zero: none).
func (s *Service) sweep(ctx context.Context, fd *finder) time.Time {
	fd.mu.Lock()
	changed := fd.f.Sweep(s.now())
	next := fd.f.NextExpiry()
	fd.mu.Unlock()
	for _, id := range changed {
		mu := fd.table.stripe(id)
		mu.Lock()
		if err := s.storeState(ctx, fd, id); err != nil && ctx.Err() == nil {
			// The stored state lapses at load too; nothing is lost.
			s.log.Warn("opponent finder: lapsed player state not stored", "finder", fd.name, "player", id, "err", err)
		}
		mu.Unlock()
	}
	return next
}
