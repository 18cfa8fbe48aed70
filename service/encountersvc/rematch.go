package encountersvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// Rematches (rules in package encounter): each rematch asked is a document
// of kind RematchKind, its id made from the match and the two players, so
// that asking twice finds the same one. When the second player accepts,
// the document is stored accepted first and then the pair's match is
// formed through the ticket service (ticketsvc.CommitFormed, in the
// queue of the match they played, under an id made from the rematch's): a
// failure in between is finished by answering again, which forms the same
// match or finds it formed.

// RematchKind is the document kind of rematches.
const RematchKind = "encounter-rematch"

// Former forms a match of chosen players (the ticket service).
type Former interface {
	CommitFormed(ctx context.Context, f ticketsvc.FormedMatch) (*cupid.MatchRecord, error)
}

// RematchView is a rematch as callers see it: its id, the rules' state and
// the match formed when both accepted.
type RematchView struct {
	ID string
	encounter.Rematch
	MatchID string
}

// rematchID is a rematch's document id: a digest of the match and the pair
// in a fixed order, followed by "." so that no other id sorts between the
// digest and it (see readRematch).
func rematchID(ref, a, b string) string {
	if a > b {
		a, b = b, a
	}
	sum := sha256.Sum256([]byte(ref + "\x00" + a + "\x00" + b))
	return hex.EncodeToString(sum[:16]) + "."
}

// rematchMatchID is the id of the match a rematch forms.
func rematchMatchID(id string) string { return "rematch-" + strings.TrimSuffix(id, ".") }

// RequestRematch asks other for a rematch of the match ref that player
// just played against him. Asking again while it waits returns it as it
// is; once it is over (declined, expired, formed), asking again is
// refused: one rematch per match and pair.
func (s *Service) RequestRematch(ctx context.Context, player, other, ref string) (RematchView, error) {
	if s.former == nil {
		return RematchView{}, cupid.Errorf(cupid.CodeUnavailable, "", "rematches are not served by this server")
	}
	if err := encounter.CheckID("player_id", player); err != nil {
		return RematchView{}, err
	}
	h, err := s.History(ctx, player, 0)
	if err != nil {
		return RematchView{}, err
	}
	now := s.now()
	r, err := encounter.AskRematch(h, player, other, ref, s.rematchWindow, now)
	if err != nil {
		return RematchView{}, err
	}
	s.rematchMu.Lock()
	defer s.rematchMu.Unlock()
	id := rematchID(ref, player, other)
	if have, ok, err := s.readRematch(ctx, id); err != nil {
		return RematchView{}, err
	} else if ok {
		if st := have.StateAt(now); st != encounter.RematchPending {
			return RematchView{}, cupid.Conflict("ref", "a rematch of this match was asked already and is %s", st)
		}
		if _, asked := have.Answers[player]; asked {
			return s.view(id, have), nil
		}
		// The other asked first: asking is accepting.
		return s.answerLocked(ctx, id, have, player, true)
	}
	if err := s.putRematch(ctx, id, r); err != nil {
		return RematchView{}, err
	}
	s.metrics.rematches.WithLabelValues(encounter.RematchPending).Inc()
	return s.view(id, r), nil
}

// AnswerRematch records player's answer to a rematch; when both accepted,
// their match is formed before the call returns.
func (s *Service) AnswerRematch(ctx context.Context, player, id string, accept bool) (RematchView, error) {
	if s.former == nil {
		return RematchView{}, cupid.Errorf(cupid.CodeUnavailable, "", "rematches are not served by this server")
	}
	if err := encounter.CheckID("player_id", player); err != nil {
		return RematchView{}, err
	}
	if err := encounter.CheckID("rematch_id", id); err != nil {
		return RematchView{}, err
	}
	s.rematchMu.Lock()
	defer s.rematchMu.Unlock()
	r, ok, err := s.readRematch(ctx, id)
	if err != nil {
		return RematchView{}, err
	}
	if !ok || (r.Players[0] != player && r.Players[1] != player) {
		return RematchView{}, cupid.NotFound("rematch_id", "no such rematch for %q", player)
	}
	if r.State == encounter.RematchAccepted {
		// Accepted, its match perhaps not formed: form it (again).
		return s.form(ctx, id, r)
	}
	return s.answerLocked(ctx, id, r, player, accept)
}

// GetRematch returns a rematch as player sees it (one of its two players).
func (s *Service) GetRematch(ctx context.Context, player, id string) (RematchView, error) {
	r, ok, err := s.readRematch(ctx, id)
	if err != nil {
		return RematchView{}, err
	}
	if !ok || (r.Players[0] != player && r.Players[1] != player) {
		return RematchView{}, cupid.NotFound("rematch_id", "no such rematch for %q", player)
	}
	r.State = r.StateAt(s.now())
	return s.view(id, r), nil
}

func (s *Service) answerLocked(ctx context.Context, id string, r encounter.Rematch, player string, accept bool) (RematchView, error) {
	next, err := r.Answer(player, accept, s.now())
	if err != nil {
		return RematchView{}, err
	}
	if err := s.putRematch(ctx, id, next); err != nil {
		return RematchView{}, err
	}
	s.metrics.rematches.WithLabelValues(next.State).Inc()
	if next.State != encounter.RematchAccepted {
		return s.view(id, next), nil
	}
	return s.form(ctx, id, next)
}

// form forms an accepted rematch's match.
func (s *Service) form(ctx context.Context, id string, r encounter.Rematch) (RematchView, error) {
	_, err := s.former.CommitFormed(ctx, ticketsvc.FormedMatch{
		ID: rematchMatchID(id), Queue: r.Place, RequestID: rematchMatchID(id),
		Teams: [][]cupid.Player{{{ID: r.Players[0]}}, {{ID: r.Players[1]}}},
	})
	if err != nil {
		return RematchView{}, err
	}
	return s.view(id, r), nil
}

func (s *Service) view(id string, r encounter.Rematch) RematchView {
	v := RematchView{ID: id, Rematch: r}
	if r.State == encounter.RematchAccepted {
		v.MatchID = rematchMatchID(id)
	}
	return v
}

// readRematch reads one rematch: the first document after its digest is
// it, if it exists (ids are a digest of fixed length and ".").
func (s *Service) readRematch(ctx context.Context, id string) (encounter.Rematch, bool, error) {
	if s.docs == nil {
		return encounter.Rematch{}, false, nil
	}
	docs, err := s.docs.Documents(ctx, RematchKind, strings.TrimSuffix(id, "."), 1)
	if err != nil {
		return encounter.Rematch{}, false, s.storeError("read", err)
	}
	if len(docs) == 0 || docs[0].ID != id {
		return encounter.Rematch{}, false, nil
	}
	var r encounter.Rematch
	if err := json.Unmarshal(docs[0].Body, &r); err != nil {
		return encounter.Rematch{}, false, fmt.Errorf("encountersvc: rematch %s: %w", id, err)
	}
	return r, true, nil
}

func (s *Service) putRematch(ctx context.Context, id string, r encounter.Rematch) error {
	if s.docs == nil {
		return cupid.Errorf(cupid.CodeUnavailable, "", "rematches need a document store")
	}
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.storeError("written", s.docs.PutDocument(ctx, cupid.Fence{}, RematchKind, id, body, s.now()))
}
