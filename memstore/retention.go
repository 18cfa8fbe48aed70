package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

var _ cupid.Pruner = (*Store)(nil)

// memCandidate is a row a batch read, with the key its kind orders by.
type memCandidate struct {
	id    string
	at    int64 // the ordering time (creation, or the row's time)
	c     lifecycle.Candidate
	young bool // created at or after the horizon: the pass ends there
}

// memKinds is the table of kinds: each lists its candidates oldest first
// and removes rows by id. The same shape as the SQL stores' tables.
var memKinds = map[cupid.RetentionKind]struct {
	list   func(s *Store, before time.Time) []memCandidate
	remove func(s *Store, id string) (related int)
	count  func(s *Store) (rows int64, oldest time.Time)
}{
	cupid.RetainTickets: {
		list: func(s *Store, before time.Time) []memCandidate {
			var out []memCandidate
			for _, t := range s.tickets {
				c := memCandidate{id: t.ID, at: t.CreatedAt.UnixNano(), young: !t.CreatedAt.Before(before),
					c: lifecycle.Candidate{State: string(t.State), At: t.UpdatedAt}}
				if r, ok := s.hand[t.MatchID]; ok && t.MatchID != "" {
					c.c.MatchState, c.c.MatchAt = r.State, r.UpdatedAt
				}
				out = append(out, c)
			}
			return out
		},
		remove: func(s *Store, id string) int {
			t := s.tickets[id]
			if t.RequestID != "" && s.byRequest[t.RequestID] == id {
				delete(s.byRequest, t.RequestID)
			}
			n := len(s.events[id])
			delete(s.tickets, id)
			delete(s.events, id)
			return n
		},
		count: func(s *Store) (int64, time.Time) {
			return oldestOf(s.tickets, func(t *cupid.Ticket) time.Time { return t.CreatedAt })
		},
	},
	cupid.RetainMatches: {
		list: func(s *Store, before time.Time) []memCandidate {
			var out []memCandidate
			for id, m := range s.matches {
				r := s.hand[id]
				c := memCandidate{id: id, at: m.CreatedAt.UnixNano(), young: !m.CreatedAt.Before(before)}
				if r != nil {
					c.c = lifecycle.Candidate{State: string(r.State), At: r.UpdatedAt}
				}
				out = append(out, c)
			}
			return out
		},
		remove: func(s *Store, id string) int {
			n := len(s.answers[id])
			if s.retention.horizons == nil {
				s.retention.horizons = map[string]int64{}
			}
			s.mlog = slices.DeleteFunc(s.mlog, func(e cupid.MatchEvent) bool {
				if e.MatchID != id {
					return false
				}
				s.retention.horizons[e.Queue] = max(s.retention.horizons[e.Queue], e.Seq)
				n++
				return true
			})
			delete(s.matches, id)
			delete(s.hand, id)
			delete(s.answers, id)
			return n
		},
		count: func(s *Store) (int64, time.Time) {
			return oldestOf(s.matches, func(m *cupid.Match) time.Time { return m.CreatedAt })
		},
	},
	cupid.RetainRatingHistory: {
		list: func(s *Store, before time.Time) []memCandidate {
			var out []memCandidate
			for _, h := range s.rt.history {
				out = append(out, memCandidate{id: strconv.FormatInt(h.Seq, 10), at: h.Seq, young: !h.At.Before(before), c: lifecycle.Candidate{At: h.At}})
			}
			return out
		},
		remove: func(s *Store, id string) int {
			s.rt.history = slices.DeleteFunc(s.rt.history, func(h cupid.RatingEntry) bool { return strconv.FormatInt(h.Seq, 10) == id })
			return 0
		},
		count: func(s *Store) (int64, time.Time) {
			if len(s.rt.history) == 0 {
				return 0, time.Time{}
			}
			return int64(len(s.rt.history)), s.rt.history[0].At
		},
	},
	cupid.RetainRatingResults: {
		list: func(s *Store, before time.Time) []memCandidate {
			var out []memCandidate
			for id, r := range s.rt.results {
				out = append(out, memCandidate{id: id, at: r.At.UnixNano(), young: !r.At.Before(before), c: lifecycle.Candidate{At: r.At}})
			}
			return out
		},
		remove: func(s *Store, id string) int {
			delete(s.rt.results, id)
			return 0
		},
		count: func(s *Store) (int64, time.Time) {
			return oldestOf(s.rt.results, func(r cupid.ResultRecord) time.Time { return r.At })
		},
	},
	cupid.RetainEncounters: {
		list: func(s *Store, before time.Time) []memCandidate {
			var out []memCandidate
			for p, m := range s.enc.byPlayer {
				for k, e := range m {
					out = append(out, memCandidate{id: encounterKey(p, k), at: e.At.UnixNano(), young: !e.At.Before(before), c: lifecycle.Candidate{At: e.At}})
				}
			}
			return out
		},
		remove: func(s *Store, id string) int {
			var k [3]string
			if json.Unmarshal([]byte(id), &k) == nil {
				if m := s.enc.byPlayer[k[0]]; m != nil {
					delete(m, [2]string{k[1], k[2]})
					if len(m) == 0 {
						delete(s.enc.byPlayer, k[0])
					}
				}
			}
			return 0
		},
		count: func(s *Store) (int64, time.Time) {
			var n int64
			var oldest time.Time
			for _, m := range s.enc.byPlayer {
				for _, e := range m {
					n++
					if oldest.IsZero() || e.At.Before(oldest) {
						oldest = e.At
					}
				}
			}
			return n, oldest
		},
	},
}

// encounterKey is an encounter's id for retention: its key (player,
// other, ref) as a JSON array, which no id's characters can break.
func encounterKey(player string, k [2]string) string {
	b, _ := json.Marshal([3]string{player, k[0], k[1]})
	return string(b)
}

// retentionState is what retention keeps: the match log's horizons.
type retentionState struct {
	horizons map[string]int64
}

// Prune removes one batch of a kind's old rows.
func (s *Store) Prune(ctx context.Context, _ cupid.Fence, req cupid.PruneRequest) (cupid.Pruned, error) {
	if err := lifecycle.CheckPrune(req); err != nil {
		return cupid.Pruned{}, err
	}
	k, ok := memKinds[req.Kind]
	if !ok {
		return cupid.Pruned{}, fmt.Errorf("memstore: retention kind %q has no table here", req.Kind)
	}
	if err := s.begin(ctx, "Prune"); err != nil {
		return cupid.Pruned{}, err
	}
	defer s.end(nil)
	cs := k.list(s, req.Before)
	slices.SortFunc(cs, func(a, b memCandidate) int {
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.id, b.id))
	})
	if req.After != "" {
		at, id, ok := strings.Cut(req.After, " ")
		n, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil {
			return cupid.Pruned{}, cupid.Invalid("after", "not a cursor of this store: %q", req.After)
		}
		i, _ := slices.BinarySearchFunc(cs, memCandidate{at: n, id: id}, func(a, b memCandidate) int {
			return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.id, b.id))
		})
		if i < len(cs) && cs[i].at == n && cs[i].id == id {
			i++
		}
		cs = cs[i:]
	}
	var out cupid.Pruned
	var batch []lifecycle.Candidate
	for i, c := range cs {
		if c.young {
			break
		}
		if i == req.Limit {
			out.Next = fmt.Sprintf("%d %s", cs[i-1].at, cs[i-1].id)
			break
		}
		c.c.ID = c.id
		batch = append(batch, c.c)
	}
	ids := lifecycle.PruneIDs(req, batch)
	if req.Select {
		out.IDs = ids
		return out, nil
	}
	for _, id := range ids {
		out.Removed++
		out.Related += k.remove(s, id)
	}
	return out, nil
}

// MatchLogHorizon returns the highest sequence number retention removed
// from queue's match log.
func (s *Store) MatchLogHorizon(ctx context.Context, queue string) (int64, error) {
	if err := s.begin(ctx, "MatchLogHorizon"); err != nil {
		return 0, err
	}
	defer s.end(nil)
	return s.retention.horizons[queue], nil
}

// Retained counts each kind's rows; memory has no bytes to report.
func (s *Store) Retained(ctx context.Context) ([]cupid.Retained, error) {
	if err := s.begin(ctx, "Retained"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []cupid.Retained
	for _, k := range cupid.RetentionKinds {
		rows, oldest := memKinds[k].count(s)
		out = append(out, cupid.Retained{Kind: k, Rows: rows, Oldest: oldest})
	}
	return out, nil
}

// The operations of retention that tests may make fail or hold.
func init() {
	for _, op := range []string{"Prune", "MatchLogHorizon", "Retained"} {
		ops[op] = true
	}
}

// oldestOf counts m's values and finds the earliest of their times.
func oldestOf[K comparable, V any](m map[K]V, at func(V) time.Time) (int64, time.Time) {
	var oldest time.Time
	for _, v := range m {
		if t := at(v); oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	return int64(len(m)), oldest
}
