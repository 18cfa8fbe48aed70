package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
)

// An export is what retention writes before it deletes old rows
// (retention.export in the configuration): one directory per kind of data,
// one JSON Lines file per day of the rows' end (UTC), appended to.
//
//	DIR/tickets/2026-03-01.jsonl   ended tickets, as traffic ticket lines
//	DIR/matches/2026-03-01.jsonl   ended and released matches, as match lines
//	DIR/rating_results/2026-03-01.jsonl   reported results
//
// A ticket or match line is the line of a traffic file (traffic.go) with
// two differences, because an export has no header and holds every queue:
// the line names its queue, and its times (at, ended) are seconds after
// the Unix epoch, to the millisecond. So ReadExport turns an export into
// the traffic of one queue's window, and cupid sim replay plays it.
//
// Retention deletes a batch only after its lines are written and synced;
// a crash between the two writes the same rows again at the next pass.
// So a row may have more than one line (the same line): readers keep one
// per id, as ReadExport does. A crash while writing may also leave a last
// line without its newline; the next write to the file cuts it off first,
// and readers skip it meanwhile.

// ExportFile is the file a row that ended at end is exported to, under
// dir.
func ExportFile(dir string, kind cupid.RetentionKind, end time.Time) string {
	return filepath.Join(dir, string(kind), end.UTC().Format(time.DateOnly)+".jsonl")
}

// ExportSeconds is an export line's time: seconds after the Unix epoch,
// to the millisecond.
func ExportSeconds(t time.Time) float64 {
	return float64(t.UnixMilli()) / 1000
}

func exportTime(s float64) time.Time {
	return time.UnixMilli(int64(math.Round(s * 1000))).UTC()
}

// ExportTicket is an ended ticket's export line.
func ExportTicket(t *cupid.Ticket) TrafficTicket {
	tt := trafficOf(t, time.Unix(0, 0))
	tt.At = ExportSeconds(t.CreatedAt)
	tt.Queue = t.Key.Queue
	return tt
}

// ExportMatch is a match's export line: its match line, with its queue,
// how it ended and when.
func ExportMatch(r *cupid.MatchRecord) TrafficMatch {
	tm := matchOf(r.Match, time.Unix(0, 0))
	tm.At = ExportSeconds(r.Match.CreatedAt)
	ended := ExportSeconds(r.UpdatedAt)
	tm.Queue, tm.State, tm.Ended = r.Match.Key.Queue, string(r.State), &ended
	return tm
}

// ExportResult is a reported result's export line: the result as the
// ratings service stored it (the report and what it did).
type ExportResult struct {
	Kind   string          `json:"kind"` // always "result"
	Match  string          `json:"match"`
	At     float64         `json:"at"`
	Result json.RawMessage `json:"result"`
}

// ExportResultOf is a stored result's export line.
func ExportResultOf(r cupid.ResultRecord) ExportResult {
	body := json.RawMessage(r.Body)
	if !json.Valid(body) {
		// A body is the service's JSON; keep whatever it is readable.
		b, _ := json.Marshal(string(r.Body))
		body = b
	}
	return ExportResult{Kind: "result", Match: r.MatchID, At: ExportSeconds(r.At), Result: body}
}

// ReadExport reads a queue's traffic of [from, to) (by creation time)
// from an export directory, as Read reads it from a store: the tickets in
// creation order, one per id, and, when the export holds the matches of
// all of the window's matched tickets, those matches (the replay's
// "actual" column). Matches are kept longer than tickets by default, so an
// export often has a ticket whose match is still in the store: then the
// traffic has no actual column (version 1).
//
// A row ends after it is created, so only the days from from's on are
// read.
func ReadExport(dir, queue string, from, to time.Time) (*Traffic, error) {
	if err := checkWindow(queue, from, to); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	tr := &Traffic{Header: TrafficHeader{Version: trafficVersion, Queue: queue, From: from, To: to}}
	seen := map[string]bool{}
	err := eachExportLine(dir, cupid.RetainTickets, from, true, func(where string, line []byte) error {
		var t TrafficTicket
		if err := strictJSON(line, &t); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := t.check(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		created := exportTime(t.At)
		if t.Queue != queue || created.Before(from) || !created.Before(to) || seen[t.ID] {
			return nil
		}
		seen[t.ID] = true
		t.At, t.Queue = ms(created.Sub(from)), ""
		tr.Tickets = append(tr.Tickets, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(tr.Tickets, func(a, b TrafficTicket) int {
		if a.At != b.At {
			if a.At < b.At {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	wanted := map[string]bool{}
	for _, t := range tr.Tickets {
		if t.Match != "" {
			wanted[t.Match] = true
		}
	}
	found := map[string]bool{}
	err = eachExportLine(dir, cupid.RetainMatches, from, false, func(where string, line []byte) error {
		var m TrafficMatch
		if err := strictJSON(line, &m); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := m.check(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if !wanted[m.ID] || found[m.ID] {
			return nil
		}
		found[m.ID] = true
		m.At, m.Queue = max(0, ms(exportTime(m.At).Sub(from))), ""
		if m.Ended != nil {
			ended := ms(exportTime(*m.Ended).Sub(from))
			m.Ended = &ended
		}
		tr.Matches = append(tr.Matches, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(found) < len(wanted) {
		// Without every real match the actual column would show matched
		// tickets waiting: leave it out, as for a store without matches.
		tr.Header.Version, tr.Matches = 1, nil
		for i := range tr.Tickets {
			tr.Tickets[i].Match = ""
		}
	}
	return tr, nil
}

// eachExportLine hands on every line of a kind's files from the day of
// from on, in day order, with its file and line for errors. A kind's
// directory that does not exist is an error when required, else nothing.
func eachExportLine(dir string, kind cupid.RetentionKind, from time.Time, required bool, f func(where string, line []byte) error) error {
	kdir := filepath.Join(dir, string(kind))
	entries, err := os.ReadDir(kdir)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the export's %s: %w", kind, err)
	}
	first := from.Format(time.DateOnly)
	for _, e := range entries { // ReadDir sorts by name: by day
		day, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() {
			continue
		}
		if _, err := time.Parse(time.DateOnly, day); err != nil || day < first {
			continue
		}
		path := filepath.Join(kdir, e.Name())
		if err := eachLine(path, f); err != nil {
			return err
		}
	}
	return nil
}

func eachLine(path string, f func(where string, line []byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := bufio.NewReader(file)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			// A last line without its newline is one a crash cut short:
			// its rows were not deleted, so the next pass writes them
			// again (after cutting it off).
			return nil
		}
		if err != nil {
			return err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if err := f(fmt.Sprintf("%s:%d", path, n), line); err != nil {
			return err
		}
	}
}

func strictJSON(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Write writes the traffic as a traffic file: the header, the tickets in
// order, each real match after the first of its tickets (as Record
// does).
func (tr *Traffic) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tr.Header); err != nil {
		return err
	}
	byID := make(map[string]*TrafficMatch, len(tr.Matches))
	for i := range tr.Matches {
		byID[tr.Matches[i].ID] = &tr.Matches[i]
	}
	for i := range tr.Tickets {
		t := &tr.Tickets[i]
		if err := enc.Encode(t); err != nil {
			return err
		}
		if m := byID[t.Match]; m != nil {
			delete(byID, t.Match)
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
