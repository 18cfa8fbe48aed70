package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cupid-match/cupid/internal/storecopy"
	"github.com/jackc/pgx/v5"
)

// The store as the source and destination of `cupid store copy`
// (internal/storecopy).

var (
	_ storecopy.Source      = (*Store)(nil)
	_ storecopy.Destination = (*Store)(nil)
)

// copyQuiet is how recently a node must have been seen for CopyInUse to
// count it as running: nodes renew their row every quarter of their lease
// time (5 s by default), so 30 s covers lease times up to two minutes.
const copyQuiet = 30 * time.Second

// CopyInUse names the nodes that were running on the database within
// copyQuiet, or returns nil when none was: a copy out of or into a
// database that nodes serve would miss their writes, or hide the copied
// tickets from them (they load the waiting ones when they start).
func (s *Store) CopyInUse(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `SELECT id, EXTRACT(EPOCH FROM clock_timestamp() - seen_at)::float8 FROM cluster_nodes
		WHERE seen_at > clock_timestamp() - make_interval(secs => $1) ORDER BY id`, copyQuiet.Seconds())
	if err != nil {
		return err
	}
	var seen []string
	for rows.Next() {
		var id string
		var ago float64
		if err := rows.Scan(&id, &ago); err != nil {
			return err
		}
		seen = append(seen, fmt.Sprintf("%s %.0fs ago", id, ago))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(seen) > 0 {
		return fmt.Errorf("nodes are running on it (seen: %s): stop them first; a node killed without a clean stop counts for %v after its last heartbeat",
			strings.Join(seen, ", "), copyQuiet)
	}
	return nil
}

// CopySnapshot begins a read-only REPEATABLE READ transaction: all of its
// statements see the database as of its first one, so every page of the
// copy comes from one state even if nodes write meanwhile.
func (s *Store) CopySnapshot(ctx context.Context) (storecopy.Snapshot, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("postgres: begin the read: %w", err)
	}
	return snapshot{tx}, nil
}

type snapshot struct{ tx pgx.Tx }

func (sn snapshot) Close() error { return sn.tx.Rollback(context.Background()) }

func (sn snapshot) Count(ctx context.Context, t storecopy.Table) (int64, error) {
	var n int64
	err := sn.tx.QueryRow(ctx, `SELECT count(*) FROM `+t.Name).Scan(&n)
	return n, err
}

// Max returns the largest value of an integer column, 0 for none.
func (sn snapshot) Max(ctx context.Context, t storecopy.Table, column string) (int64, error) {
	var n int64
	err := sn.tx.QueryRow(ctx, `SELECT COALESCE(max(`+column+`), 0) FROM `+t.Name).Scan(&n)
	return n, err
}

// Rows reads a page in key order, after the last key of the page before.
// Keys compare in byte order (COLLATE "C", as most of the schema's text
// is), so the order is the same whatever the database's collation.
func (sn snapshot) Rows(ctx context.Context, t storecopy.Table, after []any, limit int) ([][]any, error) {
	keys := make([]string, t.Key)
	for i, c := range t.Columns[:t.Key] {
		keys[i] = c.Name
		if c.Kind == storecopy.Text {
			keys[i] += ` COLLATE "C"`
		}
	}
	key := strings.Join(keys, ", ")
	q := `SELECT ` + strings.Join(t.Names(), ", ") + ` FROM ` + t.Name
	args := []any{}
	if after != nil {
		ps := make([]string, len(after))
		for i := range after {
			ps[i] = fmt.Sprintf("$%d", i+1)
		}
		q += ` WHERE (` + key + `) > (` + strings.Join(ps, ", ") + `)`
		args = append(args, after...)
	}
	q += fmt.Sprintf(` ORDER BY %s LIMIT $%d`, key, len(args)+1)
	args = append(args, int64(limit))
	rows, err := sn.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		dst := make([]any, len(t.Columns))
		for i, c := range t.Columns {
			switch c.Kind {
			case storecopy.Text:
				dst[i] = new(*string)
			case storecopy.Int:
				dst[i] = new(*int64)
			case storecopy.Bytes, storecopy.JSON:
				dst[i] = new([]byte) // nil for NULL; json comes as its text
			case storecopy.Bool:
				dst[i] = new(*bool)
			}
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		vals := make([]any, len(dst))
		for i, d := range dst {
			switch d := d.(type) {
			case **string:
				if *d != nil {
					vals[i] = **d
				}
			case **int64:
				if *d != nil {
					vals[i] = **d
				}
			case *[]byte:
				if *d != nil {
					vals[i] = *d
				}
			case **bool:
				if *d != nil {
					vals[i] = **d
				}
			}
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

const checkpointSchema = `CREATE TABLE IF NOT EXISTS ` + storecopy.CheckpointTable + ` (
	tbl    text COLLATE "C" PRIMARY KEY,
	source text NOT NULL,
	state  text NOT NULL,
	after  text NOT NULL,
	copied bigint NOT NULL,
	done   boolean NOT NULL
)`

// CopyCheckpoints reads the copy's checkpoint table, if a copy made one.
func (s *Store) CopyCheckpoints(ctx context.Context) ([]storecopy.Checkpoint, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, storecopy.CheckpointTable).Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT tbl, source, state, after, copied, done FROM `+storecopy.CheckpointTable+` ORDER BY tbl`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (storecopy.Checkpoint, error) {
		var cp storecopy.Checkpoint
		err := r.Scan(&cp.Table, &cp.Source, &cp.State, &cp.After, &cp.Copied, &cp.Done)
		return cp, err
	})
}

// CopyCount counts a table's rows.
func (s *Store) CopyCount(ctx context.Context, t storecopy.Table) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+t.Name).Scan(&n)
	return n, err
}

// CopyWrite sends a batch with COPY, the fastest way rows go in, and saves
// its checkpoint, in one transaction. The tables' statement triggers run
// for the COPY as for an INSERT (they notify listening nodes; none should
// be running on a store being filled).
func (s *Store) CopyWrite(ctx context.Context, t storecopy.Table, rows [][]any, cp storecopy.Checkpoint) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, checkpointSchema); err != nil {
		return err
	}
	for _, r := range rows {
		for i, c := range t.Columns {
			if v, ok := r[i].(string); ok && !storable(v) {
				key, _ := storecopy.EncodeKey(r[:t.Key])
				return fmt.Errorf("the row %s of %s holds in %s a string PostgreSQL cannot store (a NUL byte or invalid UTF-8): %q",
					key, t.Name, c.Name, v)
			}
		}
	}
	if len(rows) > 0 {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.Name}, t.Names(), pgx.CopyFromRows(rows)); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+storecopy.CheckpointTable+` (tbl, source, state, after, copied, done)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tbl) DO UPDATE SET
		source = excluded.source, state = excluded.state, after = excluded.after, copied = excluded.copied, done = excluded.done`,
		cp.Table, cp.Source, cp.State, cp.After, cp.Copied, cp.Done); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// CopyFinish sets each numbered table's sequence to the largest number in
// it, unless the sequence is past that already: the next event gets a
// larger number than every copied one, and a sequence is never moved back.
func (s *Store) CopyFinish(ctx context.Context, ts []storecopy.Table) error {
	var errs []error
	for _, t := range ts {
		if t.Seq == "" {
			continue
		}
		_, err := s.pool.Exec(ctx, `SELECT setval(x.s, GREATEST(x.m, COALESCE(pg_sequence_last_value(x.s::regclass), 0)))
			FROM (SELECT pg_get_serial_sequence($1, $2) AS s, (SELECT max(`+t.Seq+`) FROM `+t.Name+`) AS m) x
			WHERE x.m IS NOT NULL`, t.Name, t.Seq)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", t.Name, t.Seq, err))
		}
	}
	return errors.Join(errs...)
}
