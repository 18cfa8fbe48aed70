package opponentsvc

import (
	"context"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/opponent"
)

// History is the encounter history as the finders read and write it
// (encountersvc.Service implements it): the players an attacker must not be
// offered, whether two players are blocked, and the record of an attack.
type History interface {
	// Exclusions lists the players attacker blocked and, when within > 0,
	// the defenders he attacked in the finder (place) within it.
	Exclusions(ctx context.Context, attacker, place string, within time.Duration) ([]string, error)
	Blocked(ctx context.Context, players []string) (a, b string, blocked bool, err error)
	Record(ctx context.Context, m encounter.Meeting) error
}

// HistoryRules are what a finder reads of the history.
type HistoryRules struct {
	// NotSameDefenderWithin keeps a defender the attacker attacked within
	// it out of his offers; 0 allows him again at once.
	NotSameDefenderWithin time.Duration
}

// maxBlockedRetries bounds how many found defenders a query passes over
// because one of the two blocked the other, before it answers as if
// nothing were found: a blocked pair is never offered, and a query costs
// at most this many more searches.
const maxBlockedRetries = 4

// query runs a finder's query under the history's rules when the finder
// has them: the attacker's blocks and recent defenders are excluded (as
// room in the exclusion list allows), and a defender who blocked the
// attacker is passed over (his hold, if the query took one, undone).
// Without history it is the finder's query alone.
func (s *Service) query(ctx context.Context, fd *finder, q opponent.Query, now time.Time) (opponent.Result, error) {
	rules, ok := s.historyRules[fd.name]
	if !ok || s.history == nil {
		fd.mu.Lock()
		defer fd.mu.Unlock()
		return fd.f.Query(q, now)
	}
	ex, err := s.history.Exclusions(ctx, q.AttackerID, fd.name, rules.NotSameDefenderWithin)
	if err != nil {
		return opponent.Result{}, err
	}
	room := fd.cfg.Opponent.MaxExcluded - len(q.Exclude)
	if fd.cfg.Opponent.MaxExcluded == 0 {
		room = 1024 - len(q.Exclude) // the finder's default bound
	}
	q.Exclude = slices.Clone(q.Exclude)
	for _, id := range ex {
		if room <= 0 {
			break
		}
		if !slices.Contains(q.Exclude, id) {
			q.Exclude = append(q.Exclude, id)
			room--
		}
	}
	for range maxBlockedRetries {
		fd.mu.Lock()
		res, err := fd.f.Query(q, now)
		fd.mu.Unlock()
		if err != nil || res.Type != opponent.ResultSuccess {
			return res, err
		}
		_, _, blocked, err := s.history.Blocked(ctx, []string{q.AttackerID, res.PlayerID})
		if err == nil && !blocked {
			return res, nil
		}
		if res.Reservation != nil {
			fd.mu.Lock()
			fd.f.Release(res.Reservation.ID, "", now)
			fd.mu.Unlock()
		}
		if err != nil {
			return opponent.Result{}, err
		}
		if room <= 0 {
			break
		}
		q.Exclude = append(q.Exclude, res.PlayerID)
		room--
	}
	return opponent.Result{Type: opponent.ResultNoneFound}, nil
}

// recordAttack writes a confirmed attack to the history of a finder that
// reads it. A failure is logged: the attack happened, and its
// confirmation stands.
func (s *Service) recordAttack(ctx context.Context, fd *finder, c opponent.Confirmation) {
	if _, ok := s.historyRules[fd.name]; !ok || s.history == nil {
		return
	}
	r := c.Reservation
	m := encounter.Meeting{Mode: encounter.ModeOpponent, Place: fd.name, Ref: r.ID, At: s.now().UTC(),
		Teams: [][]string{{r.Attacker}, {r.Defender}}}
	if err := s.history.Record(ctx, m); err != nil && cupid.ErrorCode(err) != cupid.CodeInvalid {
		s.log.Warn("opponent finder: the attack could not be recorded in the encounter history", "finder", fd.name, "reservation", r.ID, "err", err)
	}
}
