package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
)

// CommitMatches stores each match atomically with its tickets' state change,
// in one transaction for the batch. A match naming a ticket that is not
// waiting (cancelled meanwhile, in another match, unknown) is refused whole
// and changes nothing. A stored match cancels its players' live tickets in
// other queues, so no player is in two matches.
//
// The cost is the driver's per statement, so the batch is read and written
// a step at a time, each step one multi-row statement for every match (per
// 128 rows): one reads which of the batch's tickets wait (with their
// bodies, for their players), one reads those players' live tickets
// anywhere; then Go decides match by match, in order, as if each were
// stored before the next is looked at; then one statement marks the
// committed matches' tickets matched, one frees their players, one stores
// the matches and one the events. Only the cross-queue cancellations, rare,
// are a statement each. The writer connection holds the database's write
// lock for the whole transaction, so nothing read can change before it is
// written; the update still carries the "still waiting" condition as a
// second guard.
func (s *Store) CommitMatches(ctx context.Context, ms []*cupid.Match) ([]cupid.Committed, []cupid.Event, error) {
	ids, err := cupid.CheckMatches(ms)
	if err != nil {
		return nil, nil, err
	}
	bodies := make([][]byte, len(ms))
	for i, m := range ms {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, fmt.Errorf("sqlite: encode match %s: %w", m.ID, err)
		}
		bodies[i] = b
	}
	var out []cupid.Committed
	var events []cupid.Event
	err = s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, events, err = s.commitBatch(ctx, tx, ms, ids, bodies)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, events, nil
}

// liveRow is a row of the player index: player has live ticket in queue.
type liveRow struct{ player, queue, ticket string }

// cancelRow is a ticket in another queue that a committed match cancels.
type cancelRow struct {
	match  int
	ticket string
	reason string
}

// commitBatch commits ms (whose tickets are ids, encoded as bodies) inside
// tx. It reads everything first, decides in Go, then writes.
//
// Deciding in order gives what committing the matches one after another
// would: a match is refused when one of its tickets was not waiting when
// the call began, or was matched or cancelled by an earlier match of the
// batch. The player index is read once, before anything is written, and
// its rows of ended tickets are deleted at the end: rows of tickets an
// earlier match of the batch ended are skipped. Such a row can only be of
// a ticket that match cancelled in another queue (a later match sharing a
// player with an earlier one is refused: that player's ticket in it was
// matched or cancelled).
func (s *Store) commitBatch(ctx context.Context, tx *sql.Tx, ms []*cupid.Match, ids [][]string, bodies [][]byte) ([]cupid.Committed, []cupid.Event, error) {
	// Which of the batch's tickets wait, with their players: only the ids
	// are decoded, so the rest of each body is skimmed, not built.
	n := 0
	for _, t := range ids {
		n += len(t)
	}
	args := make([]any, 0, n)
	waiting := make(map[string][]string, n)
	for _, t := range ids {
		for _, id := range t {
			if _, dup := waiting[id]; !dup {
				waiting[id] = nil
				args = append(args, id)
			}
		}
	}
	clear(waiting)
	err := s.multi.chunks(waitingTickets, len(args), func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args[lo:hi]...))(func(r rowScanner) error {
			var id string
			var body []byte
			if err := r.Scan(&id, &body); err != nil {
				return err
			}
			players, err := playersOf(body)
			if err != nil {
				return fmt.Errorf("sqlite: decode ticket %s: %w", id, err)
			}
			waiting[id] = players
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}

	// The live tickets anywhere of the players of every match whose
	// tickets all wait (whether it commits is decided below).
	args = args[:0]
	lives := make(map[string][]liveRow)
	for _, t := range ids {
		if !allWaiting(t, waiting) {
			continue
		}
		for _, id := range t {
			for _, p := range waiting[id] {
				if _, dup := lives[p]; !dup {
					lives[p] = nil
					args = append(args, p)
				}
			}
		}
	}
	err = s.multi.chunks(livesOfPlayers, len(args), func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args[lo:hi]...))(func(r rowScanner) error {
			var l liveRow
			if err := r.Scan(&l.player, &l.queue, &l.ticket); err != nil {
				return err
			}
			lives[l.player] = append(lives[l.player], l)
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}

	// Decide, match by match.
	out := make([]cupid.Committed, len(ms))
	matchedBy := make(map[string]int, n) // ticket → the match that took it
	cancelled := map[string]bool{}
	var cancels []cancelRow
	var free []any // (queue, player, ticket) rows to delete
	var mine, others []liveRow
	seen := make(map[string]int, len(lives)) // player → 1 + the last match that looked at it
	for i, m := range ms {
		for _, id := range ids[i] {
			_, ok := waiting[id]
			if _, taken := matchedBy[id]; !ok || taken || cancelled[id] {
				out[i].NotWaiting = append(out[i].NotWaiting, id)
			}
		}
		if len(out[i].NotWaiting) > 0 {
			continue
		}
		out[i].OK = true
		for _, id := range ids[i] {
			matchedBy[id] = i
		}
		// Each player once; each row of a ticket of this match is one to
		// free, each row of a ticket still live is one to cancel.
		mine, others = mine[:0], others[:0]
		for _, id := range ids[i] {
			for _, p := range waiting[id] {
				if seen[p] == i+1 {
					continue
				}
				seen[p] = i + 1
				for _, l := range lives[p] {
					if j, ok := matchedBy[l.ticket]; ok {
						if j == i {
							mine = append(mine, l)
						}
						continue
					}
					if !cancelled[l.ticket] {
						others = append(others, l)
					}
				}
			}
		}
		for _, l := range mine {
			free = append(free, l.queue, l.player, l.ticket)
		}
		// Each other ticket once, in id order, named by the smallest
		// player it shares with the match and the queue of that
		// player's matched ticket (the smallest, should a match span
		// queues).
		slices.SortFunc(others, func(a, b liveRow) int {
			return cmp.Or(cmp.Compare(a.ticket, b.ticket), cmp.Compare(a.player, b.player))
		})
		for k, o := range others {
			if k > 0 && others[k-1].ticket == o.ticket {
				continue
			}
			queue := ""
			for _, l := range mine {
				if l.player == o.player && (queue == "" || l.queue < queue) {
					queue = l.queue
				}
			}
			cancelled[o.ticket] = true
			cancels = append(cancels, cancelRow{match: i, ticket: o.ticket,
				reason: cupid.MatchedElsewhereReason(o.player, queue, m.ID)})
		}
	}

	// Write: the matched tickets, the cancelled ones, the freed players,
	// the matches, the events.
	args = args[:0]
	for i, m := range ms {
		if out[i].OK {
			at := m.CreatedAt.UnixNano()
			for _, id := range ids[i] {
				args = append(args, id, m.ID, at)
			}
		}
	}
	changed := int64(0)
	err = s.multi.chunks(setMatched, len(args)/3, func(st *sql.Stmt, lo, hi int) error {
		r, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[3*lo:3*hi]...)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		changed += n
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: mark matched tickets: %w", err)
	}
	if changed != int64(len(args)/3) {
		return nil, nil, fmt.Errorf("sqlite: %d of the %d tickets of the committed matches changed state under the write lock", changed, len(args)/3)
	}
	done := cancels[:0] // the cancellations that found their ticket waiting
	for _, c := range cancels {
		m := ms[c.match]
		t, err := scanTicket(tx.StmtContext(ctx, s.finish).QueryRowContext(ctx, string(cupid.StateCancelled), c.reason, m.CreatedAt.UnixNano(), c.ticket))
		if errors.Is(err, sql.ErrNoRows) {
			continue // not waiting after all: the index named an ended ticket
		}
		if err != nil {
			return nil, nil, fmt.Errorf("sqlite: match %s: cancel ticket %s: %w", m.ID, c.ticket, err)
		}
		out[c.match].Cancelled = append(out[c.match].Cancelled, t)
		for _, p := range t.Players {
			free = append(free, t.Key.Queue, p.ID, t.ID)
		}
		done = append(done, c)
	}
	err = s.multi.chunks(deleteLive, len(free)/3, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, free[3*lo:3*hi]...)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: free matched players: %w", err)
	}
	args = args[:0]
	for i, m := range ms {
		if out[i].OK {
			args = append(args, m.ID, m.CreatedAt.UnixNano(), bodies[i])
		}
	}
	err = s.multi.chunks(insertMatches, len(args)/3, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[3*lo:3*hi]...)
		return err
	})
	if isConstraint(err) {
		return nil, nil, cupid.Conflict("match_id", "a match id of the batch is taken: %v", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: store matches: %w", err)
	}
	if err := markPending(ctx, tx, ms, out); err != nil {
		return nil, nil, err
	}
	if err := s.logFormed(ctx, tx, ms, out); err != nil {
		return nil, nil, err
	}
	events := make([]cupid.Event, 0, len(matchedBy)+len(done))
	for i, m := range ms {
		if !out[i].OK {
			continue
		}
		for _, id := range ids[i] {
			events = append(events, cupid.Event{TicketID: id, Kind: matchedKind(m), At: m.CreatedAt, Match: m})
		}
		for len(done) > 0 && done[0].match == i {
			events = append(events, cupid.Event{TicketID: done[0].ticket, Kind: cupid.EventCancelled, At: m.CreatedAt, Reason: done[0].reason})
			done = done[1:]
		}
	}
	events, err = s.insertEvents(ctx, tx, events)
	if err != nil {
		return nil, nil, err
	}
	return out, events, nil
}

func allWaiting(ids []string, waiting map[string][]string) bool {
	for _, id := range ids {
		if _, ok := waiting[id]; !ok {
			return false
		}
	}
	return true
}

// playersOf reads the player ids from a stored ticket's body. The bodies
// are json.Marshal's, so a scan that only looks for the ids and steps over
// every other value does; encoding/json, which builds and checks the whole
// document, measured an eighth of the commit's CPU. Anything the scan does
// not expect (an escape or invalid UTF-8 in an id, an escape in a key, a key that differs from "players"
// or "id" only in case, a null) goes to encoding/json, so the answer is the
// same as with it for every valid document.
func playersOf(body []byte) ([]string, error) {
	if players, ok := skimPlayers(body); ok {
		return players, nil
	}
	var b struct {
		Players []struct {
			ID string `json:"id"`
		} `json:"players"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	players := make([]string, len(b.Players))
	for i, p := range b.Players {
		players[i] = p.ID
	}
	return players, nil
}

// skimPlayers is playersOf's scan; ok is false when it cannot tell.
func skimPlayers(body []byte) (players []string, ok bool) {
	s := skimmer{b: body}
	players = []string{}
	if !s.next('{') {
		return nil, false
	}
	if s.next('}') {
		return players, s.end()
	}
	for {
		k, ok := s.key()
		if !ok {
			return nil, false
		}
		switch {
		case string(k) == "players":
			if players, ok = s.players(); !ok {
				return nil, false
			}
		case strings.EqualFold(string(k), "players"):
			return nil, false
		case !s.skip():
			return nil, false
		}
		if s.next(',') {
			continue
		}
		if s.next('}') {
			return players, s.end()
		}
		return nil, false
	}
}

// skimmer reads a JSON document from b at i.
type skimmer struct {
	b []byte
	i int
}

func (s *skimmer) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// next consumes c, after white space, if it comes next.
func (s *skimmer) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (s *skimmer) end() bool {
	s.space()
	return s.i == len(s.b)
}

// str reads a string with no escape in it.
func (s *skimmer) str() ([]byte, bool) {
	if !s.next('"') {
		return nil, false
	}
	for j := s.i; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[s.i:j]
			s.i = j + 1
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// key reads an object's key and its colon.
func (s *skimmer) key() ([]byte, bool) {
	k, ok := s.str()
	return k, ok && s.next(':')
}

// players reads the players array: each player's id.
func (s *skimmer) players() ([]string, bool) {
	players := []string{}
	if !s.next('[') {
		return nil, false
	}
	if s.next(']') {
		return players, true
	}
	for {
		if !s.next('{') {
			return nil, false
		}
		id := ""
		if !s.next('}') {
			for {
				k, ok := s.key()
				if !ok {
					return nil, false
				}
				switch {
				case string(k) == "id":
					v, ok := s.str()
					if !ok || !utf8.Valid(v) {
						return nil, false
					}
					id = string(v)
				case strings.EqualFold(string(k), "id"):
					return nil, false
				case !s.skip():
					return nil, false
				}
				if s.next(',') {
					continue
				}
				if s.next('}') {
					break
				}
				return nil, false
			}
		}
		players = append(players, id)
		if s.next(',') {
			continue
		}
		if s.next(']') {
			return players, true
		}
		return nil, false
	}
}

// skip steps over one value of any kind, without checking more of it than
// where it ends.
func (s *skimmer) skip() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"', '{', '[':
	default: // a number, true, false or null
		j := s.i
		for j < len(s.b) && !strings.ContainsRune(",}] \t\n\r", rune(s.b[j])) {
			j++
		}
		ok := j > s.i
		s.i = j
		return ok
	}
	depth := 0
	for j := s.i; j < len(s.b); j++ {
		switch s.b[j] {
		case '"':
			for j++; j < len(s.b) && s.b[j] != '"'; j++ {
				if s.b[j] == '\\' {
					j++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		if depth == 0 {
			s.i = j + 1
			return j < len(s.b)
		}
	}
	return false
}
