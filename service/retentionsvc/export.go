package retentionsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/sim"
)

// Export before delete. A kind exported has each batch's rows written as
// JSON lines (the format of package sim's export.go, which cupid sim
// replay reads) to DIR/KIND/YYYY-MM-DD.jsonl, the day of the row's end,
// before the batch that deletes them: the service selects the batch
// (cupid.PruneRequest.Select), reads its rows, appends their lines and
// syncs the files, and only then sends the batch with Only, the ids
// written. A crash between the sync and the delete writes the same rows
// again at the next pass (readers keep one line per id); a write that
// fails stops the kind for the pass, deleting nothing of the batch.

// Export configures export before delete.
type Export struct {
	// Dir is the export's directory, created if missing.
	Dir string
	// Kinds are the kinds exported (cupid.ExportKinds at most).
	Kinds []cupid.RetentionKind
}

// RowReader reads the rows a batch chose by their ids: the store's
// readers (cupid.Store's Tickets and MatchRecord, cupid.RatingStore's
// Result). Options.Store must implement those an exported kind needs.
type RowReader interface {
	Tickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error)
	MatchRecord(ctx context.Context, id string) (*cupid.MatchRecord, error)
}

// resultReader reads a reported result by its match's id.
type resultReader interface {
	Result(ctx context.Context, matchID string) (cupid.ResultRecord, error)
}

// exporter writes the export of one service.
type exporter struct {
	dir     string
	kinds   []cupid.RetentionKind
	rows    RowReader
	results resultReader
	m       *metrics
	// files are the rows and bytes written to each file by the kind's
	// pass so far, for its log lines.
	files map[string]*written
}

type written struct{ rows, bytes int }

func newExporter(e *Export, store cupid.Pruner, m *metrics) (*exporter, error) {
	if e == nil || len(e.Kinds) == 0 {
		return nil, nil
	}
	if e.Dir == "" {
		return nil, errors.New("retentionsvc: export: no directory")
	}
	x := &exporter{dir: e.Dir, kinds: slices.Clone(e.Kinds), m: m, files: map[string]*written{}}
	for _, k := range e.Kinds {
		if !slices.Contains(cupid.ExportKinds, k) {
			return nil, fmt.Errorf("retentionsvc: export: %s cannot be exported (only %v)", k, cupid.ExportKinds)
		}
	}
	rows, ok := store.(RowReader)
	if !ok {
		return nil, fmt.Errorf("retentionsvc: export: the store %T cannot read the rows it removes", store)
	}
	x.rows = rows
	if slices.Contains(e.Kinds, cupid.RetainRatingResults) {
		if x.results, ok = store.(resultReader); !ok {
			return nil, fmt.Errorf("retentionsvc: export: the store %T keeps no rating results", store)
		}
	}
	return x, nil
}

// exports reports whether kind is exported.
func (x *exporter) exports(kind cupid.RetentionKind) bool {
	return x != nil && slices.Contains(x.kinds, kind)
}

// write appends the lines of the rows with these ids to their days'
// files and syncs them, and returns the ids written: those still there
// (a row gone since the batch chose it has nothing to write, and nothing
// to delete). An error means the rows may not all be on disk: none is
// to be deleted.
func (x *exporter) write(ctx context.Context, kind cupid.RetentionKind, ids []string) ([]string, error) {
	byFile := map[string]*bytes.Buffer{}
	rowsOf := map[string]int{}
	done := make([]string, 0, len(ids))
	add := func(id string, end time.Time, line any) error {
		data, err := json.Marshal(line)
		if err != nil {
			return err
		}
		path := sim.ExportFile(x.dir, kind, end)
		b := byFile[path]
		if b == nil {
			b = &bytes.Buffer{}
			byFile[path] = b
		}
		b.Write(data)
		b.WriteByte('\n')
		rowsOf[path]++
		done = append(done, id)
		return nil
	}
	switch kind {
	case cupid.RetainTickets:
		for lo := 0; lo < len(ids); lo += cupid.MaxFilterIDs {
			part := ids[lo:min(lo+cupid.MaxFilterIDs, len(ids))]
			ts, err := x.rows.Tickets(ctx, cupid.TicketFilter{IDs: part})
			if err != nil {
				return nil, fmt.Errorf("read the tickets to export: %w", err)
			}
			for _, t := range ts {
				if err := add(t.ID, t.UpdatedAt, sim.ExportTicket(t)); err != nil {
					return nil, err
				}
			}
		}
	case cupid.RetainMatches:
		for _, id := range ids {
			r, err := x.rows.MatchRecord(ctx, id)
			if cupid.ErrorCode(err) == cupid.CodeNotFound {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("read match %s to export: %w", id, err)
			}
			if err := add(id, r.UpdatedAt, sim.ExportMatch(r)); err != nil {
				return nil, err
			}
		}
	case cupid.RetainRatingResults:
		for _, id := range ids {
			r, err := x.results.Result(ctx, id)
			if cupid.ErrorCode(err) == cupid.CodeNotFound {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("read the result of match %s to export: %w", id, err)
			}
			if err := add(id, r.At, sim.ExportResultOf(r)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s cannot be exported", kind)
	}
	for _, path := range slices.Sorted(maps.Keys(byFile)) {
		data := byFile[path].Bytes()
		if err := appendSynced(path, data); err != nil {
			x.m.exportErrors.WithLabelValues(string(kind)).Inc()
			return nil, err
		}
		x.m.exportedRows.WithLabelValues(string(kind)).Add(float64(rowsOf[path]))
		x.m.exportedBytes.WithLabelValues(string(kind)).Add(float64(len(data)))
		w := x.files[path]
		if w == nil {
			w = &written{}
			x.files[path] = w
		}
		w.rows += rowsOf[path]
		w.bytes += len(data)
	}
	return done, nil
}

// appendSynced appends data, whole lines, to the file at path and syncs
// it (and, for a new file, its directory), so that the lines are on disk
// before the rows are deleted. A last line a crash cut short is cut off
// first, so the file holds whole lines; a write that fails is undone.
func appendSynced(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	newDir := false
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		newDir = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export to %s: %w", dir, err)
	}
	if newDir {
		if err := syncDir(filepath.Dir(dir)); err != nil {
			return fmt.Errorf("export to %s: %w", dir, err)
		}
	}
	_, statErr := os.Stat(path)
	newFile := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("export to %s: %w", path, cerr)
		}
	}()
	size, err := wholeLines(f)
	if err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Truncate(size)
		return fmt.Errorf("export to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Truncate(size)
		return fmt.Errorf("export to %s: %w", path, err)
	}
	if newFile {
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("export to %s: %w", path, err)
		}
	}
	return nil
}

// wholeLines cuts off a last line without its newline (a write a crash
// cut short; its rows were not deleted and are being written again) and
// returns the file's size.
func wholeLines(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	end := size
	for end > 0 {
		lo := max(0, end-chunk)
		n, err := f.ReadAt(buf[:end-lo], lo)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			end = lo + int64(i) + 1
			break
		}
		end = lo
	}
	if end == size {
		return size, nil
	}
	return end, f.Truncate(end)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
