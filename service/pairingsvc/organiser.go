package pairingsvc

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// The calls below extend the speed-dating events beyond the VRChat world's
// design: meetings recorded by hand and imported, one entry forgotten,
// private never lists, "would meet again" answers revealed only when
// mutual, date extensions, and the organiser's controls (settings, start
// and end of a round, pause). Each runs on the event's goroutine like the
// others: applied, stored, then told.

func (s *Service) historyLimits() pairing.HistoryLimits {
	return s.history // zero fields: SetHistoryLimits takes the defaults
}

// eventOp runs an organiser's change and returns the event once stored.
func (s *Service) eventOp(ctx context.Context, eventID string, write func(*pairing.Event, time.Time) ([]pairing.Notification, error)) (*EventView, error) {
	var v *EventView
	_, err := s.call(ctx, eventID, "event_id", &op{write: write, read: func(e *event) { v = e.view.Load() }})
	return v, err
}

// JoinGroup is Join with the participant's group or side.
func (s *Service) JoinGroup(ctx context.Context, eventID, participant, group string) (*EventView, pairing.Status, error) {
	limit := s.limits.MaxParticipants
	barred, err := s.barred(ctx, eventID, participant)
	if err != nil {
		return nil, pairing.Status{}, err
	}
	return s.participantOp(ctx, eventID, participant, withBarred(participant, barred, false, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		if pairing.CheckKey(participant) == nil {
			if _, known := ev.Status(participant); !known && ev.Known() >= limit {
				return nil, cupid.Errorf(cupid.CodeTooLarge, "participant", "the event already knows %d people (pairing.max_participants)", limit)
			}
		}
		return ev.JoinGroup(now, participant, group)
	}))
}

// RecordMeeting marks a and b as having met, in both records.
func (s *Service) RecordMeeting(ctx context.Context, eventID, a, b string) (*EventView, error) {
	limit := s.limits.MaxParticipants
	return s.eventOp(ctx, eventID, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.RecordMeeting(now, a, b, limit)
	})
}

// ImportHistory adds directed entries to the records.
func (s *Service) ImportHistory(ctx context.Context, eventID string, entries []pairing.MetEdge) (*EventView, error) {
	limit := s.limits.MaxParticipants
	return s.eventOp(ctx, eventID, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.ImportHistory(now, entries, limit)
	})
}

// UpdateSettings changes a running event's settings (see
// pairing.Event.UpdateConfig); zero Round, Countdown and MinLobby keep the
// current values.
func (s *Service) UpdateSettings(ctx context.Context, eventID string, change func(pairing.Config) (pairing.Config, error)) (*EventView, error) {
	return s.eventOp(ctx, eventID, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		cfg, err := change(ev.Config())
		if err != nil {
			return nil, err
		}
		n, err := ev.UpdateConfig(now, cfg)
		return n, prefixField("settings.", err)
	})
}

// StartRound computes a round now.
func (s *Service) StartRound(ctx context.Context, eventID string) (*EventView, error) {
	return s.eventOp(ctx, eventID, (*pairing.Event).StartRound)
}

// EndRound ends the running round now.
func (s *Service) EndRound(ctx context.Context, eventID string) (*EventView, error) {
	return s.eventOp(ctx, eventID, (*pairing.Event).EndRound)
}

// Pause stops the event's timers.
func (s *Service) Pause(ctx context.Context, eventID string) (*EventView, error) {
	return s.eventOp(ctx, eventID, (*pairing.Event).Pause)
}

// Resume runs the event's timers again.
func (s *Service) Resume(ctx context.Context, eventID string) (*EventView, error) {
	return s.eventOp(ctx, eventID, (*pairing.Event).Resume)
}

// Reveal reveals the mutual answers now.
func (s *Service) Reveal(ctx context.Context, eventID string) (*EventView, error) {
	return s.eventOp(ctx, eventID, (*pairing.Event).Reveal)
}

// ForgetMeeting takes other out of participant's own record.
func (s *Service) ForgetMeeting(ctx context.Context, eventID, participant, other string) (*EventView, pairing.Status, error) {
	return s.participantOp(ctx, eventID, participant, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.ForgetMeeting(now, participant, other)
	})
}

// Extend asks for more time in the participant's current date.
func (s *Service) Extend(ctx context.Context, eventID, participant string) (*EventView, pairing.Status, error) {
	return s.participantOp(ctx, eventID, participant, func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.Extend(now, participant)
	})
}

// SetNever adds other to participant's private never list, or takes them
// off it, and returns the list.
func (s *Service) SetNever(ctx context.Context, eventID, participant, other string, add bool) ([]string, error) {
	var list []string
	_, err := s.call(ctx, eventID, "event_id", &op{
		write: func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
			return ev.SetNever(now, participant, other, add)
		},
		read: func(e *event) { list = e.ev.NeverList(participant) },
	})
	return list, err
}

// NeverList returns participant's private never list.
func (s *Service) NeverList(ctx context.Context, eventID, participant string) ([]string, error) {
	if err := pairing.CheckKey(participant); err != nil {
		return nil, err
	}
	var list []string
	known := false
	_, err := s.call(ctx, eventID, "event_id", &op{read: func(e *event) {
		_, known = e.ev.Status(participant)
		list = e.ev.NeverList(participant)
	}})
	if err == nil && !known {
		err = cupid.NotFound("participant", "%q has not joined", participant)
	}
	return list, err
}

// Answer records participant's private answer about other.
func (s *Service) Answer(ctx context.Context, eventID, participant, other string, yes bool) error {
	_, err := s.call(ctx, eventID, "event_id", &op{write: func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error) {
		return ev.Answer(now, participant, other, yes)
	}})
	return err
}

// Matches returns participant's mutual matches once revealed.
func (s *Service) Matches(ctx context.Context, eventID, participant string) ([]string, error) {
	var out []string
	var merr error
	_, err := s.call(ctx, eventID, "event_id", &op{read: func(e *event) { out, merr = e.ev.Matches(participant) }})
	if err != nil {
		return nil, err
	}
	return out, merr
}

// MaxHistoryPage bounds the rounds one History call returns.
const MaxHistoryPage = 100

// History returns up to limit (at most MaxHistoryPage; zero means that)
// recorded rounds after the sequence number afterSeq, and whether more
// follow.
func (s *Service) History(ctx context.Context, eventID string, afterSeq, limit int) ([]pairing.RoundRecord, bool, error) {
	switch {
	case afterSeq < 0:
		return nil, false, cupid.Invalid("after_seq", "must not be negative, got %d", afterSeq)
	case limit < 0 || limit > MaxHistoryPage:
		return nil, false, cupid.Invalid("limit", "must be between 0 and %d, got %d", MaxHistoryPage, limit)
	case limit == 0:
		limit = MaxHistoryPage
	}
	var first, last int
	_, err := s.call(ctx, eventID, "event_id", &op{read: func(e *event) { first, last = e.ev.Kept() }})
	if err != nil || last == 0 {
		return nil, false, err
	}
	out, err := s.readRounds(ctx, eventID, max(afterSeq+1, first), last, limit)
	if err != nil {
		return nil, false, err
	}
	more := len(out) > 0 && out[len(out)-1].Seq < last
	return out, more, nil
}
