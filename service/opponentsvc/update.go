package opponentsvc

import (
	"context"
	"encoding/json"
	"strings"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// Outcomes of an update, as the API reports them.
const (
	OutcomeAdded   = "added"
	OutcomeUpdated = "updated"
	OutcomeIgnored = "ignored"
	OutcomeRemoved = "removed"
)

// UpdateResult says what a player update did to the named finder's cache.
type UpdateResult struct {
	opponent.UpdateResult
	// Outcome sums it up in one word: added, updated, ignored or removed.
	Outcome string
	// Stored is true when the model was written to the player table.
	Stored bool
}

// UpdatePlayer applies a player's state update (the player state update of
// Metaplay's async matchmaker): a model with entries adds or refreshes the
// player, a model without entries makes them ineligible. An id that starts
// with opponent.FakeIDPrefix is refused: it is reserved for fake opponents. The update is checked first, then
// written to the player table (when the finder keeps one), then applied to
// the cache of every instance sharing that table, so a caller that hears
// "yes" knows a restart will not lose it. A malformed model changes
// nothing, and neither does a failed store write.
//
// With several entries per player, an update without entries is ignored,
// as in Metaplay's matchmaker; RemovePlayer drops such a player.
func (s *Service) UpdatePlayer(ctx context.Context, finderName string, m opponent.Model) (UpdateResult, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return UpdateResult{}, err
	}
	t := fd.table
	if err := checkRealID("player_id", m.PlayerID); err != nil {
		fd.invalidUpdates.Add(1)
		return UpdateResult{}, err
	}
	for _, inst := range t.finders {
		if err := inst.f.CheckModel(m); err != nil {
			inst.invalidUpdates.Add(1)
			return UpdateResult{}, err
		}
	}
	multi := fd.cfg.Opponent.AllowMultipleEntriesPerPlayer
	if len(m.Entries) == 0 && multi {
		return UpdateResult{Outcome: OutcomeIgnored}, nil
	}
	mu := t.stripe(m.PlayerID)
	mu.Lock()
	defer mu.Unlock()
	stored := false
	if t.stores {
		if err := s.write(ctx, t, m); err != nil {
			return UpdateResult{}, err
		}
		stored = true
	}
	now := s.now()
	var mine opponent.UpdateResult
	for _, inst := range t.finders {
		inst.mu.Lock()
		r, err := inst.f.Update(m, now)
		inst.touch(m.PlayerID)
		inst.mu.Unlock()
		if err != nil {
			// Checked above against the same immutable schema; an error
			// here is a bug, not bad input.
			return UpdateResult{}, err
		}
		if inst == fd {
			mine = r
		}
	}
	return UpdateResult{UpdateResult: mine, Outcome: outcome(m, mine), Stored: stored}, nil
}

func outcome(m opponent.Model, r opponent.UpdateResult) string {
	switch {
	case len(m.Entries) == 0:
		return OutcomeRemoved
	case r.Inserted > 0 && r.Removed == 0:
		return OutcomeAdded
	case r.Inserted > 0 || r.Updated > 0:
		return OutcomeUpdated // refreshed in place, or moved to another bucket
	}
	return OutcomeIgnored
}

// RemovePlayer drops every entry of a player from the caches of the
// finder's instances and deletes the player's row from the player table,
// in every mode. It returns how many entries left the named finder's cache.
// Unlike an update, it takes an id with the fake-opponent prefix, so that a
// row stored under such an id before they were refused can still be
// deleted.
func (s *Service) RemovePlayer(ctx context.Context, finderName, playerID string) (int, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return 0, err
	}
	// The same id rules as an update.
	if err := fd.f.CheckModel(opponent.Model{PlayerID: playerID}); err != nil {
		return 0, err
	}
	t := fd.table
	mu := t.stripe(playerID)
	mu.Lock()
	defer mu.Unlock()
	if t.stores {
		if err := s.write(ctx, t, opponent.Model{PlayerID: playerID}); err != nil {
			return 0, err
		}
	}
	removed := 0
	for _, inst := range t.finders {
		inst.mu.Lock()
		n := inst.f.Remove(playerID)
		inst.touch(playerID)
		inst.mu.Unlock()
		if inst == fd {
			removed = n
		}
	}
	return removed, nil
}

// write puts a player's model into the player table, or deletes the row
// when the model has no entries.
func (s *Service) write(ctx context.Context, t *table, m opponent.Model) error {
	var err error
	if len(m.Entries) == 0 {
		err = s.docs.DeleteDocument(ctx, cupid.Fence{}, t.kind, m.PlayerID)
	} else {
		var body []byte
		body, err = json.Marshal(m)
		if err == nil {
			err = s.docs.PutDocument(ctx, cupid.Fence{}, t.kind, m.PlayerID, body, s.now())
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Error("opponent finder: player table write failed", "table", t.kind, "err", err)
		return cupid.Errorf(cupid.CodeUnavailable, "", "the player could not be stored; try again")
	}
	return nil
}

// checkRealID refuses a real player's id that starts with
// opponent.FakeIDPrefix. Fake opponents' ids are made as
// "fake:<attacker id>:<n>" and promised never to be a real player's, so a
// player stored under one could be taken for a fake (and a fake for them).
func checkRealID(field, id string) error {
	if strings.HasPrefix(id, opponent.FakeIDPrefix) {
		return cupid.Invalid(field, "%q starts with %q, which is reserved for the ids of fake opponents; a real player's id must not start with it",
			id, opponent.FakeIDPrefix)
	}
	return nil
}

// touch notes an update made while a scan fetch is in flight. Called with
// fd.mu held.
func (fd *finder) touch(id string) {
	if fd.touched != nil {
		fd.touched[id] = struct{}{}
	}
}
