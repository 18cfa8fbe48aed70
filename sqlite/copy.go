package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cupid-match/cupid/internal/storecopy"
)

// The store as the source and destination of `cupid store copy`
// (internal/storecopy). Values go in with the storage classes the store's
// own writes use — bodies, assignments and details as BLOBs, booleans as
// 0 and 1 — because the store compares some of them (a guarded rating
// row's body) and SQLite never finds a BLOB equal to a TEXT.

var (
	_ storecopy.Source      = (*Store)(nil)
	_ storecopy.Destination = (*Store)(nil)
)

// CopySnapshot begins a read transaction on a reading connection. In WAL mode
// the transaction sees the database as of its first read, whatever is
// written afterwards, so every page of the copy comes from one state.
func (s *Store) CopySnapshot(ctx context.Context) (storecopy.Snapshot, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("sqlite: begin the read: %w", err)
	}
	return snapshot{tx}, nil
}

type snapshot struct{ tx *sql.Tx }

func (sn snapshot) Close() error { return sn.tx.Rollback() }

func (sn snapshot) Count(ctx context.Context, t storecopy.Table) (int64, error) {
	return count(ctx, sn.tx, t)
}

// Max returns the largest value of an integer column, 0 for none.
func (sn snapshot) Max(ctx context.Context, t storecopy.Table, column string) (int64, error) {
	var n int64
	err := sn.tx.QueryRowContext(ctx, `SELECT COALESCE(max(`+column+`), 0) FROM `+t.Name).Scan(&n)
	return n, err
}

// rowQuerier is a *sql.Tx or a *sql.DB.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func count(ctx context.Context, q rowQuerier, t storecopy.Table) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM `+t.Name).Scan(&n)
	return n, err
}

// Rows reads a page in key order; a row value comparison starts it after
// the last key of the page before, which the primary key's index finds.
func (sn snapshot) Rows(ctx context.Context, t storecopy.Table, after []any, limit int) ([][]any, error) {
	key := strings.Join(t.KeyNames(), ", ")
	q := `SELECT ` + strings.Join(t.Names(), ", ") + ` FROM ` + t.Name
	args := []any{}
	if after != nil {
		q += ` WHERE (` + key + `) > (` + placeholders(len(after)) + `)`
		args = append(args, after...)
	}
	q += ` ORDER BY ` + key + ` LIMIT ?`
	args = append(args, limit)
	rows, err := sn.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(t.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, c := range t.Columns {
			v, err := fromSQLite(c, vals[i])
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t.Name, c.Name, err)
			}
			vals[i] = v
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// fromSQLite turns what the driver scanned into the value Kind promises.
func fromSQLite(c storecopy.Column, v any) (any, error) {
	if v == nil {
		if !c.Null {
			return nil, fmt.Errorf("NULL in a column that may not hold one")
		}
		return nil, nil
	}
	switch c.Kind {
	case storecopy.Text:
		switch v := v.(type) {
		case string:
			return v, nil
		case []byte:
			return string(v), nil
		}
	case storecopy.Int:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case storecopy.Bytes, storecopy.JSON:
		switch v := v.(type) {
		case []byte:
			return v, nil
		case string:
			return []byte(v), nil
		}
	case storecopy.Bool:
		if n, ok := v.(int64); ok {
			return n != 0, nil
		}
	}
	return nil, fmt.Errorf("unexpected value %T", v)
}

// toSQLite is fromSQLite's inverse: the storage class the store writes.
func toSQLite(v any) any {
	if b, ok := v.(bool); ok {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

const checkpointSchema = `CREATE TABLE IF NOT EXISTS ` + storecopy.CheckpointTable + ` (
	tbl    TEXT PRIMARY KEY,
	source TEXT NOT NULL,
	state  TEXT NOT NULL,
	after  TEXT NOT NULL,
	copied INTEGER NOT NULL,
	done   INTEGER NOT NULL
)`

// CopyCheckpoints reads the copy's checkpoint table, if a copy made one.
func (s *Store) CopyCheckpoints(ctx context.Context) ([]storecopy.Checkpoint, error) {
	var n int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`,
		storecopy.CheckpointTable).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := s.w.QueryContext(ctx, `SELECT tbl, source, state, after, copied, done FROM `+storecopy.CheckpointTable+` ORDER BY tbl`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storecopy.Checkpoint
	for rows.Next() {
		var cp storecopy.Checkpoint
		if err := rows.Scan(&cp.Table, &cp.Source, &cp.State, &cp.After, &cp.Copied, &cp.Done); err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	return out, rows.Err()
}

// CopyCount counts a table's rows.
func (s *Store) CopyCount(ctx context.Context, t storecopy.Table) (int64, error) {
	return count(ctx, s.w, t)
}

// copyChunk bounds the rows of one INSERT, so that its parameters stay
// well under SQLite's limit (32,766) for any batch size.
const copyChunk = 500

// CopyWrite inserts a batch with multi-row INSERTs and saves its checkpoint,
// in one transaction.
func (s *Store) CopyWrite(ctx context.Context, t storecopy.Table, rows [][]any, cp storecopy.Checkpoint) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, checkpointSchema); err != nil {
			return err
		}
		row := `(` + placeholders(len(t.Columns)) + `)`
		for len(rows) > 0 {
			n := min(len(rows), copyChunk)
			args := make([]any, 0, n*len(t.Columns))
			for _, r := range rows[:n] {
				for _, v := range r {
					args = append(args, toSQLite(v))
				}
			}
			q := `INSERT INTO ` + t.Name + ` (` + strings.Join(t.Names(), ", ") + `) VALUES ` +
				strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
			rows = rows[n:]
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO `+storecopy.CheckpointTable+` (tbl, source, state, after, copied, done)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tbl) DO UPDATE SET
			source = excluded.source, state = excluded.state, after = excluded.after, copied = excluded.copied, done = excluded.done`,
			cp.Table, cp.Source, cp.State, cp.After, cp.Copied, cp.Done)
		return err
	})
}

// CopyFinish has nothing to move: inserting a row with an explicit value into
// an AUTOINCREMENT column raises sqlite_sequence to it, so the next event
// is numbered past the copied ones already.
func (s *Store) CopyFinish(ctx context.Context, ts []storecopy.Table) error { return nil }
