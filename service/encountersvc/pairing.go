package encountersvc

import (
	"context"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// The speed-dating events' part (pairingsvc.Encounters): their rounds are
// recorded here, and a participant's barred list is read from here when he
// joins an event or enters its lobby.

// RecordMeetings stores the encounters of several meetings (a round's
// rooms) in one write. One meeting the rules refuse refuses them all.
func (s *Service) RecordMeetings(ctx context.Context, ms []encounter.Meeting) error {
	var es []cupid.Encounter
	for _, m := range ms {
		e, err := m.Encounters()
		if err != nil {
			return err
		}
		es = append(es, e...)
	}
	if len(es) == 0 {
		return nil
	}
	if err := s.store.AddEncounters(ctx, es); err != nil {
		return s.storeError("written", err)
	}
	s.metrics.recorded.WithLabelValues(encounter.ModePairing).Add(float64(len(es)))
	return nil
}

// Barred lists whom player may not be paired with in a speed-dating event:
// everyone on his block list and, when the event belongs to a series, the
// people he met at that place (the series' earlier events) within the
// history's window. At most limit (all when limit ≤ 0), blocks first.
// Someone who blocked player is not listed: that person's own barred
// list holds player, and an event keeps a pair apart when either list
// names the other.
func (s *Service) Barred(ctx context.Context, player, series string, limit int) ([]string, error) {
	if err := encounter.CheckID("participant", player); err != nil {
		return nil, err
	}
	entries, err := s.Entries(ctx, []string{player})
	if err != nil {
		return nil, err
	}
	out := encounter.Blocked(encounter.Own(entries, player, encounter.KindBlock), player)
	if series != "" {
		h, err := s.History(ctx, player, 0)
		if err != nil {
			return nil, err
		}
		met := encounter.Others(h, encounter.Query{Mode: encounter.ModePairing, Place: series}, s.now(), 0)
		seen := make(map[string]bool, len(out))
		for _, o := range out {
			seen[o] = true
		}
		for _, o := range met {
			if !seen[o] {
				out = append(out, o)
			}
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
