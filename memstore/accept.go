package memstore

import (
	"cmp"
	"context"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

// The ready check's answers and the release of a match ticket by ticket;
// see the root package's accept.go.

func init() {
	ops["AnswerMatch"] = true
	ops["MatchAnswers"] = true
}

func (s *Store) addAnswer(id string, a cupid.Answer) {
	if s.answers == nil {
		s.answers = map[string][]cupid.Answer{}
	}
	s.answers[id] = append(s.answers[id], a)
	s.undo = append(s.undo, func() {
		s.answers[id] = s.answers[id][:len(s.answers[id])-1]
	})
}

// MatchAnswers lists a match's answers by time, then player id.
func (s *Store) MatchAnswers(ctx context.Context, id string) ([]cupid.Answer, error) {
	if err := s.begin(ctx, "MatchAnswers"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	if _, ok := s.hand[id]; !ok {
		return nil, cupid.MatchNotFound(id)
	}
	return s.answersOf(id), nil
}

// answersOf lists a match's answers by time, then player id, as the SQL
// stores do.
func (s *Store) answersOf(id string) []cupid.Answer {
	out := slices.Clone(s.answers[id])
	slices.SortStableFunc(out, func(a, b cupid.Answer) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	return out
}
