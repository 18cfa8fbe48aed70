package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// retentionSchema is the migration of retention: the match log's horizon
// per queue (the highest sequence number removed, so a backend resuming
// from before it is told), and the indexes retention reads by — a
// removed match's log entries, matches and results oldest first.
const retentionSchema = `
CREATE TABLE retention_horizons (
	queue text COLLATE "C" PRIMARY KEY,
	seq   bigint NOT NULL
);
CREATE INDEX match_events_match ON match_events (match_id);
CREATE INDEX matches_created ON matches (created_at, id);
CREATE INDEX rating_results_at ON rating_results (at, match_id);
`

var _ cupid.Pruner = (*Store)(nil)

// pruneKind is how this store prunes one cupid.RetentionKind: read the
// batch's candidates along an index from the cursor (outside the
// transaction: every row Aged may choose is in a final state, which no
// other writer changes), then delete the chosen ones in one short fenced
// transaction whose statements check again that they are not live. A kind
// of data added later is one more entry of pruneKinds.
type pruneKind struct {
	kind cupid.RetentionKind
	read func(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error)
	// remove queues the deletes of the chosen keys ($1, a text array);
	// the first statement's rows are the kind's own, the others related.
	remove []string
	// table and others are the kind's tables (for Retained's bytes);
	// oldest reads the oldest row's time.
	table  string
	others []string
	oldest string
}

var pruneKinds = []pruneKind{
	{
		kind: cupid.RetainTickets, read: readTicketCandidates,
		remove: []string{
			`DELETE FROM tickets WHERE id = ANY($1) AND state <> 'waiting'`,
			`DELETE FROM events WHERE ticket_id = ANY($1)`,
		},
		table: "tickets", others: []string{"events"},
		// The oldest of each state's oldest, each read from tickets_state.
		oldest: `SELECT min((SELECT min(created_at) FROM tickets WHERE state = st)) FROM unnest(ARRAY['waiting', 'matched', 'cancelled', 'expired']) st`,
	},
	{
		kind: cupid.RetainMatches, read: readMatchCandidates,
		remove: []string{
			`DELETE FROM matches WHERE id = ANY($1) AND state IN ('released', 'ended')`,
			`DELETE FROM match_answers WHERE match_id = ANY($1)`,
			`WITH d AS (DELETE FROM match_events WHERE match_id = ANY($1) RETURNING queue, seq),
			h AS (INSERT INTO retention_horizons (queue, seq) SELECT queue, max(seq) FROM d GROUP BY queue
				ON CONFLICT (queue) DO UPDATE SET seq = GREATEST(retention_horizons.seq, excluded.seq))
			SELECT count(*) FROM d`,
		},
		table: "matches", others: []string{"match_events", "match_answers"},
		oldest: `SELECT min(created_at) FROM matches`,
	},
	{
		kind: cupid.RetainRatingHistory, table: "rating_history",
		read:   readByKey(`SELECT seq::text, at FROM rating_history WHERE seq > $1::bigint ORDER BY seq LIMIT $2`, "0"),
		remove: []string{`DELETE FROM rating_history WHERE seq = ANY($1::bigint[])`},
		oldest: `SELECT at FROM rating_history ORDER BY seq LIMIT 1`,
	},
	{
		kind: cupid.RetainRatingResults, table: "rating_results",
		read:   readResultCandidates,
		remove: []string{`DELETE FROM rating_results WHERE match_id = ANY($1)`},
		oldest: `SELECT min(at) FROM rating_results`,
	},
	{
		// An encounter's id is its key as a JSON array (no id's
		// characters can break it); encounters are read oldest first
		// along encounters_at, so one a backend recorded late with an old
		// time is removed as soon as it is old.
		kind: cupid.RetainEncounters, table: "encounters",
		read: readEncounterCandidates,
		remove: []string{`DELETE FROM encounters WHERE (player_id, other_id, ref) IN
			(SELECT k->>0, k->>1, k->>2 FROM (SELECT unnest($1::text[])::jsonb AS k) u)`},
		oldest: `SELECT min(at) FROM encounters`,
	},
}

// Prune removes one batch of a kind's old rows: one read, then one round
// trip that begins, deletes, checks the fence and commits.
func (s *Store) Prune(ctx context.Context, fence cupid.Fence, req cupid.PruneRequest) (cupid.Pruned, error) {
	p, err := lifecycle.PruneKind(req, pruneKinds, func(p pruneKind) cupid.RetentionKind { return p.kind })
	if err != nil {
		return cupid.Pruned{}, err
	}
	cs, next, err := p.read(ctx, s, req.Before, req.After, req.Limit)
	if err != nil {
		return cupid.Pruned{}, fmt.Errorf("postgres: prune %s: %w", req.Kind, err)
	}
	out := cupid.Pruned{Next: next}
	ids := lifecycle.PruneIDs(req, cs)
	if req.Select {
		out.IDs = ids
		return out, nil
	}
	if len(ids) == 0 {
		return out, nil
	}
	err = s.inTx(ctx, func(conn *pgxpool.Conn) error {
		b := &pgx.Batch{}
		queueBegin(b)
		queueFenceBegin(fence, b)
		for _, q := range p.remove {
			b.Queue(q, ids)
		}
		queueFence(fence, b)
		b.Queue(commitSQL)
		br := conn.SendBatch(ctx, b)
		defer br.Close()
		skip := 2
		if fence.Lease != "" {
			skip++
		}
		for range skip {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		for i, q := range p.remove {
			var n int64
			if strings.HasPrefix(q, "WITH") {
				if err := br.QueryRow().Scan(&n); err != nil {
					return err
				}
			} else {
				tag, err := br.Exec()
				if err != nil {
					return err
				}
				n = tag.RowsAffected()
			}
			if i == 0 {
				out.Removed += int(n)
			} else {
				out.Related += int(n)
			}
		}
		return br.Close()
	})
	if err != nil {
		return cupid.Pruned{}, fmt.Errorf("postgres: prune %s: %w", req.Kind, fenced(err))
	}
	return out, nil
}

// endedStates are the states of the tickets retention may remove; the
// tickets_state index is read one state at a time.
var endedStates = []cupid.TicketState{cupid.StateCancelled, cupid.StateExpired, cupid.StateMatched}

// readTicketCandidates reads ended tickets created before the horizon,
// state by state; the cursor is "state-index created_at id".
func readTicketCandidates(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	st, at, id := 0, int64(0), ""
	if cursor != "" {
		f := strings.SplitN(cursor, " ", 3)
		if len(f) != 3 {
			return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
		}
		st, _ = strconv.Atoi(f[0])
		at, _ = strconv.ParseInt(f[1], 10, 64)
		id = f[2]
	}
	if st < 0 || st >= len(endedStates) {
		return nil, "", nil
	}
	rows, err := s.pool.Query(ctx, `SELECT t.id, t.state, t.created_at, t.updated_at, m.state, COALESCE(m.updated_at, m.created_at)
		FROM tickets t LEFT JOIN matches m ON m.id = t.match_id
		WHERE t.state = $1 AND (t.created_at, t.id) > ($2, $3) AND t.created_at < $4
		ORDER BY t.created_at, t.id LIMIT $5`, string(endedStates[st]), at, id, before.UnixNano(), limit)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var cs []lifecycle.Candidate
	for rows.Next() {
		var c lifecycle.Candidate
		var updated int64
		var mstate *string
		var mat *int64
		if err := rows.Scan(&c.ID, &c.State, &at, &updated, &mstate, &mat); err != nil {
			return nil, "", err
		}
		c.At = time.Unix(0, updated).UTC()
		if mstate != nil && mat != nil {
			c.MatchState, c.MatchAt = cupid.MatchState(*mstate), time.Unix(0, *mat).UTC()
		}
		id = c.ID
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	if len(cs) < limit {
		if st+1 == len(endedStates) {
			return cs, "", nil
		}
		return cs, fmt.Sprintf("%d 0 ", st+1), nil
	}
	return cs, fmt.Sprintf("%d %d %s", st, at, id), nil
}

// readMatchCandidates reads matches created before the horizon, oldest
// first; the cursor is "created_at id".
func readMatchCandidates(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	return readTimed(ctx, s, `SELECT id, state, created_at, COALESCE(updated_at, created_at)
		FROM matches WHERE (created_at, id) > ($1, $2) AND created_at < $3 ORDER BY created_at, id LIMIT $4`, before, cursor, limit)
}

// readResultCandidates reads results from before the horizon, oldest
// first.
func readResultCandidates(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	return readTimed(ctx, s, `SELECT match_id, '', at, at
		FROM rating_results WHERE (at, match_id) > ($1, $2) AND at < $3 ORDER BY at, match_id LIMIT $4`, before, cursor, limit)
}

func readEncounterCandidates(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	return readTimed(ctx, s, `SELECT k, '', at, at FROM (SELECT json_build_array(player_id, other_id, ref)::text AS k, at
		FROM encounters WHERE at >= $1 AND at < $3) e
		WHERE (at, k) > ($1, $2) ORDER BY at, k LIMIT $4`, before, cursor, limit)
}

// readTimed reads candidates along a (time, id) index from a cursor
// "time id".
func readTimed(ctx context.Context, s *Store, q string, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	at, id := int64(-1<<63), ""
	if cursor != "" {
		a, rest, ok := strings.Cut(cursor, " ")
		n, err := strconv.ParseInt(a, 10, 64)
		if !ok || err != nil {
			return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
		}
		at, id = n, rest
	}
	rows, err := s.pool.Query(ctx, q, at, id, before.UnixNano(), limit)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var cs []lifecycle.Candidate
	for rows.Next() {
		var c lifecycle.Candidate
		var updated int64
		if err := rows.Scan(&c.ID, &c.State, &at, &updated); err != nil {
			return nil, "", err
		}
		c.At = time.Unix(0, updated).UTC()
		id = c.ID
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	if len(cs) < limit {
		return cs, "", nil
	}
	return cs, fmt.Sprintf("%d %s", at, id), nil
}

// readByKey reads rows along an increasing integer key (given and
// returned as text); the first row at or after the horizon ends the pass.
func readByKey(q, first string) func(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	return func(ctx context.Context, s *Store, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
		key := first
		if cursor != "" {
			if _, err := strconv.ParseInt(cursor, 10, 64); err != nil {
				return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
			}
			key = cursor
		}
		rows, err := s.pool.Query(ctx, q, key, limit)
		if err != nil {
			return nil, "", err
		}
		defer rows.Close()
		var cs []lifecycle.Candidate
		young := false
		for rows.Next() {
			var at int64
			if err := rows.Scan(&key, &at); err != nil {
				return nil, "", err
			}
			if at >= before.UnixNano() {
				young = true
			}
			if !young {
				cs = append(cs, lifecycle.Candidate{ID: key, At: time.Unix(0, at).UTC()})
			}
		}
		if err := rows.Err(); err != nil {
			return nil, "", err
		}
		if young || len(cs) < limit {
			return cs, "", nil
		}
		return cs, key, nil
	}
}

// MatchLogHorizon returns the highest match log sequence number retention
// removed from queue's log.
func (s *Store) MatchLogHorizon(ctx context.Context, queue string) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, `SELECT seq FROM retention_horizons WHERE queue = $1`, queue).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: read the match log horizon of %s: %w", queue, err)
	}
	return seq, nil
}

// Retained reports each kind's rows (counted while the planner's estimate
// is under exactCount, the estimate above, which costs no scan), its
// oldest row and the size of its tables with their indexes and TOAST.
func (s *Store) Retained(ctx context.Context) ([]cupid.Retained, error) {
	var out []cupid.Retained
	for _, p := range pruneKinds {
		r := cupid.Retained{Kind: p.kind}
		tables := append([]string{p.table}, p.others...)
		err := s.pool.QueryRow(ctx, `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint
			FROM pg_class c WHERE c.oid = ANY(SELECT to_regclass(t)::oid FROM unnest($1::text[]) t)`, tables).Scan(&r.Bytes)
		if err != nil {
			return nil, fmt.Errorf("postgres: size of %s: %w", p.table, err)
		}
		if err := s.pool.QueryRow(ctx, `SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)`, p.table).Scan(&r.Rows); err != nil {
			return nil, fmt.Errorf("postgres: estimate the rows of %s: %w", p.table, err)
		}
		if r.Rows < exactCount {
			if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+p.table).Scan(&r.Rows); err != nil {
				return nil, fmt.Errorf("postgres: count %s: %w", p.table, err)
			}
		}
		var oldest *int64
		if err := s.pool.QueryRow(ctx, p.oldest).Scan(&oldest); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("postgres: oldest of %s: %w", p.table, err)
		}
		if oldest != nil {
			r.Oldest = time.Unix(0, *oldest).UTC()
		}
		out = append(out, r)
	}
	return out, nil
}

// exactCount is the planner's estimate of a table's rows under which
// Retained counts them.
const exactCount = 100_000
