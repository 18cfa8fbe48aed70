package memstore

import (
	"bytes"
	"context"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

// The rating store's operations, for Fail, FailNext and Block.
func init() {
	for _, op := range []string{"SaveResult", "SaveResults", "Result", "PutRatingRows", "RatingRows", "RatingHistory"} {
		ops[op] = true
	}
}

var _ cupid.RatingStore = (*Store)(nil)

// ratingState is the in-memory cupid.RatingStore.
type ratingState struct {
	results map[string]cupid.ResultRecord
	rows    map[string]map[string][]byte // kind → id → body
	history []cupid.RatingEntry          // in Seq order
	seq     int64
}

func (r *ratingState) init() {
	if r.results == nil {
		r.results = map[string]cupid.ResultRecord{}
		r.rows = map[string]map[string][]byte{}
	}
}

// check refuses rows whose guard does not hold.
func (r *ratingState) check(rows []cupid.RatingRow) error {
	for _, row := range rows {
		if !row.Guard || (row.Prev == nil && row.Body == nil) {
			continue
		}
		cur, ok := r.rows[row.Kind][row.ID]
		if (row.Prev == nil) != !ok || (ok && !bytes.Equal(cur, row.Prev)) {
			return cupid.RowsChanged(row.Kind, row.ID)
		}
	}
	return nil
}

func (r *ratingState) put(rows []cupid.RatingRow) {
	for _, row := range rows {
		if row.Body == nil {
			delete(r.rows[row.Kind], row.ID)
			continue
		}
		if r.rows[row.Kind] == nil {
			r.rows[row.Kind] = map[string][]byte{}
		}
		r.rows[row.Kind][row.ID] = slices.Clone(row.Body)
	}
}

// SaveResult stores a result with its rows and history; a match with a
// result already is a conflict and changes nothing.
func (s *Store) SaveResult(ctx context.Context, r cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	if err := s.begin(ctx, "SaveResult"); err != nil {
		return err
	}
	defer s.end(nil)
	return s.rt.save([]cupid.ResultRecord{r}, rows, history)
}

// SaveResults stores results with their rows and history, all or nothing.
func (s *Store) SaveResults(ctx context.Context, results []cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	if err := s.begin(ctx, "SaveResults"); err != nil {
		return err
	}
	defer s.end(nil)
	return s.rt.save(results, rows, history)
}

func (r *ratingState) save(results []cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	r.init()
	seen := map[string]bool{}
	for _, res := range results {
		if _, ok := r.results[res.MatchID]; ok || seen[res.MatchID] {
			return cupid.Conflict("match_id", "match %s has a result already", res.MatchID)
		}
		seen[res.MatchID] = true
	}
	if err := r.check(rows); err != nil {
		return err
	}
	for _, res := range results {
		res.At = res.At.UTC()
		res.Body = slices.Clone(res.Body)
		r.results[res.MatchID] = res
	}
	r.put(rows)
	for _, h := range history {
		r.seq++
		h.Seq = r.seq
		h.At = h.At.UTC()
		h.Body = slices.Clone(h.Body)
		r.history = append(r.history, h)
	}
	return nil
}

// Result returns a match's result, or not_found.
func (s *Store) Result(ctx context.Context, matchID string) (cupid.ResultRecord, error) {
	if err := s.begin(ctx, "Result"); err != nil {
		return cupid.ResultRecord{}, err
	}
	defer s.end(nil)
	r, ok := s.rt.results[matchID]
	if !ok {
		return cupid.ResultRecord{}, cupid.NotFound("match_id", "match %s has no result", matchID)
	}
	r.Body = slices.Clone(r.Body)
	return r, nil
}

// PutRatingRows writes rows; nil bodies delete.
func (s *Store) PutRatingRows(ctx context.Context, rows []cupid.RatingRow) error {
	if err := s.begin(ctx, "PutRatingRows"); err != nil {
		return err
	}
	defer s.end(nil)
	s.rt.init()
	if err := s.rt.check(rows); err != nil {
		return err
	}
	s.rt.put(rows)
	return nil
}

// RatingRows returns the rows of a kind among ids that exist, in the order
// of ids.
func (s *Store) RatingRows(ctx context.Context, kind string, ids []string) ([]cupid.RatingRow, error) {
	if err := s.begin(ctx, "RatingRows"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []cupid.RatingRow
	for _, id := range ids {
		if b, ok := s.rt.rows[kind][id]; ok {
			out = append(out, cupid.RatingRow{Kind: kind, ID: id, Body: slices.Clone(b)})
		}
	}
	return out, nil
}

// RatingHistory returns a player's history under a rating, newest first.
func (s *Store) RatingHistory(ctx context.Context, rating, player string, beforeSeq int64, limit int) ([]cupid.RatingEntry, error) {
	if err := s.begin(ctx, "RatingHistory"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []cupid.RatingEntry
	for i := len(s.rt.history) - 1; i >= 0 && len(out) < limit; i-- {
		h := s.rt.history[i]
		if h.Rating != rating || h.Player != player || (beforeSeq > 0 && h.Seq >= beforeSeq) {
			continue
		}
		h.Body = slices.Clone(h.Body)
		out = append(out, h)
	}
	return out, nil
}
