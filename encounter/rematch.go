package encounter

import (
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Rematches. Two players who just played in a real-time queue may ask to
// play again: one asks, the other answers, and when both accept within
// the window the pair is matched together in the same queue. One who
// declines, or a window that passes, ends the rematch without a match.
// The rules are here; the service keeps a rematch as a document and forms
// the match through the ticket service.

// The states of a rematch.
const (
	RematchPending  = "pending"
	RematchAccepted = "accepted"
	RematchDeclined = "declined"
	RematchExpired  = "expired"
)

// DefaultRematchWindow is how long after their match two players may ask
// for a rematch, and how long an asked rematch waits for the answer.
const DefaultRematchWindow = 2 * time.Minute

// MaxRematchWindow bounds the window a configuration may set.
const MaxRematchWindow = time.Hour

// Rematch is one rematch asked for: the two players (the asker first), the
// match they played (Ref) in its queue (Place), the answers so far, and
// when the asking ends.
type Rematch struct {
	Players   [2]string       `json:"players"`
	Place     string          `json:"place"`
	Ref       string          `json:"ref"`
	Answers   map[string]bool `json:"answers"`
	State     string          `json:"state"`
	AskedAt   time.Time       `json:"asked_at"`
	ExpiresAt time.Time       `json:"expires_at"`
}

// AskRematch starts a rematch: asker asks other to play again after the
// match ref. His own history (newest first) must hold that match with
// other as an opponent in a real-time queue, and the match must have been
// within window of now; the rematch then waits window for the answer.
func AskRematch(h []cupid.Encounter, asker, other, ref string, window time.Duration, now time.Time) (Rematch, error) {
	if err := CheckID("player_id", asker); err != nil {
		return Rematch{}, err
	}
	if err := CheckID("other_id", other); err != nil {
		return Rematch{}, err
	}
	if err := CheckID("ref", ref); err != nil {
		return Rematch{}, err
	}
	if asker == other {
		return Rematch{}, cupid.Invalid("other_id", "a player cannot ask himself for a rematch")
	}
	i := slices.IndexFunc(h, func(e cupid.Encounter) bool {
		return e.Player == asker && e.Other == other && e.Ref == ref && e.Mode == ModeQueue && e.Side == SideOpponent
	})
	if i < 0 {
		return Rematch{}, cupid.NotFound("ref", "%q did not play against %q in match %q", asker, other, ref)
	}
	if e := h[i]; now.Sub(e.At) > window {
		return Rematch{}, cupid.Errorf(cupid.CodeConflict, "ref", "match %q was played at %s: a rematch may be asked within %s of it", ref, e.At.Format(time.RFC3339), window)
	}
	return Rematch{
		Players: [2]string{asker, other}, Place: h[i].Place, Ref: ref, Answers: map[string]bool{asker: true},
		State: RematchPending, AskedAt: now.UTC(), ExpiresAt: now.Add(window).UTC(),
	}, nil
}

// StateAt is the rematch's state at now: a pending one whose time ran out
// is expired.
func (r Rematch) StateAt(now time.Time) string {
	if r.State == RematchPending && !now.Before(r.ExpiresAt) {
		return RematchExpired
	}
	return r.State
}

// Answer records player's answer and returns the rematch after it: both
// accepted makes it accepted (the pair is to be matched), a decline
// declined. Answering a rematch that is over, or again, is refused; a
// player not in it is told it is not found, like one that does not exist.
func (r Rematch) Answer(player string, accept bool, now time.Time) (Rematch, error) {
	if player != r.Players[0] && player != r.Players[1] {
		return r, cupid.NotFound("rematch_id", "no such rematch for %q", player)
	}
	switch st := r.StateAt(now); st {
	case RematchPending:
	default:
		return r, cupid.Errorf(cupid.CodeConflict, "rematch_id", "the rematch is %s", st)
	}
	if _, ok := r.Answers[player]; ok {
		return r, cupid.Conflict("rematch_id", "%q has answered already", player)
	}
	out := r
	out.Answers = map[string]bool{player: accept}
	for k, v := range r.Answers {
		out.Answers[k] = v
	}
	switch {
	case !accept:
		out.State = RematchDeclined
	case out.Answers[r.Players[0]] && out.Answers[r.Players[1]]:
		out.State = RematchAccepted
	}
	return out, nil
}
