package memstore

import (
	"context"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

// The session calls can be made to fail or held, as the others.
func init() {
	for _, op := range []string{"CommitBackfills", "ChangeSession", "OpenSessions"} {
		ops[op] = true
	}
}

// OpenSessions lists the live sessions open to backfill, oldest first.
func (s *Store) OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error) {
	if err := s.begin(ctx, "OpenSessions"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []*cupid.MatchRecord
	for _, r := range s.hand {
		if r.Live() && r.Match.Backfill {
			out = append(out, cloneRecord(r))
		}
	}
	slices.SortFunc(out, func(a, b *cupid.MatchRecord) int {
		if c := a.Match.CreatedAt.Compare(b.Match.CreatedAt); c != 0 {
			return c
		}
		return cmpString(a.Match.ID, b.Match.ID)
	})
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// replaceMatch stores a session's changed match in place of the old one.
func (s *Store) replaceMatch(m *cupid.Match) {
	old := s.matches[m.ID]
	s.matches[m.ID] = m
	s.undo = append(s.undo, func() { s.matches[m.ID] = old })
}
