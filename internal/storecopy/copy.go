package storecopy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Source is a store rows are copied out of.
type Source interface {
	// CopySnapshot begins a read of the whole store as of one moment: every
	// page of every table comes from it, so the rows copied fit together
	// even if something wrote to the store meanwhile.
	CopySnapshot(ctx context.Context) (Snapshot, error)
}

// Snapshot reads one consistent state of a source.
type Snapshot interface {
	// Count returns the number of rows in a table.
	Count(ctx context.Context, t Table) (int64, error)
	// Max returns the largest value of an integer column, 0 for none.
	Max(ctx context.Context, t Table, column string) (int64, error)
	// Rows returns up to limit rows of a table in key order, after the key
	// given (nil: from the first row). A row holds t.Columns' values in
	// order, as Kind says, nil for NULL.
	Rows(ctx context.Context, t Table, after []any, limit int) ([][]any, error)
	// Close ends the read.
	Close() error
}

// Destination is a store rows are copied into.
type Destination interface {
	// CopyCheckpoints returns the checkpoints of a copy into this store, none
	// when no copy ever wrote to it.
	CopyCheckpoints(ctx context.Context) ([]Checkpoint, error)
	// CopyCount returns the number of rows in a table.
	CopyCount(ctx context.Context, t Table) (int64, error)
	// CopyWrite inserts rows (values as Snapshot.Rows gives them) and saves cp,
	// in one transaction: either both are there afterwards or neither.
	CopyWrite(ctx context.Context, t Table, rows [][]any, cp Checkpoint) error
	// CopyFinish moves each table's sequence (Table.Seq) past the largest
	// value in it, so the store's next numbers are larger than every copied
	// one. It is idempotent.
	CopyFinish(ctx context.Context, ts []Table) error
}

// InUse is implemented by stores that can tell whether servers are
// running on them now (PostgreSQL, by its nodes' heartbeats). CopyInUse
// returns an error saying which are, nil when none is.
type InUse interface {
	CopyInUse(ctx context.Context) error
}

// Checkpoint is how far a copy went in one table.
type Checkpoint struct {
	Table  string
	Source string // the source's name, as Options.Source gave it
	State  string // the source's state when the copy began (see Copy)
	After  string // the last key copied, a JSON array; "" before the first batch
	Copied int64  // rows copied so far
	Done   bool   // every row is copied
}

// Progress is reported after each batch and when a table is done.
type Progress struct {
	Table   string
	Copied  int64   // rows in the destination so far
	Total   int64   // rows in the source
	Rate    float64 // rows per second in this run, 0 before there is one
	Done    bool
	Resumed bool // the table was part-copied by an earlier run
}

// Options tune a copy.
type Options struct {
	// Source names the source (a path, a URL without its password). It is
	// kept with the checkpoints, so a resumed copy must come from the
	// same source.
	Source string
	// Batch is the number of rows per transaction (default 1,000).
	Batch int
	// Progress, when set, hears of each batch.
	Progress func(Progress)
}

// DefaultBatch is the number of rows each destination transaction holds.
const DefaultBatch = 1000

// Copy copies every table of Tables from src into dst. A destination that
// holds rows no copy wrote is refused, naming the first such table; one
// that holds checkpoints of a copy from the same source carries on after
// them. A cancelled ctx stops the copy between batches, with every batch
// before it committed.
//
// Each run reads the source from one snapshot, but a copy resumed reads a
// later snapshot than the rows copied before it stopped: if a server wrote
// to the source in between, the copy would mix two states. So the
// checkpoints keep the source's state when the copy began — each table's
// row count and the largest value of its Stamp column, which grow with
// the writes a server makes (every ticket or match change adds an event) —
// and a resumed copy that finds another state refuses to go on.
func Copy(ctx context.Context, src Source, dst Destination, o Options) error {
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	for _, s := range []struct {
		what  string
		store any
	}{{"source", src}, {"destination", dst}} {
		if u, ok := s.store.(InUse); ok {
			if err := u.CopyInUse(ctx); err != nil {
				return fmt.Errorf("the %s is in use: %w", s.what, err)
			}
		}
	}
	cps, err := dst.CopyCheckpoints(ctx)
	if err != nil {
		return fmt.Errorf("read the destination's checkpoints: %w", err)
	}
	done := map[string]Checkpoint{}
	for _, cp := range cps {
		if cp.Source != o.Source {
			return fmt.Errorf("the destination holds a copy from %s, not from %s: copy into an empty store, or resume with the same --from", cp.Source, o.Source)
		}
		done[cp.Table] = cp
	}
	if len(cps) == 0 {
		for _, t := range Tables {
			n, err := dst.CopyCount(ctx, t)
			if err != nil {
				return fmt.Errorf("count the destination's %s: %w", t.Name, err)
			}
			if n > 0 {
				return fmt.Errorf("the destination's table %s already holds %d rows that no copy wrote: copy into an empty store", t.Name, n)
			}
		}
	}
	snap, err := src.CopySnapshot(ctx)
	if err != nil {
		return fmt.Errorf("read the source: %w", err)
	}
	defer snap.Close()
	state, counts, err := sourceState(ctx, snap)
	if err != nil {
		return fmt.Errorf("read the source: %w", err)
	}
	for _, cp := range cps {
		if cp.State != state {
			return fmt.Errorf("the source changed since the copy began (%s): a server wrote to it; stop it, and copy again into an empty store",
				stateChange(cp.State, state))
		}
	}
	for _, t := range Tables {
		cp, ok := done[t.Name]
		if !ok {
			cp = Checkpoint{Table: t.Name, Source: o.Source, State: state}
		}
		if err := copyTable(ctx, snap, dst, t, counts[t.Name], cp, ok, o); err != nil {
			return err
		}
	}
	if err := dst.CopyFinish(ctx, Tables); err != nil {
		return fmt.Errorf("advance the destination's sequences: %w", err)
	}
	return nil
}

// copyTable copies one table from its checkpoint on, then checks that the
// destination holds as many rows as the source.
func copyTable(ctx context.Context, snap Snapshot, dst Destination, t Table, total int64, cp Checkpoint, resumed bool, o Options) error {
	report := func(rate float64) {
		if o.Progress != nil {
			o.Progress(Progress{Table: t.Name, Copied: cp.Copied, Total: total, Rate: rate, Done: cp.Done, Resumed: resumed})
		}
	}
	if cp.Done {
		report(0)
		return nil
	}
	after, err := DecodeKey(t, cp.After)
	if err != nil {
		return fmt.Errorf("checkpoint of %s: %w", t.Name, err)
	}
	start, startCopied := time.Now(), cp.Copied
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := snap.Rows(ctx, t, after, o.Batch)
		if err != nil {
			return fmt.Errorf("read the source's %s after %s: %w", t.Name, cp.After, err)
		}
		if len(rows) > 0 {
			last := rows[len(rows)-1][:t.Key]
			key, err := EncodeKey(last)
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			after, cp.After = last, key
			cp.Copied += int64(len(rows))
		}
		cp.Done = len(rows) < o.Batch
		if err := dst.CopyWrite(ctx, t, rows, cp); err != nil {
			return fmt.Errorf("write %s (rows up to key %s): %w", t.Name, cp.After, err)
		}
		rate := 0.0
		if s := time.Since(start).Seconds(); s > 0 {
			rate = float64(cp.Copied-startCopied) / s
		}
		report(rate)
		if cp.Done {
			break
		}
	}
	n, err := dst.CopyCount(ctx, t)
	if err != nil {
		return fmt.Errorf("count the destination's %s: %w", t.Name, err)
	}
	if n != total {
		return fmt.Errorf("the destination's %s holds %d rows, the source %d: the source changed between runs of the copy (was a server running on it?); start again into an empty store", t.Name, n, total)
	}
	return nil
}

// sourceState describes the source as "table:rows:stamp" words, one per
// table (no stamp for tables without one), and returns the row counts.
func sourceState(ctx context.Context, snap Snapshot) (string, map[string]int64, error) {
	counts := map[string]int64{}
	words := make([]string, 0, len(Tables))
	for _, t := range Tables {
		n, err := snap.Count(ctx, t)
		if err != nil {
			return "", nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		counts[t.Name] = n
		w := fmt.Sprintf("%s:%d", t.Name, n)
		if t.Stamp != "" {
			m, err := snap.Max(ctx, t, t.Stamp)
			if err != nil {
				return "", nil, fmt.Errorf("largest %s.%s: %w", t.Name, t.Stamp, err)
			}
			w += fmt.Sprintf(":%d", m)
		}
		words = append(words, w)
	}
	return strings.Join(words, " "), counts, nil
}

// stateChange names the tables whose part of two states differ.
func stateChange(was, is string) string {
	a, b := strings.Fields(was), strings.Fields(is)
	var diff []string
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			name, _, _ := strings.Cut(x+y, ":")
			diff = append(diff, name)
		}
	}
	return strings.Join(diff, ", ") + " changed"
}

// EncodeKey writes a key (Text and Int values) as a JSON array.
func EncodeKey(key []any) (string, error) {
	b, err := json.Marshal(key)
	if err != nil {
		return "", fmt.Errorf("encode key %v: %w", key, err)
	}
	return string(b), nil
}

// DecodeKey reads a key EncodeKey wrote, giving each value the Go type of
// its column; "" is no key (nil). Numbers are read as written, so int64
// sequence numbers beyond 2^53 come back exact.
func DecodeKey(t Table, s string) ([]any, error) {
	if s == "" {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var raw []any
	if err := d.Decode(&raw); err != nil {
		return nil, fmt.Errorf("key %q: %w", s, err)
	}
	if len(raw) != t.Key {
		return nil, fmt.Errorf("key %q has %d values, the table's key %d", s, len(raw), t.Key)
	}
	out := make([]any, len(raw))
	for i, v := range raw {
		switch c := t.Columns[i]; c.Kind {
		case Text:
			str, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("key %q: %s is not a string", s, c.Name)
			}
			out[i] = str
		case Int:
			num, ok := v.(json.Number)
			if !ok {
				return nil, fmt.Errorf("key %q: %s is not a number", s, c.Name)
			}
			n, err := num.Int64()
			if err != nil {
				return nil, fmt.Errorf("key %q: %s: %w", s, c.Name, err)
			}
			out[i] = n
		default:
			return nil, errors.New("key column " + c.Name + " is neither text nor an integer")
		}
	}
	return out, nil
}
