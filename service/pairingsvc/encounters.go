package pairingsvc

import (
	"context"
	"fmt"
	"time"

	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/pairing"
)

// The encounter history (package encounter, run by encountersvc).
//
// Every round's rooms are recorded as meetings (mode "pairing", at the
// event's series, or at the event itself when it belongs to none), in the
// same batch as the round and before the event that counts it, so a round
// whose write failed is recorded again when computed again (encounters are
// unique by meeting). And whenever a participant joins or enters the
// lobby, the service reads his barred list — his block list and, in a
// series, the people he met in its earlier events — and hands it to the
// event (pairing.Event.SetBarred) before the call itself, so that no
// round pairs him with them. The read happens on the caller's goroutine,
// not the event's: a slow store delays that call only.

// Encounters is the encounter history as the service uses it
// (encountersvc.Service).
type Encounters interface {
	// RecordMeetings stores the meetings of one round in one write.
	RecordMeetings(ctx context.Context, ms []encounter.Meeting) error
	// Barred lists whom player may not be paired with in an event of
	// the series ("" for none), at most limit.
	Barred(ctx context.Context, player, series string, limit int) ([]string, error)
}

// place is where an event's meetings happen in the history: its series,
// so the series' events share one place, or else the event itself.
func place(eventID string, cfg pairing.Config) string {
	if cfg.Series != "" {
		return cfg.Series
	}
	return eventID
}

// recordEncounters records the rooms of the rounds among notes. A
// participant whose key the history cannot hold (longer than a player id)
// is left out of it.
func (e *event) recordEncounters(notes []pairing.Notification) error {
	hist := e.s.encounters
	if hist == nil {
		return nil
	}
	var ms []encounter.Meeting
	where := place(e.doc.ID, e.ev.Config())
	for _, n := range notes {
		if n.Kind != pairing.KindRoundRecorded || n.Record == nil {
			continue
		}
		ref := roundID(e.doc.ID, n.Seq)
		for _, r := range n.Record.Rooms {
			var team []string
			for _, k := range []string{r.A, r.B, r.C} {
				if k != "" && encounter.CheckID("participant", k) == nil {
					team = append(team, k)
				}
			}
			if len(team) < 2 {
				continue
			}
			ms = append(ms, encounter.Meeting{Mode: encounter.ModePairing, Place: where, Ref: ref, At: n.Record.At, Teams: [][]string{team}})
		}
	}
	if len(ms) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(e.ctx, storeTimeout)
	defer cancel()
	if err := hist.RecordMeetings(ctx, ms); err != nil {
		return fmt.Errorf("pairingsvc: record the encounters of %s: %w", e.doc.ID, err)
	}
	return nil
}

// barred reads participant's barred list for an event, or nil when there
// is no history, the event is unknown here or the key is no player id
// (the call then fails or goes on as it would have).
func (s *Service) barred(ctx context.Context, eventID, participant string) ([]string, error) {
	if s.encounters == nil || encounter.CheckID("participant", participant) != nil || pairing.CheckKey(participant) != nil {
		return nil, nil
	}
	s.mu.Lock()
	e := s.events[eventID]
	s.mu.Unlock()
	if e == nil {
		return nil, nil
	}
	return s.encounters.Barred(ctx, participant, e.view.Load().Config.Series, pairing.MaxBarred)
}

// withBarred runs call after setting participant's barred list, when
// there is one to set; before is true when the list must be set before
// the call (entering the lobby), false when after it (joining: the
// participant is not in the event before).
func withBarred(participant string, list []string, before bool, call func(*pairing.Event, time.Time) ([]pairing.Notification, error)) func(*pairing.Event, time.Time) ([]pairing.Notification, error) {
	return func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		if list == nil && len(ev.Barred(participant)) == 0 {
			return call(ev, now)
		}
		if before {
			old := ev.Barred(participant)
			n, err := ev.SetBarred(now, participant, list)
			if err != nil {
				return n, err
			}
			m, err := call(ev, now)
			if err != nil {
				// A refused call changes nothing: the old list goes back
				// (it was valid, so this cannot fail).
				ev.SetBarred(now, participant, old)
			}
			return append(n, m...), err
		}
		n, err := call(ev, now)
		if err != nil {
			return n, err
		}
		m, err := ev.SetBarred(now, participant, list)
		return append(n, m...), err
	}
}
