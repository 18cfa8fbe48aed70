package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// CommitMatches stores the matches of a batch that lifecycle.PlanCommit
// decides to store, in one transaction.
//
// The cost is the driver's per statement, so the batch is read and written
// a step at a time, each step one multi-row statement for every match (per
// 128 rows): one reads which of the batch's tickets wait (with their
// bodies, for their players), one reads those players' live tickets
// anywhere; then the plan is decided; then one statement marks the
// committed matches' tickets matched, one frees their players, one stores
// the matches and one the events. Only the cross-queue cancellations, rare,
// are a statement each. The writer connection holds the database's write
// lock for the whole transaction, so nothing read can change before it is
// written; the update still carries the "still waiting" condition as a
// second guard.
func (s *Store) CommitMatches(ctx context.Context, fence cupid.Fence, ms []*cupid.Match) ([]cupid.Committed, []cupid.Event, error) {
	ids, err := lifecycle.CheckMatches(ms)
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
	var p *lifecycle.CommitPlan
	err = s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		p, err = s.commitBatch(ctx, tx, ms, ids, bodies)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return p.Out, p.Events, nil
}

// liveRow is a row of the player index: player has live ticket in queue.
type liveRow struct{ player, queue, ticket string }

// commitBatch commits ms (whose tickets are ids, encoded as bodies) inside
// tx: it reads everything first, has the lifecycle decide, then writes.
func (s *Store) commitBatch(ctx context.Context, tx *sql.Tx, ms []*cupid.Match, ids [][]string, bodies [][]byte) (*lifecycle.CommitPlan, error) {
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
		return nil, err
	}

	// The live tickets anywhere of the players of every match whose
	// tickets all wait (whether it commits is decided by the plan).
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
		return nil, err
	}
	// The other live tickets of each waiting ticket's players, named by
	// the queue of that ticket's own row.
	var others []lifecycle.Other
	for id, players := range waiting {
		for _, p := range players {
			queue := ""
			for _, l := range lives[p] {
				if l.ticket == id {
					queue = l.queue
				}
			}
			for _, l := range lives[p] {
				if l.ticket != id {
					others = append(others, lifecycle.Other{Mine: id, Player: p, Queue: queue, Ticket: l.ticket})
				}
			}
		}
	}
	// The live matches those players are in: a player is in one at most.
	inMatch := map[string][]string{}
	err = s.multi.chunks(matchPlayersOf, len(args), func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args[lo:hi]...))(func(r rowScanner) error {
			var p, m string
			if err := r.Scan(&p, &m); err != nil {
				return err
			}
			inMatch[p] = append(inMatch[p], m)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	var busy []cupid.Busy
	if len(inMatch) > 0 {
		for id, players := range waiting {
			for _, p := range players {
				for _, m := range inMatch[p] {
					busy = append(busy, cupid.Busy{Ticket: id, Player: p, Match: m})
				}
			}
		}
	}
	p := lifecycle.PlanCommit(ms, ids, func(id string) bool { _, ok := waiting[id]; return ok }, others, busy)

	// Write: the matched tickets, the cancelled ones, the freed players,
	// the matches, the events.
	args = args[:0]
	var free []any // (queue, player, ticket) rows to delete
	for i, m := range ms {
		if !p.Out[i].OK {
			continue
		}
		at := m.CreatedAt.UnixNano()
		for _, id := range ids[i] {
			args = append(args, id, m.ID, at)
			for _, pl := range waiting[id] {
				for _, l := range lives[pl] {
					if l.ticket == id {
						free = append(free, l.queue, l.player, l.ticket)
					}
				}
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
		return nil, fmt.Errorf("sqlite: mark matched tickets: %w", err)
	}
	if changed != int64(len(args)/3) {
		return nil, fmt.Errorf("sqlite: %d of the %d tickets of the committed matches changed state under the write lock", changed, len(args)/3)
	}
	for _, c := range p.Cancels {
		m := ms[c.Match]
		t, err := scanTicket(tx.StmtContext(ctx, s.finish).QueryRowContext(ctx, string(cupid.StateCancelled), c.Reason, m.CreatedAt.UnixNano(), c.Ticket))
		if err != nil {
			return nil, fmt.Errorf("sqlite: match %s: cancel ticket %s: %w", m.ID, c.Ticket, err)
		}
		p.Out[c.Match].Cancelled = append(p.Out[c.Match].Cancelled, t)
		for _, pl := range t.Players {
			free = append(free, t.Key.Queue, pl.ID, t.ID)
		}
	}
	err = s.multi.chunks(deleteLive, len(free)/3, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, free[3*lo:3*hi]...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: free matched players: %w", err)
	}
	args = args[:0]
	for i, m := range ms {
		if p.Out[i].OK {
			state := cupid.MatchFormed
			if !m.AcceptBy.IsZero() {
				state = cupid.MatchPending // not logged until its players accept (lifecycle.Answer)
			}
			args = append(args, m.ID, m.CreatedAt.UnixNano(), bodies[i], string(state))
		}
	}
	err = s.multi.chunks(insertMatches, len(args)/4, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[4*lo:4*hi]...)
		return err
	})
	if isConstraint(err) {
		return nil, cupid.Conflict("match_id", "a match id of the batch is taken: %v", err)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: store matches: %w", err)
	}
	var stored []*cupid.Match
	for i, m := range ms {
		if p.Out[i].OK {
			stored = append(stored, m)
		}
	}
	if err := s.indexMatchPlayers(ctx, tx, stored...); err != nil {
		return nil, fmt.Errorf("sqlite: index the players of the stored matches: %w", err)
	}
	if err := s.insertMatchEvents(ctx, tx, p.Formed(ms)); err != nil {
		return nil, err
	}
	p.Events, err = s.insertEvents(ctx, tx, p.Events)
	return p, err
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
