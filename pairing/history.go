package pairing

import (
	"slices"
	"time"
)

// RoundRecord is one computed round as it happened: who was in the lobby,
// who went to which room with whom, and who sat out. Rounds that found no
// pair at all are recorded too (Round is then 0), so that an organiser can
// see when and why an event stalled.
type RoundRecord struct {
	// Seq numbers every computed round of the event from 1, including
	// those that found no pair; a watcher replays from a Seq.
	Seq int `json:"seq"`
	// Round is the round's number (the event's round counter), or 0 when
	// nobody could be paired.
	Round int       `json:"round,omitempty"`
	At    time.Time `json:"at"`
	// Rooms are the pairs and the trio seated, by room.
	Rooms []RoomPair `json:"rooms,omitempty"`
	// SatOut are the people of the lobby not seated, sorted.
	SatOut []string `json:"sat_out,omitempty"`
}

// Lobby returns everyone who was in the lobby when the round was computed,
// sorted: the people seated and those who sat out.
func (r RoundRecord) Lobby() []string {
	out := slices.Clone(r.SatOut)
	for _, p := range r.Rooms {
		out = append(out, p.A, p.B)
		if p.C != "" {
			out = append(out, p.C)
		}
	}
	slices.Sort(out)
	return out
}

// names counts the keys a record holds: what it costs to keep.
func (r RoundRecord) names() int {
	n := len(r.SatOut)
	for _, p := range r.Rooms {
		n += 2
		if p.C != "" {
			n++
		}
	}
	return n
}

// HistoryLimits bound the round history an event keeps. The history is
// part of the stored event, rewritten with every change, so it is kept
// short; the oldest rounds are dropped first, and the latest round is
// always kept whatever its size.
type HistoryLimits struct {
	// Rounds is the most rounds kept.
	Rounds int
	// Names is the most keys kept over all rounds (a round of 10,000
	// people holds 10,000).
	Names int
}

// The largest history limits a server may set: beyond them one event's
// stored document would grow to hundreds of megabytes.
const (
	MaxHistoryRounds = 100_000
	MaxHistoryNames  = 10_000_000
)

// DefaultHistoryLimits keep the last 200 rounds of an 80-person event,
// and the last 10 of a 10,000-person one.
var DefaultHistoryLimits = HistoryLimits{Rounds: 200, Names: 100_000}

// SetHistoryLimits changes the bounds of the round history (a zero field
// keeps its default) and drops what no longer fits. Limits are the
// server's, not part of the event's state.
func (e *Event) SetHistoryLimits(l HistoryLimits) {
	if l.Rounds <= 0 {
		l.Rounds = DefaultHistoryLimits.Rounds
	}
	if l.Names <= 0 {
		l.Names = DefaultHistoryLimits.Names
	}
	e.limits = l
	e.trimHistory()
}

// record keeps a computed round and tells the organiser.
func (e *Event) record(r RoundRecord) {
	e.history = append(e.history, r)
	e.trimHistory()
	e.notify(Notification{Kind: KindRoundRecorded, Seq: r.Seq, Round: r.Round, Record: &r})
}

func (e *Event) trimHistory() {
	names := 0
	for _, r := range e.history {
		names += r.names()
	}
	drop := 0
	for len(e.history)-drop > 1 && (len(e.history)-drop > e.limits.Rounds || names > e.limits.Names) {
		names -= e.history[drop].names()
		drop++
	}
	if drop > 0 {
		e.history = slices.Delete(e.history, 0, drop)
	}
}

// History returns up to limit recorded rounds with Seq after after, oldest
// first, and whether more follow. Rounds dropped by the limits are gone:
// the first returned may then be later than after+1.
func (e *Event) History(after, limit int) ([]RoundRecord, bool) {
	i, _ := slices.BinarySearchFunc(e.history, after+1, func(r RoundRecord, seq int) int { return r.Seq - seq })
	rest := e.history[i:]
	if limit > 0 && len(rest) > limit {
		return slices.Clone(rest[:limit]), true
	}
	return slices.Clone(rest), false
}

// Seq returns the number of rounds computed so far, including those that
// found no pair.
func (e *Event) Seq() int { return e.seq }

// Stale reports whether the last round found nobody in the lobby who could
// be paired and nothing has changed since that could allow a pair.
func (e *Event) Stale() bool { return e.stale }
