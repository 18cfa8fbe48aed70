package encountersvc

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// Put puts other on player's block or avoid list (weight: an avoid
// entry's, 0 for the default), within the list's limit. Putting an entry
// again replaces it; blocking a player one avoids (or the other way)
// keeps both entries, the block being the stronger.
func (s *Service) Put(ctx context.Context, player, kind, other string, weight float64) (cupid.ListEntry, error) {
	if err := encounter.CheckID("player_id", player); err != nil {
		return cupid.ListEntry{}, err
	}
	have, err := s.store.ListEntries(ctx, []string{player})
	if err != nil {
		return cupid.ListEntry{}, s.storeError("read", err)
	}
	e, err := encounter.NewEntry(player, kind, other, weight, have, s.now())
	if err != nil {
		return cupid.ListEntry{}, err
	}
	if err := s.store.PutListEntry(ctx, e); err != nil {
		return cupid.ListEntry{}, s.storeError("written", err)
	}
	s.metrics.lists.WithLabelValues(kind, "put").Inc()
	return e, nil
}

// Remove takes other off player's list of a kind; an entry that is not
// there is not an error.
func (s *Service) Remove(ctx context.Context, player, kind, other string) error {
	if err := encounter.CheckID("player_id", player); err != nil {
		return err
	}
	if err := encounter.CheckID("other_id", other); err != nil {
		return err
	}
	if kind != encounter.KindBlock && kind != encounter.KindAvoid {
		return cupid.Invalid("kind", "must be %q or %q, got %q", encounter.KindBlock, encounter.KindAvoid, kind)
	}
	if err := s.store.DeleteListEntry(ctx, player, kind, other); err != nil {
		return s.storeError("written", err)
	}
	s.metrics.lists.WithLabelValues(kind, "remove").Inc()
	return nil
}

// List returns player's own list of a kind (both kinds when empty). It
// never says who put him on theirs.
func (s *Service) List(ctx context.Context, player, kind string) ([]cupid.ListEntry, error) {
	if err := encounter.CheckID("player_id", player); err != nil {
		return nil, err
	}
	if kind != "" && kind != encounter.KindBlock && kind != encounter.KindAvoid {
		return nil, cupid.Invalid("kind", "must be %q or %q, got %q", encounter.KindBlock, encounter.KindAvoid, kind)
	}
	es, err := s.store.ListEntries(ctx, []string{player})
	if err != nil {
		return nil, s.storeError("read", err)
	}
	return encounter.Own(es, player, kind), nil
}

// Entries returns the lists of several players (a ticket's, a match's):
// what the rules read.
func (s *Service) Entries(ctx context.Context, players []string) ([]cupid.ListEntry, error) {
	es, err := s.store.ListEntries(ctx, players)
	return es, s.storeError("read", err)
}

// Blocked reports whether any two of players must never meet, and which.
func (s *Service) Blocked(ctx context.Context, players []string) (a, b string, blocked bool, err error) {
	es, err := s.Entries(ctx, players)
	if err != nil {
		return "", "", false, err
	}
	a, b, blocked = encounter.AnyBlocked(es, players)
	return a, b, blocked, nil
}

// CheckJoin refuses player's joining group (a party, a lobby: named in
// the message) when he must never be with one of its members: he blocked
// one, or one blocked him. One read of their lists. Blocks among the
// members themselves do not count: a group may hold a pair that fell out
// after they were together. The refusal names neither the member nor the
// block, which is hidden from the blocked player.
func (s *Service) CheckJoin(ctx context.Context, player string, members []string, group string) error {
	if len(members) == 0 {
		return nil
	}
	es, err := s.Entries(ctx, append([]string{player}, members...))
	if err != nil {
		return err
	}
	for _, q := range members {
		if q != player && encounter.IsBlocked(es, player, q) {
			return cupid.Errorf(cupid.CodeDenied, "player", "player %s may not join %s", player, group)
		}
	}
	return nil
}

// Erase deletes a player's history (both ways) and his own lists: the
// GDPR-style erase. Other players' entries naming him stay (see
// cupid.EncounterStore).
func (s *Service) Erase(ctx context.Context, player string) error {
	if err := encounter.CheckID("player_id", player); err != nil {
		return err
	}
	if err := s.store.EraseEncounters(ctx, player); err != nil {
		return s.storeError("erased", err)
	}
	s.metrics.erased.Inc()
	return nil
}

// Exclusions lists the players attacker must not be offered by an
// opponent finder (place): those he blocked and, when within > 0, the
// defenders he attacked there within it. (Who blocked him is not read
// here: the finder checks the defender it found with Blocked.)
func (s *Service) Exclusions(ctx context.Context, attacker, place string, within time.Duration) ([]string, error) {
	es, err := s.Entries(ctx, []string{attacker})
	if err != nil {
		return nil, err
	}
	out := encounter.Blocked(es, attacker)
	if within <= 0 {
		return out, nil
	}
	now := s.now()
	h, err := s.store.Encounters(ctx, attacker, now.Add(-within), s.window.Recent)
	if err != nil {
		return nil, s.storeError("read", err)
	}
	q := encounter.Query{Within: within, Mode: encounter.ModeOpponent, Side: encounter.SideAttacker, Place: place}
	return append(out, encounter.Others(h, q, now, cupid.MaxListItems)...), nil
}
